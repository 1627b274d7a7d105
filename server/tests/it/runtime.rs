//! The runtime against `soulgrid-sim`, through the HTTP API: SUMMON, session end, WAKE, direct
//! messages, crashes, dismissal, inactivity and the stuck-turn watchdog.

use crate::common;

use std::collections::HashSet;

use app::domain::docs::{identities, identity, souls, thread, SpeakerType};
use app::domain::process::ProcessState;
use app::domain::status::AgentStatus;
use app::domain::{agent_seats, LEAD_SEAT};
use axum::http::StatusCode;
use common::{all_agents, boot, boot_with, call, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summon_end_and_wake_the_simulated_team() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());

    let r = call(&router, post_json("/api/agents/summon", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seats"], json!([0, 1, 2, 3, 5, 6, 7, 8]));
    wait_for(&state, "eight registered agents", |d| {
        all_agents(d, AgentStatus::Alive)
    })
    .await;

    let docs = state.store.snapshot().0;
    let names: HashSet<String> = agent_seats()
        .map(|s| identity(&docs, s).unwrap().name.clone().unwrap())
        .collect();
    assert_eq!(names.len(), 8, "distinct names: {names:?}");
    for s in agent_seats() {
        let d = identity(&docs, s).unwrap();
        let soul = d.individuation_artifact.clone().unwrap();
        assert!(
            soul.starts_with(&format!("I am {}", d.name.as_ref().unwrap())),
            "{soul}"
        );
        assert_eq!(souls(&docs, s).len(), 1, "the soul is kept as soul:{s}:1");
        assert!(d.uuid.as_ref().is_some_and(|u| u.len() == 22));
    }
    // Summoning again finds no empty seat.
    assert_eq!(
        call(&router, post_json("/api/agents/summon", json!({})))
            .await
            .json()["seats"],
        json!([])
    );

    let r = call(&router, post_json("/api/session/end", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let docs = state.store.snapshot().0;
    assert!(all_agents(&docs, AgentStatus::Sleeping));
    assert!(state.runtime.running().is_empty(), "every process stopped");

    let r = call(&router, post_json("/api/agents/wake", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seats"].as_array().unwrap().len(), 8);
    common::wait_for_greetings(&state).await;
    let docs = state.store.snapshot().0;
    assert!(all_agents(&docs, AgentStatus::Alive));
    for s in agent_seats() {
        let d = identity(&docs, s).unwrap();
        let first_line = d
            .individuation_artifact
            .as_ref()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
        let greeting = thread(&docs, s)
            .into_iter()
            .rev()
            .find(|m| m.text.contains("I remember writing"))
            .unwrap();
        assert!(
            greeting.text.contains(&first_line),
            "seat {s} woke with its own soul: {}",
            greeting.text
        );
    }
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_message_is_answered_in_that_seats_thread_only() {
    let (_dir, state, router) = common::team().await;

    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "how are you, Wren?", "targetAgent": "wren"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["delivery"], "delivered");
    assert_eq!(r.json()["seat"], 2);
    wait_for(&state, "Wren's answer", |d| {
        thread(d, 2)
            .iter()
            .any(|m| m.text.contains("“how are you, Wren?"))
    })
    .await;
    let docs = state.store.snapshot().0;
    let answer = thread(&docs, 2)
        .into_iter()
        .find(|m| m.text.contains("“how are you"))
        .unwrap();
    assert_eq!(answer.speaker_name, "Wren");
    assert_eq!(answer.speaker_type, SpeakerType::Agent);
    for s in agent_seats().filter(|s| *s != 2) {
        assert!(
            !thread(&docs, s)
                .iter()
                .any(|m| m.text.contains("how are you")),
            "seat {s}"
        );
    }
    let d = identity(&docs, 2).unwrap();
    assert!(
        d.context_tokens.unwrap() > 0 && d.cost_usd.unwrap() > 0.0,
        "usage recorded"
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lead_starts_on_the_first_message_and_answers_in_its_thread() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "good morning"})),
    )
    .await;
    assert_eq!(r.json()["delivery"], "started");
    wait_for(&state, "the lead's answer", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains("good morning"))
    })
    .await;
    wait_for(&state, "the lead alive", |d| {
        identity(d, LEAD_SEAT).is_some_and(|l| l.status() == AgentStatus::Alive)
    })
    .await;
    let r = call(&router, post_json("/api/send", json!({"text": "second"}))).await;
    assert_eq!(r.json()["delivery"], "delivered");
    soulgrid::shut_down(&state).await;
}

/// Mail that waited in the lead's inbox while no server ran is handed over before the server
/// answers anyone: the lead is running when `boot` returns. (It was handed over by a task the
/// boot spawned, which a message sent at once raced: that message's send could be answered
/// `delivered` for the lead the task had just started with it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_that_waited_for_the_lead_is_handed_over_before_the_server_answers() {
    let dir = tempfile::tempdir().unwrap();
    let inboxes = dir.path().join("teams/soulgrid/inboxes");
    std::fs::create_dir_all(&inboxes).unwrap();
    common::external_append_text(&inboxes.join("ada.json"), "Wren", "while no server ran");
    let state = boot_with(dir.path(), &["--lead-name", "Ada"]).await;
    assert!(
        state.runtime.running().contains(&LEAD_SEAT),
        "the lead runs with its waiting mail when boot returns"
    );
    wait_for(&state, "the lead's answer to the waiting mail", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("while no server ran") && m.speaker_type == SpeakerType::Lead)
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_agent_leaves_the_others_running_and_sleeps_with_a_reason() {
    let (_dir, state, router) = common::team().await;
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "SIM_CRASH now", "targetAgent": "Kael"}),
        ),
    )
    .await;
    wait_for(&state, "Kael asleep", |d| {
        identity(d, 1).is_some_and(|k| k.status() == AgentStatus::Sleeping)
    })
    .await;
    let docs = state.store.snapshot().0;
    let kael = identity(&docs, 1).unwrap();
    assert_eq!(kael.process_state, Some(ProcessState::Stopped));
    assert_eq!(
        kael.process_reason.as_deref(),
        Some("crashed with exit code 3")
    );
    for s in agent_seats().filter(|s| *s != 1) {
        assert_eq!(
            identity(&docs, s).unwrap().status(),
            AgentStatus::Alive,
            "seat {s}"
        );
    }
    assert_eq!(state.runtime.running().len(), 7);
    // A message to the sleeping agent waits.
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "are you there?", "targetAgent": "Kael"}),
        ),
    )
    .await;
    assert_eq!(r.json()["delivery"], "queued");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dismiss_and_inactivity_put_an_agent_to_sleep() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &["--idle-timeout", "1500ms"]).await;
    let router = soulgrid::http::router(state.clone());
    common::summon_team(&state, &router).await;
    let r = call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let docs = state.store.snapshot().0;
    assert_eq!(identity(&docs, 0).unwrap().status(), AgentStatus::Sleeping);
    assert_eq!(
        identity(&docs, 0).unwrap().process_reason.as_deref(),
        Some("dismissed")
    );
    assert_eq!(
        call(&router, post_json("/api/agents/0/dismiss", json!({})))
            .await
            .status,
        StatusCode::CONFLICT,
        "no running agent: a conflict with the state"
    );
    assert_eq!(
        call(&router, post_json("/api/agents/9/dismiss", json!({})))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    wait_for(&state, "everyone asleep after inactivity", |d| {
        all_agents(d, AgentStatus::Sleeping)
    })
    .await;
    let docs = state.store.snapshot().0;
    assert_eq!(
        identity(&docs, 5).unwrap().process_reason.as_deref(),
        Some("inactivity")
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_turn_is_reported_stuck_and_can_be_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &["--stuck-after", "300ms"]).await;
    let router = soulgrid::http::router(state.clone());
    call(
        &router,
        post_json("/api/send", json!({"text": "SIM_HANG please"})),
    )
    .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let events = state.store.events_after(0, 1000).await.unwrap();
        if events.iter().any(|e| matches!(&e.kind, app::domain::events::EventKind::RuntimeError { seat: Some(4), message } if message.starts_with("stuck"))) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no stuck report");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let problem = state
        .store
        .with_all_docs(|d| identity(d, LEAD_SEAT).and_then(|l| l.last_problem.clone()));
    assert!(
        problem.is_some_and(|p| p.message.starts_with("stuck")),
        "the seat shows it"
    );
    // Interrupted, the turn ends and the lead stays, idle, ready for the next message.
    let r = call(&router, post_json("/api/agents/4/interrupt", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&state, "the lead idle again, interrupted", |d| {
        identity(d, LEAD_SEAT).is_some_and(|l| {
            l.process_state == Some(ProcessState::Idle)
                && l.process_reason.as_deref() == Some("interrupted")
        })
    })
    .await;
    let faults = common::count_events(&state, |k| {
        matches!(k, app::domain::events::EventKind::RuntimeError { message, .. } if message.contains("ended with an error"))
    })
    .await;
    assert_eq!(faults, 0, "an interrupt is not reported as a fault");
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "still there?"})),
    )
    .await;
    assert_eq!(r.json()["delivery"], "delivered");
    wait_for(&state, "an answer after the interrupt", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains("still there?"))
    })
    .await;
    assert_eq!(
        call(&router, post_json("/api/agents/0/interrupt", json!({})))
            .await
            .status,
        StatusCode::CONFLICT
    );
    soulgrid::shut_down(&state).await;
    assert!(state.runtime.running().is_empty());
}

#[tokio::test]
async fn a_missing_claude_command_is_a_stopped_seat_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &["--claude-cmd", "/nonexistent/claude"]).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/send", json!({"text": "hello?"}))).await;
    assert_eq!(r.json()["delivery"], "queued");
    let docs = state.store.snapshot().0;
    let lead = identity(&docs, LEAD_SEAT).unwrap();
    assert_eq!(lead.process_state, Some(ProcessState::Stopped));
    let unread = state.runtime.mailboxes().unread("Julian").unwrap();
    assert_eq!(
        unread.len(),
        1,
        "the message waits in the lead's inbox, unread"
    );
    assert_eq!(unread[0].text, "hello?");
    assert!(lead
        .process_reason
        .as_ref()
        .unwrap()
        .starts_with("could not start /nonexistent/claude"));
    assert!(identities(&docs).all(|d| d.status() != AgentStatus::Alive));
}

/// The transactions that stored the lead's turn from a fake CLI that answers each message with
/// `turn` (stdout lines, written at once): its `running` with the fake session, its text
/// (`all at once`), and (when `ends`) its `idle`.
async fn turn_transactions(turn: &str, ends: bool) -> Vec<(u64, u64)> {
    use app::domain::events::EventKind;
    let dir = tempfile::tempdir().unwrap();
    let cli = common::fake_cli(
        dir.path(),
        "one-write",
        &format!("while read -r line; do\n  cat <<'TURN'\n{turn}\nTURN\ndone"),
    );
    let state = boot_with(
        &dir.path().join("data"),
        &[
            "--claude-cmd",
            cli.to_str().unwrap(),
            "--distill-timeout",
            "0s",
            "--stop-grace",
            "1s",
        ],
    )
    .await;
    let mut live = state.store.subscribe();
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);

    let expected = if ends { 3 } else { 2 };
    let mut turn = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while turn.len() < expected {
            let c = live.recv().await.unwrap();
            let ours = match &c.event.kind {
                EventKind::AgentProcess {
                    seat: LEAD_SEAT,
                    state: ProcessState::Running,
                    claude_session_id: Some(s),
                    ..
                } => s == "fake-session",
                EventKind::LeadText { text, .. } => text == "all at once",
                EventKind::AgentProcess {
                    seat: LEAD_SEAT,
                    state: ProcessState::Idle,
                    ..
                } => !turn.is_empty(),
                _ => false,
            };
            if ours {
                turn.push((c.event.id, c.transaction));
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the turn's events stored: {turn:?}"));
    soulgrid::shut_down(&state).await;
    turn
}

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"fake-session"}"#;
const TEXT: &str =
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":"all at once"}]}}"#;
const RESULT: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"session_id":"fake-session"}"#;

/// Lines the agent wrote together (a turn's init, text and result in one write) are stored in
/// one transaction: its reply reaches the stream after one fsync, not three.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_written_together_are_stored_in_one_transaction() {
    let turn = turn_transactions(&format!("{INIT}\n{TEXT}\n{RESULT}"), true).await;
    assert!(
        turn.windows(2).all(|w| w[0].1 == w[1].1),
        "one transaction for the turn's lines: (event, transaction) {turn:?}"
    );
}

/// A burst whose last line nothing waits on (the turn goes on) is stored all the same, before
/// the agent writes again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_is_stored_without_waiting_for_the_next_line() {
    let turn = turn_transactions(&format!("{INIT}\n{TEXT}"), false).await;
    assert_eq!(turn.len(), 2);
    assert_eq!(turn[0].1, turn[1].1, "one transaction: {turn:?}");
}
