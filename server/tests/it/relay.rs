//! An agent's command may not drive the console through a follower either (http/peer.rs): the
//! leader runs the agents, so `curl -X POST follower:…/api/budgets` from one of them reaches a
//! server whose tree it is not in, which hands the request to the leader from a process that is
//! not the leader's. The follower says whose connection it carried (`x-soulgrid-peer`), and the
//! leader refuses a request whose first client is one of its agents' processes, as it refuses
//! one sent to it directly; a request of anyone else through the follower is served.
//!
//! Here the leader is this test's process (its children are its agents' processes, as in
//! `router::agents`), and the follower a process outside its tree.

use std::time::{Duration, Instant};

use leptos::prelude::LeptosOptions;

use crate::common::{self, body_json, raw_request, On};

/// A `soulgrid` process outside this process's tree (started through a shell that leaves it),
/// killed when dropped.
struct Outside {
    pid: i32,
    port: u16,
}

impl Outside {
    fn start(data_dir: &std::path::Path, args: &[&str]) -> Outside {
        let port = common::free_port();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#""$0" "$@" </dev/null >/dev/null 2>&1 & echo $!"#)
            .arg(env!("CARGO_BIN_EXE_soulgrid"))
            .args(args)
            .envs(common::server_env(data_dir, port))
            .output()
            .unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        Outside { pid, port }
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process this test started.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
    }
}

async fn health(port: u16) -> Option<serde_json::Value> {
    let reply = tokio::time::timeout(
        Duration::from_secs(10),
        raw_request(port, "GET", "/healthz", None),
    )
    .await
    .ok()??;
    body_json(&reply)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_command_relayed_through_a_follower_is_refused_by_the_leader() {
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader_port = common::free_port();
    let at = format!("127.0.0.1:{leader_port}");
    let flags = [
        "--claude-cmd",
        "/nonexistent/claude",
        "--lease",
        "2s",
        "--database",
        &url,
    ];
    let mut leader_flags = vec!["--addr", &at];
    leader_flags.extend(flags);
    let config = common::config(dir_a.path(), &leader_flags);
    let stop = tokio_util::sync::CancellationToken::new();
    let leader = tokio::spawn({
        let (stop, url) = (stop.clone(), url.clone());
        async move {
            let options = LeptosOptions::builder().output_name("soulgrid").build();
            soulgrid::cluster::run(&config, options, &url, stop).await
        }
    });
    let started = Instant::now();
    while health(leader_port)
        .await
        .is_none_or(|h| h["role"] != "leader")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "no leader");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let follower = Outside::start(dir_b.path(), &flags);
    let leader_address = format!("http://{at}");
    while health(follower.port)
        .await
        .is_none_or(|h| h["role"] != "follower" || h["leader"] != leader_address.as_str())
    {
        assert!(started.elapsed() < Duration::from_secs(30), "no follower");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let budgets = format!("http://127.0.0.1:{}/api/budgets", follower.port);
    let (status, body) = common::from_a_child("POST", &budgets).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("agents' processes"), "{body}");
    // Anyone else's request through the follower is the leader's to serve (here: this
    // process, which is the leader itself, as a tool of the human's would be).
    let said = r#"{"perDayUsd": 7}"#;
    let reply = raw_request(follower.port, "POST", "/api/budgets", Some(said))
        .await
        .unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let reply = raw_request(leader_port, "GET", "/api/budgets", None)
        .await
        .unwrap();
    assert!(reply.contains(r#""perDayUsd":7.0"#), "{reply}");
    // A body is handed on as it comes, and held to the leader's limits.
    let big = serde_json::json!({ "text": "x".repeat(400 * 1024) }).to_string();
    let reply = raw_request(follower.port, "POST", "/api/send", Some(&big))
        .await
        .unwrap();
    assert!(
        reply.starts_with("HTTP/1.1 413"),
        "{}",
        &reply[..reply.len().min(300)]
    );

    stop.cancel();
    leader.await.unwrap().unwrap();
    drop(follower);
}

/// A relayed connection that is not two socket addresses is refused, whoever sends it.
#[tokio::test]
async fn a_malformed_relayed_peer_is_a_400() {
    let _serial = crate::SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let req = axum::http::Request::post("/api/budgets")
        .header("content-type", "application/json")
        .header("x-soulgrid-peer", "nobody")
        .body(axum::body::Body::from(r#"{"perDayUsd": 5}"#))
        .unwrap();
    let reply = common::call(&router, req).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("x-soulgrid-peer"), "{}", reply.body);
    soulgrid::shut_down(&state).await;
}
