//! Two servers on one PostgreSQL database: the first leads, the second follows (its `/healthz`
//! says so and names the leader) and hands writes to the leader. Sends go through both while
//! the leader is killed with SIGKILL: the follower takes the lapsed lease and serves as the
//! leader within the lease's time and five seconds; every acknowledged send is stored once
//! under the id it was acknowledged with; the ids have no gap; and an event stream on the
//! surviving server (reconnecting with `Last-Event-ID`, as a browser does) sees each event
//! once, in order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use serde_json::Value;

use crate::common::{body_json, raw_request, On, ServerProcess};

const LEASE: Duration = Duration::from_secs(2);

async fn health(port: u16) -> Option<Value> {
    body_json(&raw_request(port, "GET", "/healthz", None).await?)
}

async fn role(port: u16) -> Option<String> {
    Some(health(port).await?["role"].as_str()?.to_string())
}

/// Follows `/api/events` on `port` from the start, as a browser's `EventSource` does: on a
/// dropped stream it connects again with the last id it saw. Every id, in the order seen.
fn stream(port: u16, seen: Arc<Mutex<Vec<u64>>>, until: Arc<std::sync::atomic::AtomicU64>) {
    tokio::spawn(async move {
        use futures::StreamExt;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::new();
        loop {
            let last = seen.lock().unwrap().last().copied().unwrap_or(0);
            if last > 0 && last >= until.load(Ordering::SeqCst) {
                return;
            }
            let asked = client
                .get(format!("http://127.0.0.1:{port}/api/events"))
                .header("authorization", crate::common::BEARER)
                .header("last-event-id", last.to_string())
                .send()
                .await;
            // Refused, or a 503 between the follower's part and the leader's: a moment later.
            let Some(answer) = asked.ok().filter(|a| a.status().is_success()) else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let mut body = answer.bytes_stream();
            let mut buf = String::new();
            while let Some(Ok(chunk)) = body.next().await {
                buf.push_str(&String::from_utf8_lossy(&chunk));
                let (events, rest) = crate::common::parse_sse(&buf);
                buf = rest;
                let mut seen = seen.lock().unwrap();
                seen.extend(events.iter().filter_map(|e| e.id));
                let done = seen
                    .last()
                    .is_some_and(|l| *l >= until.load(Ordering::SeqCst));
                drop(seen);
                if done {
                    return;
                }
            }
        }
    });
}

/// Two servers on `on`'s database, a 2 s lease: the first leads, the second follows it (its
/// `/healthz` says so and names the leader).
async fn two_servers(
    on: &On,
    a: &std::path::Path,
    b: &std::path::Path,
) -> (ServerProcess, ServerProcess) {
    let mut args = vec![
        "--claude-cmd".to_string(),
        "/nonexistent/claude".into(),
        "--lease".into(),
        "2s".into(),
    ];
    args.extend(on.flags());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let leader = ServerProcess::start_with(a, &args).await;
    assert_eq!(role(leader.port).await.as_deref(), Some("leader"));
    let follower = ServerProcess::start_with(b, &args).await;
    let said = health(follower.port).await.unwrap();
    assert_eq!(said["role"], "follower", "{said}");
    assert_eq!(said["leader"], format!("http://127.0.0.1:{}", leader.port));
    (leader, follower)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_leader_killed_under_load_is_replaced_and_nothing_acknowledged_is_lost() {
    const TOTAL: usize = 1_000;
    const WORKERS: usize = 16;
    let on = On::postgres();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (leader, follower) = two_servers(&on, dir_a.path(), dir_b.path()).await;
    let (a, b) = (leader.port, follower.port);

    let seen = Arc::new(Mutex::new(Vec::new()));
    let until = Arc::new(std::sync::atomic::AtomicU64::new(u64::MAX));
    stream(b, seen.clone(), until.clone());

    let next = Arc::new(AtomicUsize::new(0));
    let acked = Arc::new(AtomicUsize::new(0));
    // 0: both up; 1: the leader killed; 2: the new leader there. A send that fails while the
    // leader is gone waits for the new one before the next is tried: the sends left are not
    // all spent on the gap (how fast they are spent is the machine's, not the test's).
    let (phase, _) = tokio::sync::watch::channel(0u8);
    let phase = Arc::new(phase);
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (next, acked, phase) = (next.clone(), acked.clone(), phase.clone());
            let through_the_gap = move || {
                let mut seen = phase.subscribe();
                async move {
                    if *seen.borrow() == 1 {
                        let _ = seen.wait_for(|p| *p == 2).await;
                    }
                }
            };
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= TOTAL {
                        return mine;
                    }
                    // Half through each server; a send that is not answered 2xx is not retried.
                    let port = if (w + i) % 2 == 0 { a } else { b };
                    let body = serde_json::json!({ "text": format!("failover-{i}") }).to_string();
                    let reply = raw_request(port, "POST", "/api/send", Some(&body)).await;
                    match reply {
                        Some(r) if r.starts_with("HTTP/1.1 2") => {
                            let id = body_json(&r).and_then(|v| v["eventId"].as_u64()).unwrap();
                            mine.push((format!("failover-{i}"), id));
                            acked.fetch_add(1, Ordering::SeqCst);
                        }
                        Some(r) if r.starts_with("HTTP/1.1 503") => {
                            assert!(r.to_ascii_lowercase().contains("retry-after:"), "{r}");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            through_the_gap().await;
                        }
                        other => {
                            if port == b {
                                eprintln!(
                                    "DEBUG b {i}: {:?}",
                                    other.as_deref().map(|r| &r[..r.len().min(200)])
                                );
                            }
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            through_the_gap().await;
                        }
                    }
                }
            })
        })
        .collect();
    let started = Instant::now();
    while acked.load(Ordering::SeqCst) < 300 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "300 sends were not answered"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    phase.send_replace(1);
    leader.kill().await;
    let killed = Instant::now();
    // The follower takes over.
    loop {
        if role(b).await.as_deref() == Some("leader") {
            break;
        }
        assert!(
            killed.elapsed() < LEASE + Duration::from_secs(5),
            "no new leader within the lease and five seconds"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let takeover = killed.elapsed();
    phase.send_replace(2);
    let mut acknowledged = Vec::new();
    for w in workers {
        acknowledged.extend(w.await.unwrap());
    }
    assert!(
        acknowledged.len() > 300 && acknowledged.len() < TOTAL,
        "some sends were answered by the new leader, some were lost with the old: {}",
        acknowledged.len()
    );

    let store = on.open(tempfile::tempdir().unwrap().path());
    let events = store.events_after(0, usize::MAX >> 1).await.unwrap();
    let ids: Vec<u64> = events.iter().map(|e| e.id).collect();
    crate::common::assert_gap_free(&events);
    crate::common::assert_each_acknowledged_once(&events, &acknowledged);
    // The dead leader's session was ended by the new one, which began its own.
    let sessions = crate::common::session_kinds(&events);
    assert_eq!(sessions, ["session_start", "session_end", "session_start"]);
    let new_session = events
        .iter()
        .rfind(|e| matches!(e.kind, EventKind::SessionStart { .. }))
        .unwrap()
        .id;
    assert!(
        acknowledged.iter().any(|(_, id)| *id > new_session),
        "the new leader took sends"
    );

    // The stream on the surviving server: every event once, in order.
    let last = *ids.last().unwrap();
    until.store(last, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(20);
    while seen.lock().unwrap().last().copied().unwrap_or(0) < last {
        assert!(
            Instant::now() < deadline,
            "the stream stopped at {:?}",
            seen.lock().unwrap().last()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*seen.lock().unwrap(), ids, "each event once, in order");
    eprintln!("failover: a new leader served {takeover:?} after the kill");
    follower.stop().await;
}

/// A leader paused past its lease (SIGSTOP) is replaced; woken (SIGCONT), it finds its lease
/// gone, stops its runtime and follows: nothing of its old session is stored after the new
/// leader's start, and a send through it reaches the new leader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_leader_is_replaced_and_follows_when_it_wakes() {
    let on = On::postgres();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (leader, follower) = two_servers(&on, dir_a.path(), dir_b.path()).await;
    let (a, b) = (leader.port, follower.port);
    let send = |port: u16, text: &'static str| async move {
        let body = serde_json::json!({ "text": text }).to_string();
        raw_request(port, "POST", "/api/send", Some(&body))
            .await
            .filter(|r| r.starts_with("HTTP/1.1 2"))
            .and_then(|r| body_json(&r)?["eventId"].as_u64())
    };
    assert!(send(a, "before the pause").await.is_some());
    let pid = leader.child.id().unwrap() as i32;
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let paused = Instant::now();
    while role(b).await.as_deref() != Some("leader") {
        assert!(
            paused.elapsed() < LEASE + Duration::from_secs(5),
            "no new leader within the lease and five seconds of the pause"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(send(b, "to the new leader").await.is_some());
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let woken = Instant::now();
    while role(a).await.as_deref() != Some("follower") {
        assert!(
            woken.elapsed() < Duration::from_secs(30),
            "the woken leader did not step down"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let through_old = send(a, "through the old leader").await;
    assert!(through_old.is_some(), "forwarded to the new leader");

    let store = on.open(tempfile::tempdir().unwrap().path());
    let events = store.events_after(0, usize::MAX >> 1).await.unwrap();
    let ids: Vec<u64> = events.iter().map(|e| e.id).collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>(), "no gap");
    let first_session = events[0].session_id.clone();
    let new_start = events
        .iter()
        .rfind(|e| matches!(e.kind, EventKind::SessionStart { .. }))
        .unwrap();
    assert_ne!(new_start.session_id, first_session);
    let late: Vec<_> = events
        .iter()
        .filter(|e| e.id > new_start.id && e.session_id == first_session)
        .map(|e| e.kind.type_name())
        .collect();
    assert!(
        late.is_empty(),
        "the old leader stored after the new one began: {late:?}"
    );
    for text in [
        "before the pause",
        "to the new leader",
        "through the old leader",
    ] {
        let n = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::UserMessage { text: t, .. } if t == text))
            .count();
        assert_eq!(n, 1, "{text}");
    }
    leader.stop().await;
    follower.stop().await;
}
