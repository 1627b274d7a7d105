//! A SIGTERM on the real binary: from that moment new work is refused (`503` with a sentence,
//! `/healthz` says `closing`), a waiting approval is denied at once with the reason, the agents
//! distil within one `--stop-grace`, and the server exits within 15 s. Before: ~2 min 20 s with
//! one approval waiting under `--permissions ui` (each blocked distil turn waited its 60 s),
//! and the open page's WAKE and New quest were accepted meanwhile.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{body_json, raw_request, ServerProcess};

/// The store's documents, as the API gives them.
async fn docs(port: u16) -> serde_json::Value {
    let reply = raw_request(port, "GET", "/api/docs", None).await.unwrap();
    body_json(&reply).unwrap()
}

/// The permission requests in `docs`.
fn permissions(docs: &serde_json::Value) -> Vec<serde_json::Value> {
    docs["docs"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(id, _)| id.starts_with("permission:"))
        .map(|(_, d)| d.clone())
        .collect()
}

/// Follows the event stream until it ends (`open` once its answer began): whether `event:
/// closing` came on it.
async fn stream_says_closing(port: u16, open: tokio::sync::oneshot::Sender<()>) -> bool {
    let mut open = Some(open);
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let ask = format!(
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {}\r\n\r\n",
        crate::common::BEARER
    );
    conn.write_all(ask.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(20), conn.read(&mut buf)).await {
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
        if seen.starts_with(b"HTTP/1.1 200") {
            open.take().map(|o| o.send(()));
        }
        if String::from_utf8_lossy(&seen).contains("event: closing\n") {
            return true;
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_sigterm_refuses_new_work_denies_waiting_approvals_and_exits_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let sim = env!("CARGO_BIN_EXE_soulgrid-sim");
    // Each reply of the agents' takes 2 s: the distil turns hold the server open that long
    // after the signal, while it refuses new work.
    let flags = [
        "--claude-cmd",
        sim,
        "--permissions",
        "ui",
        "--claude-args",
        "--sim-latency-ms 2000",
    ];
    let mut server = ServerProcess::start_with(dir.path(), &flags).await;
    let port = server.port;
    let said = json!({"text": "SIM_TOOL now"}).to_string();
    let reply = raw_request(port, "POST", "/api/send", Some(&said))
        .await
        .unwrap();
    assert!(reply.starts_with("HTTP/1.1 202"), "{reply}");
    let started = Instant::now();
    while !permissions(&docs(port).await)
        .iter()
        .any(|p| p["state"] == "pending")
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no approval waits"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // An open page's stream: told when the server begins to shut down.
    let (open, opened) = tokio::sync::oneshot::channel();
    let told = tokio::spawn(stream_says_closing(port, open));
    opened.await.expect("the stream opens");
    server.terminate();
    let signalled = Instant::now();
    // Once it says it is closing, new work is refused with a sentence.
    loop {
        let health = raw_request(port, "GET", "/healthz", None).await;
        match health.as_deref().and_then(body_json) {
            Some(h) if h["closing"] == true => break,
            Some(_) => {}
            None => panic!("the server was gone before it said it was closing"),
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(5),
            "the server never said it was closing"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let more = json!({"text": "one more thing"}).to_string();
    for (path, body) in [
        ("/api/send", more.as_str()),
        ("/api/quests", r#"{"problem": "x"}"#),
    ] {
        let reply = raw_request(port, "POST", path, Some(body)).await.unwrap();
        assert!(reply.starts_with("HTTP/1.1 503"), "{path}: {reply}");
        let error = body_json(&reply).unwrap()["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(error.contains("shutting down"), "{error}");
    }
    assert!(
        told.await.unwrap(),
        "the page's stream was told: event: closing"
    );
    let status = server
        .wait_exit(Duration::from_secs(15))
        .await
        .expect("the server exits within 15 s of SIGTERM");
    assert!(status.success(), "{status}");

    // The approval was denied at once, saying why; nothing sent after the signal was kept.
    let again = ServerProcess::start_with(dir.path(), &flags).await;
    let d = docs(again.port).await;
    let asked = permissions(&d);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["state"], "denied", "{:?}", asked[0]);
    assert_eq!(asked[0]["decidedBy"], "shutdown", "{:?}", asked[0]);
    assert!(
        asked[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("shutting down")),
        "{:?}",
        asked[0]
    );
    assert!(!d.to_string().contains("one more thing"));
    again.stop().await;
}
