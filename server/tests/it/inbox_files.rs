//! Inbox files the running server meets: a lead whose name is no file name, a broken inbox moved
//! aside, an inbox another program holds (a 503 for it alone), a send retried after a failed
//! write (recorded and filed once).

use crate::common;
use crate::mail_runtime::{read, read_eventually};

use app::domain::docs::thread;
use axum::http::StatusCode;
use common::{boot, call, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_whose_name_is_no_file_name_still_has_an_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot_with(dir.path(), &["--lead-name", "Lord Julián"]).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/send", json!({"text": "hi"}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&state, "the lead answers", |d| {
        thread(d, app::domain::LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("“hi"))
    })
    .await;
    let inbox = dir.path().join("teams/soulgrid/inboxes/lord-julian.json");
    read_eventually(&inbox, "'hi' read in lord-julian.json", |m| {
        m.iter().any(|m| m.text == "hi" && m.read)
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_inbox_is_moved_aside_and_said_on_its_seat() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    call(
        &router,
        post_json("/api/send", json!({"text": "wake up, lead"})),
    )
    .await;
    let path = state.runtime.mailboxes().path("Julian").unwrap();
    // Another program leaves the lead's inbox broken; the next mail finds it.
    std::fs::write(&path, "[{\"from\": \"x\", broken").unwrap();
    call(
        &router,
        post_json("/api/send", json!({"text": "after the break"})),
    )
    .await;
    wait_for(&state, "the problem on the lead's seat", |d| {
        app::domain::docs::identity(d, app::domain::LEAD_SEAT)
            .and_then(|l| l.last_problem.as_ref())
            .is_some_and(|p| {
                p.message
                    .starts_with("the inbox of julian was not valid JSON; it was moved aside to ")
            })
    })
    .await;
    wait_for(&state, "the lead still answers", |d| {
        thread(d, app::domain::LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("“after the break"))
    })
    .await;
    // Said once, however often the watcher looks: another round trip through the same inbox.
    call(
        &router,
        post_json("/api/send", json!({"text": "and again"})),
    )
    .await;
    wait_for(&state, "the next answer", |d| {
        thread(d, app::domain::LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("“and again"))
    })
    .await;
    let reports = common::count_events(&state, |k| {
        matches!(k, app::domain::events::EventKind::RuntimeError { message, .. } if message.contains("not valid JSON"))
    })
    .await;
    assert_eq!(reports, 1);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inbox_another_program_holds_is_a_503_and_holds_up_only_itself() {
    let (dir, state, router) = common::team_with(&["--inbox-lock-timeout", "1s"]).await;
    let lyra = state.runtime.mailboxes().path("lyra").unwrap();
    let lock = std::path::PathBuf::from(format!("{}.lock", lyra.display()));
    std::fs::create_dir(&lock).unwrap();
    let to_lyra = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "are you there?", "targetAgent": "Lyra"}),
        ),
    );
    let to_kael = async {
        let t = std::time::Instant::now();
        let r = call(
            &router,
            post_json(
                "/api/send",
                json!({"text": "and you?", "targetAgent": "Kael"}),
            ),
        )
        .await;
        (r, t.elapsed())
    };
    let (lyra_reply, (kael_reply, kael_took)) = tokio::join!(to_lyra, to_kael);
    assert_eq!(
        lyra_reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        lyra_reply.body
    );
    let error = lyra_reply.json()["error"].as_str().unwrap().to_string();
    assert!(error.contains("locked by another writer"), "{error}");
    let data_dir = dir.path().display().to_string();
    assert!(
        !error.contains(&data_dir) && !error.contains(".json"),
        "no path: {error}"
    );
    assert_eq!(
        kael_reply.status,
        StatusCode::ACCEPTED,
        "{}",
        kael_reply.body
    );
    assert!(
        kael_took < std::time::Duration::from_millis(900),
        "another inbox is not held up: {kael_took:?}"
    );
    assert!(lock.is_dir(), "the other program's lock is left alone");
    soulgrid::shut_down(&state).await;
}

/// A send whose inbox write failed recorded nothing: the retry (same `Idempotency-Key`) is the
/// one message, shown once, filed once and answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_retried_after_a_failed_write_is_recorded_and_filed_once() {
    let (_dir, state, router) = common::team_with(&["--inbox-lock-timeout", "1s"]).await;
    let lyra = state.runtime.mailboxes().path("lyra").unwrap();
    let lock = std::path::PathBuf::from(format!("{}.lock", lyra.display()));
    let send = || {
        axum::http::Request::post("/api/send")
            .header("content-type", "application/json")
            .header("idempotency-key", "retry-1")
            .body(axum::body::Body::from(
                json!({"text": "only once, even retried", "seat": 0}).to_string(),
            ))
            .unwrap()
    };
    std::fs::create_dir(&lock).unwrap();
    let first = call(&router, send()).await;
    assert_eq!(
        first.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        first.body
    );
    std::fs::remove_dir(&lock).unwrap();
    let again = call(&router, send()).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    wait_for(&state, "Lyra answers", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.speaker_name == "Lyra" && m.text.contains("only once, even retried"))
    })
    .await;
    let recorded = common::count_events(&state, |k| {
        matches!(k, app::domain::events::EventKind::UserMessage { text, .. } if text == "only once, even retried")
    })
    .await;
    assert_eq!(recorded, 1, "shown once");
    let filed = read(&lyra)
        .iter()
        .filter(|m| m.text == "only once, even retried")
        .count();
    assert_eq!(filed, 1, "filed once");
    soulgrid::shut_down(&state).await;
}
