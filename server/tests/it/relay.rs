//! A request through a follower (http/forward.rs): the follower checks the login as the leader
//! does (one team, one login), then hands the request to the leader, body and all. Without the
//! login it is a 401 at the follower and never reaches the leader; with it, the leader serves it
//! and holds its body to the leader's limits.
//!
//! Here the leader is this test's process and the follower a process outside its tree.

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
async fn a_request_through_a_follower_needs_the_login_and_is_the_leaders_to_serve() {
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

    // Without the login: refused by the follower, nothing set on the leader.
    let anonymous = format!(
        "POST /api/budgets HTTP/1.1\r\nHost: 127.0.0.1:{}\r\ncontent-type: application/json\r\n\
         content-length: 18\r\nconnection: close\r\n\r\n{{\"perDayUsd\": 99}}",
        follower.port
    );
    let reply = common::raw_exchange(follower.port, &anonymous)
        .await
        .unwrap();
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    // The human's request through the follower is the leader's to serve.
    let said = r#"{"perDayUsd": 7}"#;
    let reply = raw_request(follower.port, "POST", "/api/budgets", Some(said))
        .await
        .unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let reply = raw_request(leader_port, "GET", "/api/budgets", None)
        .await
        .unwrap();
    assert!(reply.contains(r#""perDayUsd":7.0"#), "{reply}");
    assert!(!reply.contains("99"), "{reply}");
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
