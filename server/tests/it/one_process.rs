//! One process per seat, however many starts race for it: concurrent sends to a sleeping lead,
//! WAKEs clicked together. And an interrupt with no turn running changes nothing.

use crate::common;

use app::domain::docs::{identity, thread, SpeakerType};
use app::domain::process::ProcessState;
use app::domain::{agent_seats, Seat, LEAD_SEAT};
use axum::http::StatusCode;
use common::{boot, call, post_json, wait_for};
use futures::future::join_all;
use serde_json::json;

/// How many processes were started for `seat` after event `after`.
async fn starts(state: &soulgrid::state::AppState, seat: Seat, after: u64) -> usize {
    common::started_sessions(state, seat, after).await.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_sends_to_a_sleeping_lead_start_it_once_and_are_all_answered() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let notes: Vec<String> = (1..=8).map(|i| format!("note-{i}-of-8")).collect();
    let replies = join_all(
        notes
            .iter()
            .map(|n| call(&router, post_json("/api/send", json!({"text": n})))),
    )
    .await;
    for r in &replies {
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    }
    wait_for(&state, "every note answered by the lead", |d| {
        let said: Vec<String> = thread(d, LEAD_SEAT)
            .into_iter()
            .filter(|m| m.speaker_type == SpeakerType::Lead)
            .map(|m| m.text.clone())
            .collect();
        notes
            .iter()
            .all(|n| said.iter().any(|t| t.contains(n.as_str())))
    })
    .await;
    assert_eq!(starts(&state, LEAD_SEAT, 0).await, 1, "one lead process");
    assert_eq!(state.runtime.running(), vec![LEAD_SEAT]);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_wakes_at_once_start_each_agent_once() {
    let (_dir, state, router) = common::team().await;
    call(&router, post_json("/api/session/end", json!({}))).await;
    let after = state.store.last_event_id();
    let replies =
        join_all((0..3).map(|_| call(&router, post_json("/api/agents/wake", json!({}))))).await;
    let woken: usize = replies
        .iter()
        .map(|r| r.json()["seats"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        woken,
        8,
        "each agent is woken by one of the three: {replies:?}",
        replies = replies.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    common::wait_for_greetings(&state).await;
    for seat in agent_seats().chain([LEAD_SEAT]) {
        assert_eq!(
            starts(&state, seat, after).await,
            1,
            "seat {seat}: one process"
        );
    }
    let mut running = state.runtime.running();
    running.sort_unstable();
    assert_eq!(running, (0..9).collect::<Vec<Seat>>());
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_an_agent_between_turns_changes_nothing() {
    let (_dir, state, router) = common::team().await;
    wait_for(&state, "seat 0 idle", |d| {
        identity(d, 0).is_some_and(|i| i.process_state == Some(ProcessState::Idle))
    })
    .await;
    let before = state.store.last_event_id();
    let r = call(&router, post_json("/api/agents/0/interrupt", json!({}))).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("nothing to interrupt"),
        "{}",
        r.body
    );
    // Nothing recorded about seat 0 (the others may still be finishing their first turns).
    let about_seat0: Vec<_> = state
        .store
        .events_after(before, 1000)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.kind.seat() == Some(0))
        .collect();
    assert!(about_seat0.is_empty(), "nothing recorded: {about_seat0:?}");
    let seat0 = state
        .store
        .with_all_docs(|d| identity(d, 0).cloned())
        .unwrap();
    assert_eq!(seat0.process_state, Some(ProcessState::Idle));
    // Still an ordinary idle agent: it answers.
    let name = seat0.name.unwrap();
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "still with us?", "targetAgent": name}),
        ),
    )
    .await;
    wait_for(&state, "an answer", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.speaker_type == SpeakerType::Agent && m.text.contains("“still with us?"))
    })
    .await;
    soulgrid::shut_down(&state).await;
}
