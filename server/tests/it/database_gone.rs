//! The database goes away under two running servers, the leader and its follower (a proxy
//! between them and PostgreSQL cuts every connection and closes each new one), and comes back:
//! meanwhile both go on answering, `/healthz` with 503 and a send with a 5xx that says so
//! (never a hang, never a refused connection); once it is back, one of them leads again
//! (the other follows), sends through both are taken, and every send acknowledged before the
//! cut is stored once.

use std::time::{Duration, Instant};

use app::domain::events::EventKind;

use crate::common::proxy::Proxy;
use crate::common::{body_json, raw_request, On, ServerProcess};

/// An answer within 10 s, whatever it is; `None` for a refused connection or none at all.
async fn ask(port: u16, method: &str, path: &str, body: Option<&str>) -> Option<String> {
    tokio::time::timeout(
        Duration::from_secs(10),
        raw_request(port, method, path, body),
    )
    .await
    .ok()
    .flatten()
}

async fn send(port: u16, text: &str) -> Option<String> {
    let body = serde_json::json!({ "text": text }).to_string();
    ask(port, "POST", "/api/send", Some(&body)).await
}

fn status(reply: &str) -> u16 {
    reply
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A proxy to `url`'s database, and the URL through it.
async fn proxied(url: &str) -> (Proxy, String) {
    let port: u16 = url
        .split_once("@127.0.0.1:")
        .and_then(|(_, r)| r.split_once('/'))
        .and_then(|(p, _)| p.parse().ok())
        .unwrap();
    let proxy = Proxy::start(port).await;
    let through = proxy.url(url);
    (proxy, through)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn both_servers_answer_503_while_the_database_is_gone_and_lead_again_when_it_is_back() {
    let on = On::postgres();
    let On::Postgres(url) = &on else {
        unreachable!()
    };
    let (proxy, through) = proxied(url).await;
    let args = [
        "--claude-cmd",
        "/nonexistent/claude",
        "--lease",
        "2s",
        "--database",
        &through,
    ];
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = ServerProcess::start_with(dir_a.path(), &args).await;
    let b = ServerProcess::start_with(dir_b.path(), &args).await;
    let role = |port| async move {
        let reply = ask(port, "GET", "/healthz", None).await.unwrap();
        body_json(&reply).unwrap()["role"]
            .as_str()
            .map(str::to_string)
    };
    assert_eq!(role(a.port).await.as_deref(), Some("leader"));
    assert_eq!(role(b.port).await.as_deref(), Some("follower"));
    let before = send(a.port, "before the cut").await.unwrap();
    assert_eq!(status(&before), 202, "{before}");
    let before_id = body_json(&before).unwrap()["eventId"].as_u64().unwrap();

    proxy.cut();
    let cut = Instant::now();
    // Each server answers every request; /healthz turns 503 on both.
    for port in [a.port, b.port] {
        loop {
            let reply = ask(port, "GET", "/healthz", None).await;
            let reply = reply.unwrap_or_else(|| {
                panic!(
                    "port {port}: /healthz not answered {:?} after the cut",
                    cut.elapsed()
                )
            });
            if status(&reply) == 503 {
                let said = body_json(&reply).unwrap();
                assert_eq!(said["ok"], false, "{said}");
                break;
            }
            assert_eq!(status(&reply), 200, "{reply}");
            assert!(
                cut.elapsed() < Duration::from_secs(10),
                "port {port}: /healthz still 200 {:?} after the cut",
                cut.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    for port in [a.port, b.port] {
        let reply = send(port, "while it is gone").await.unwrap_or_else(|| {
            panic!("port {port}: a send not answered while the database is gone")
        });
        assert_eq!(status(&reply), 503, "{reply}");
        let said = body_json(&reply).unwrap();
        assert!(
            said["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{said}"
        );
    }
    // The leader, unable to renew its lease, stops leading and tries again with backoff, still
    // answering meanwhile; the follower goes on following.
    loop {
        let reply = ask(a.port, "GET", "/healthz", None).await.unwrap();
        assert_eq!(status(&reply), 503, "{reply}");
        if body_json(&reply).unwrap()["role"] != "leader" {
            break;
        }
        assert!(
            cut.elapsed() < Duration::from_secs(10),
            "the leader still leads {:?} after the cut",
            cut.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reply = ask(b.port, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status(&reply), 503, "{reply}");
    assert_eq!(body_json(&reply).unwrap()["role"], "follower", "{reply}");

    proxy.mend();
    let mended = Instant::now();
    let mut roles = Vec::new();
    loop {
        roles.clear();
        for port in [a.port, b.port] {
            let reply = ask(port, "GET", "/healthz", None).await;
            let said = reply
                .filter(|r| status(r) == 200)
                .and_then(|r| body_json(&r));
            roles.push(said.and_then(|s| s["role"].as_str().map(str::to_string)));
        }
        let leaders = roles
            .iter()
            .filter(|r| r.as_deref() == Some("leader"))
            .count();
        let followers = roles
            .iter()
            .filter(|r| r.as_deref() == Some("follower"))
            .count();
        if (leaders, followers) == (1, 1) {
            break;
        }
        assert!(
            mended.elapsed() < Duration::from_secs(20),
            "no leader and follower 20 s after the database came back: {roles:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut after = Vec::new();
    for (port, text) in [(a.port, "after, through a"), (b.port, "after, through b")] {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let reply = send(port, text).await.unwrap();
            if status(&reply) == 202 {
                after.push(body_json(&reply).unwrap()["eventId"].as_u64().unwrap());
                break;
            }
            // A follower may not know the new leader for a third of the lease.
            assert_eq!(status(&reply), 503, "{reply}");
            assert!(Instant::now() < deadline, "{text}: {reply}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    let store = on.open(tempfile::tempdir().unwrap().path());
    let events = store.events_after(0, usize::MAX >> 1).await.unwrap();
    crate::common::assert_gap_free(&events);
    let texts = |text: &str| {
        events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::UserMessage { text: t, .. } if t == text))
            .map(|e| e.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(texts("before the cut"), [before_id]);
    assert_eq!(texts("after, through a"), [after[0]]);
    assert_eq!(texts("after, through b"), [after[1]]);
    assert!(texts("while it is gone").is_empty());
    a.stop().await;
    b.stop().await;
}

/// A database that stops answering (the network to it silent, its connections open) is a 503 on
/// `/healthz` within moments, not after the connections' own time-outs (about 20 s); once it
/// answers again, the server leads again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_stops_answering_is_a_503_within_moments() {
    let on = On::postgres();
    let On::Postgres(url) = &on else {
        unreachable!()
    };
    let (proxy, through) = proxied(url).await;
    let dir = tempfile::tempdir().unwrap();
    // A lease far longer than the test: only the probe can say the database is gone.
    let args = [
        "--claude-cmd",
        "/nonexistent/claude",
        "--lease",
        "60s",
        "--database",
        &through,
    ];
    let server = ServerProcess::start_with(dir.path(), &args).await;
    // Its probe's connection is made (and answers) before the stall.
    let reply = ask(server.port, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status(&reply), 200, "{reply}");
    proxy.stall();
    let stalled = Instant::now();
    loop {
        let asked = Instant::now();
        let reply = ask(server.port, "GET", "/healthz", None)
            .await
            .expect("/healthz answered while the database is silent");
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "/healthz took {:?}",
            asked.elapsed()
        );
        if status(&reply) == 503 {
            break;
        }
        assert!(
            stalled.elapsed() < Duration::from_secs(8),
            "/healthz still 200 {:?} after the database went silent: {reply}",
            stalled.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    proxy.mend();
    let mended = Instant::now();
    loop {
        let reply = ask(server.port, "GET", "/healthz", None).await;
        let said = reply
            .filter(|r| status(r) == 200)
            .and_then(|r| body_json(&r));
        if said.is_some_and(|s| s["role"] == "leader") {
            break;
        }
        assert!(
            mended.elapsed() < Duration::from_secs(30),
            "not leading again 30 s after the database answered again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.stop().await;
}
