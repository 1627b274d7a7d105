//! Restarts and crashes: the log continues with no gap and nothing acknowledged is lost, on
//! SQLite and on PostgreSQL (`on_both!`).

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use app::domain::events::{Event, EventKind};
use common::{assert_gap_free, body_json, boot_with, raw_request, On, ServerProcess};
use soulgrid::store::Store;

async fn all_events(store: &Store) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let page = store
            .events_after(out.last().map_or(0, |e: &Event| e.id), 5000)
            .await
            .unwrap();
        if page.is_empty() {
            return out;
        }
        out.extend(page);
    }
}

crate::on_both!(
    a_clean_restart_continues_the_log_and_keeps_the_documents,
    an_unclean_stop_is_ended_on_the_next_start,
    sigkill_during_ten_thousand_sends_loses_nothing_acknowledged,
);

/// The server's flags for `on`, as a test passes them.
fn flags(on: &On) -> Vec<String> {
    on.flags()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

async fn a_clean_restart_continues_the_log_and_keeps_the_documents(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let flags = flags(&on);
    let first = boot_with(dir.path(), &strs(&flags)).await;
    for i in 0..3 {
        let kind = EventKind::UserMessage {
            message_id: format!("m{i}"),
            speaker_name: "Marcus".into(),
            seat: 4,
            text: format!("t{i}"),
            target_agent: None,
        };
        first.store.append(&first.session.id(), kind).await.unwrap();
    }
    soulgrid::shut_down(&first).await;
    let (docs_before, last_before) = first.store.snapshot();
    let first_session = first.session.id();
    drop(first);

    let second = boot_with(dir.path(), &strs(&flags)).await;
    let (docs_after, last_after) = second.store.snapshot();
    assert_eq!(last_after, last_before + 1, "only session_start was added");
    assert_eq!(docs_after, docs_before, "the documents are the same");
    let events = all_events(&second.store).await;
    assert_gap_free(&events);
    let n = events.len();
    assert!(matches!(events[n - 2].kind, EventKind::SessionEnd { .. }));
    assert_eq!(events[n - 2].session_id, &*first_session);
    assert!(matches!(events[n - 1].kind, EventKind::SessionStart { .. }));
    assert_ne!(events[n - 1].session_id, &*first_session);
    // Kept where `on` keeps it (a flag the server ignored would leave PostgreSQL empty).
    assert_eq!(all_events(&on.open(dir.path())).await.len(), n);
}

async fn an_unclean_stop_is_ended_on_the_next_start(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let flags = flags(&on);
    let first = boot_with(dir.path(), &strs(&flags)).await;
    let first_session = first.session.id();
    drop(first); // no session_end: as if the process died

    let second = boot_with(dir.path(), &strs(&flags)).await;
    let events = all_events(&second.store).await;
    assert_gap_free(&events);
    let kinds: Vec<_> = events.iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(kinds, ["session_start", "session_end", "session_start"]);
    assert_eq!(events[1].session_id, &*first_session);
    assert_eq!(
        events[1].kind,
        EventKind::SessionEnd {
            reason: Some("unclean shutdown".into())
        }
    );
}

/// 10,000 sends while the server is SIGKILLed part-way: every acknowledged send is in the log
/// exactly once, under the id it was acknowledged with, and the ids have no gap.
async fn sigkill_during_ten_thousand_sends_loses_nothing_acknowledged(on: On) {
    const TOTAL: usize = 10_000;
    const WORKERS: usize = 16;
    let dir = tempfile::tempdir().unwrap();
    // No agents: this is about the log. (Sends to the lead would start it and it would answer.)
    let mut args = vec!["--claude-cmd".to_string(), "/nonexistent/claude".into()];
    args.extend(flags(&on));
    let server = ServerProcess::start_with(dir.path(), &strs(&args)).await;
    let port = server.port;
    let next = Arc::new(AtomicUsize::new(0));
    let acked = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        let (next, acked) = (next.clone(), acked.clone());
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= TOTAL {
                    return mine;
                }
                let body = serde_json::json!({ "text": format!("crash-{i}") }).to_string();
                if let Some(reply) = raw_request(port, "POST", "/api/send", Some(&body)).await {
                    if reply.starts_with("HTTP/1.1 2") {
                        let id = body_json(&reply)
                            .and_then(|v| v["eventId"].as_u64())
                            .expect("eventId");
                        mine.push((format!("crash-{i}"), id));
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }));
    }
    // Kill it once a good share has been acknowledged, mid-stream.
    while acked.load(Ordering::SeqCst) < 500 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    server.kill().await;
    let mut acknowledged: Vec<(String, u64)> = Vec::new();
    for w in workers {
        acknowledged.extend(w.await.unwrap());
    }
    assert!(
        acknowledged.len() >= 500 && acknowledged.len() < TOTAL,
        "{}",
        acknowledged.len()
    );

    // Restart on the same data dir, then stop cleanly.
    let again = ServerProcess::start_with(dir.path(), &strs(&flags(&on))).await;
    again.stop().await;

    let store = on.open(dir.path());
    let events = all_events(&store).await;
    assert_gap_free(&events);
    common::assert_each_acknowledged_once(&events, &acknowledged);
    // Each send also tried to start the lead (and recorded that it could not): look at sessions.
    assert_eq!(
        common::session_kinds(&events),
        [
            "session_start",
            "session_end",
            "session_start",
            "session_end"
        ]
    );
}

/// One server per data directory: a second one refuses to start, says which directory and
/// which server (pid) has it, and the first goes on untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_data_directory_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let first = ServerProcess::start(dir.path()).await;
    let before = body_json(
        &raw_request(first.port, "GET", "/healthz", None)
            .await
            .unwrap(),
    )
    .unwrap();
    let second = tokio::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
        .env(
            "SOULGRID_ADDR",
            format!("127.0.0.1:{}", common::free_port()),
        )
        .env("SOULGRID_DATA_DIR", dir.path())
        .env("LEPTOS_OUTPUT_NAME", "soulgrid")
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .output();
    let second = tokio::time::timeout(std::time::Duration::from_secs(30), second)
        .await
        .expect("the second server exits by itself")
        .unwrap();
    assert!(!second.status.success(), "it refused to start");
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains(&dir.path().display().to_string()), "{said}");
    let pid = first.child.id().unwrap();
    assert!(said.contains(&format!("pid {pid}")), "{said}");
    // The first server's session goes on: nothing of the second reached its log.
    let after = body_json(
        &raw_request(first.port, "GET", "/healthz", None)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(after["session"], before["session"]);
    assert_eq!(after["lastEventId"], before["lastEventId"]);
    first.stop().await;
}
