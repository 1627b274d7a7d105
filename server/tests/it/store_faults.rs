//! The store under faults: another program holding the database, one request that cannot be
//! stored among good ones, and runtime events that can never be stored.

use crate::common;

use std::time::Duration;

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::status::AgentStatus;
use common::{all_agents, boot_with, call, post_json, wait_for_secs, wait_until};
use futures::future::join_all;
use rusqlite::Connection;
use serde_json::json;
use soulgrid::store::Store;

/// A connection of another program to the same database.
fn outsider(data: &std::path::Path) -> Connection {
    Connection::open(data.join("soulgrid.db")).unwrap()
}

/// Makes the database refuse every event whose row matches `when` (SQL over `NEW`), as a
/// store failure would, from another connection.
fn poison(data: &std::path::Path, when: &str) {
    outsider(data)
        .execute_batch(&format!(
            "CREATE TRIGGER poison BEFORE INSERT ON events WHEN {when}
             BEGIN SELECT RAISE(ABORT, 'poisoned'); END;"
        ))
        .unwrap();
}

/// Holds the database's write lock (`BEGIN IMMEDIATE`) for `hold` from another thread; the
/// returned channel says when the lock is taken.
fn hold_write_lock(data: &std::path::Path, hold: Duration) -> std::sync::mpsc::Receiver<()> {
    let (taken, rx) = std::sync::mpsc::channel();
    let conn = outsider(data);
    std::thread::spawn(move || {
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        taken.send(()).unwrap();
        std::thread::sleep(hold);
        conn.execute_batch("COMMIT").unwrap();
    });
    rx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_held_by_another_program_for_8_s_during_summon_loses_no_registration() {
    let dir = tempfile::tempdir().unwrap();
    // The agents answer the summon letter 1.5 s after their turn starts: inside the hold, so
    // their registrations are the first writes that meet it.
    let state = boot_with(dir.path(), &["--claude-args", "--sim-latency-ms 1500"]).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/agents/summon", json!({}))).await;
    assert_eq!(r.json()["seats"].as_array().unwrap().len(), 8);
    wait_for_secs(
        &state,
        20,
        "eight summoned agents in their first turn",
        |d| {
            app::domain::agent_seats().all(|s| {
                app::domain::docs::identity(d, s).is_some_and(|i| {
                    i.process_state == Some(app::domain::process::ProcessState::Running)
                })
            })
        },
    )
    .await;
    let taken = hold_write_lock(dir.path(), Duration::from_secs(8));
    taken.recv().unwrap();
    wait_for_secs(&state, 40, "eight registered agents after the hold", |d| {
        all_agents(d, AgentStatus::Alive)
    })
    .await;
    let registered =
        common::count_events(&state, |k| matches!(k, EventKind::AgentRegistered { .. })).await;
    assert_eq!(registered, 8);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_cannot_be_stored_fails_alone_not_its_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    poison(dir.path(), "NEW.body LIKE '%poison%'");
    let message = |text: &str| EventKind::RuntimeError {
        seat: None,
        message: text.to_string(),
    };
    // Held while the appends queue up, so that they are committed in one batch.
    let taken = hold_write_lock(dir.path(), Duration::from_millis(500));
    taken.recv().unwrap();
    let results = join_all((0..20).map(|i| {
        let text = if i == 10 {
            "poison".to_string()
        } else {
            format!("good {i}")
        };
        let store = store.clone();
        async move { store.append("s", message(&text)).await }
    }))
    .await;
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.is_ok(), i != 10, "request {i}: {r:?}");
    }
    let stored = store.events_after(0, 100).await.unwrap();
    assert_eq!(stored.len(), 19, "every good request is stored");
    let ids: Vec<u64> = stored.iter().map(|e| e.id).collect();
    assert_eq!(ids, (1..=19).collect::<Vec<u64>>(), "ids stay gap-free");
    assert_eq!(store.last_event_id(), 19);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_whose_words_cannot_be_stored_is_stopped_and_its_seat_says_so() {
    let (dir, state, router) = common::team_with(&["--record-deadline", "500ms"]).await;
    poison(
        dir.path(),
        "NEW.type = 'agent_message' AND NEW.body LIKE '%“POISON%'",
    );
    let name = state
        .store
        .with_all_docs(|d| identity(d, 0).and_then(|i| i.name.clone()))
        .unwrap();
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "POISON this", "targetAgent": name}),
        ),
    )
    .await;
    wait_for_secs(&state, 20, "seat 0 stopped, saying why", |d| {
        identity(d, 0).is_some_and(|i| {
            i.process_state == Some(ProcessState::Stopped)
                && i.status() == AgentStatus::Sleeping
                && i.last_problem
                    .as_ref()
                    .is_some_and(|p| p.message.contains("could not be recorded"))
        })
    })
    .await;
    // The stop is recorded, then the seat is let go.
    wait_until("seat 0 no longer running", || {
        !state.runtime.running().contains(&0)
    })
    .await;
    soulgrid::shut_down(&state).await;
}

/// A message the human sends that cannot be recorded is answered with an error and never
/// reaches the agent: it is taken back out of the inbox it was filed in (the watcher would
/// otherwise hand it over, unrecorded, and the agent's answer would answer nothing in the
/// thread). The client's retry files it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_cannot_be_recorded_never_reaches_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &[]).await;
    let router = soulgrid::http::router(state.clone());
    let answered = |text: &'static str| {
        move |d: &app::domain::docs::Docs| {
            app::domain::docs::thread(d, 4)
                .iter()
                .any(|m| m.text.contains(&format!("“{text}”")))
        }
    };
    let sent = call(&router, post_json("/api/send", json!({"text": "first"}))).await;
    assert_eq!(sent.status, 202, "{}", sent.body);
    wait_for_secs(&state, 20, "the lead's first answer", answered("first")).await;
    poison(
        dir.path(),
        "NEW.type = 'user_message' AND NEW.body LIKE '%POISON%'",
    );
    let refused = call(&router, post_json("/api/send", json!({"text": "POISON"}))).await;
    assert!(
        refused.status.is_server_error(),
        "{} {}",
        refused.status,
        refused.body
    );
    // The next message is handed over with whatever the inbox holds unread.
    let sent = call(&router, post_json("/api/send", json!({"text": "after"}))).await;
    assert_eq!(sent.status, 202, "{}", sent.body);
    wait_for_secs(
        &state,
        20,
        "the lead's answer to the next",
        answered("after"),
    )
    .await;

    let received =
        std::fs::read_to_string(dir.path().join("agents/4/.soulgrid-sim/received.jsonl")).unwrap();
    assert!(
        !received.contains("POISON"),
        "the lead was given: {received}"
    );
    let lead_inbox = state.runtime.seat_inbox(4).unwrap();
    let inbox = state.runtime.mailboxes().all(&lead_inbox).unwrap();
    assert!(inbox.iter().any(|m| m.text == "after"), "{inbox:?}");
    assert!(
        inbox.iter().all(|m| !m.text.contains("POISON")),
        "left in the inbox: {inbox:?}"
    );
    soulgrid::shut_down(&state).await;
}
