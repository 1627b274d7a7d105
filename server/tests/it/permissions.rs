//! Permission prompts with `--permissions ui`, against `soulgrid-sim` asking on stdio exactly as
//! the real CLI does: a request is recorded and shown, answered once from the API (or by the
//! timeout), and the agent gets the answer.

use crate::common;

use app::domain::docs::{identity, thread, SpeakerType};
use app::domain::docs::{pending, permissions, request};
use app::domain::events::EventKind;
use app::domain::permissions::{Decider, PermissionState};
use app::domain::process::ProcessState;
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{boot_with, call, post_json, wait_for};
use serde_json::json;
use soulgrid::state::AppState;

/// A server whose agents ask in the UI (and the folder it lives in).
async fn ui_server(extra: &[&str]) -> (tempfile::TempDir, AppState, axum::Router) {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = ["--permissions", "ui"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    let state = boot_with(dir.path(), &args).await;
    let router = soulgrid::http::router(state.clone());
    (dir, state, router)
}

/// Answers request `id` from the API.
async fn answer(router: &axum::Router, id: &str, body: serde_json::Value) -> common::Reply {
    call(router, post_json(&format!("/api/permissions/{id}"), body)).await
}

/// Asks the lead to call a tool and waits until it asks for permission; the request id.
async fn ask(state: &AppState, router: &axum::Router) -> String {
    let r = call(
        router,
        post_json("/api/send", json!({"text": "SIM_TOOL now"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(state, "a pending permission request", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    state
        .store
        .with_all_docs(|d| pending(d, LEAD_SEAT)[0].request_id.clone())
}

fn lead_said(d: &app::domain::docs::Docs, words: &str) -> bool {
    thread(d, LEAD_SEAT)
        .iter()
        .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains(words))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_answers_count_once_and_the_winner_is_carried_out() {
    let (_dir, state, router) = ui_server(&[]).await;
    let id = ask(&state, &router).await;

    let docs = state.store.snapshot().0;
    let p = request(&docs, &id).unwrap();
    assert_eq!(p.tool_name, "Bash");
    assert_eq!(p.input["command"], "echo hi");
    assert_eq!(p.description.as_deref(), Some("Say hi"));
    assert_eq!(p.suggestions.as_ref().unwrap()[0]["type"], "addRules");
    let lead = identity(&docs, LEAD_SEAT).unwrap();
    assert_eq!(
        lead.process_reason.as_deref(),
        Some("waiting for approval: Bash")
    );

    // Eight answers at once (tabs, the timeout): exactly one counts, whichever it is.
    let decisions = [
        "allow", "deny", "allow", "deny", "allow", "deny", "allow", "deny",
    ];
    let replies = futures::future::join_all(
        decisions
            .iter()
            .map(|d| answer(&router, &id, json!({ "decision": d }))),
    )
    .await;
    let won: Vec<_> = replies
        .iter()
        .filter(|r| r.status == StatusCode::OK)
        .collect();
    let bodies: Vec<_> = replies.iter().map(|r| &r.body).collect();
    assert_eq!(won.len(), 1, "{bodies:?}");
    assert!(
        replies
            .iter()
            .all(|r| r.status == StatusCode::OK || r.status == StatusCode::CONFLICT),
        "{bodies:?}"
    );
    assert_eq!(
        state.runtime.answers_in_progress(),
        0,
        "claims are let go once settled"
    );
    let (settled, outcome) = match won[0].json()["state"].as_str() {
        Some("allowed") => (
            PermissionState::Allowed,
            "I ran `echo hi` and it printed: hi",
        ),
        _ => (
            PermissionState::Denied,
            "I was not allowed to run `echo hi`: The human denied this tool call.",
        ),
    };
    wait_for(&state, "the outcome in the lead's reply", |d| {
        lead_said(d, outcome)
    })
    .await;
    // A later answer (another tab) is refused and changes nothing.
    let r = answer(&router, &id, json!({"decision": "deny"})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert_eq!(
        r.json()["error"],
        format!("the request was already {}", settled.as_str())
    );
    let docs = state.store.snapshot().0;
    let p = request(&docs, &id).unwrap();
    assert_eq!((p.state, p.decided_by), (settled, Some(Decider::Human)));
    let decisions = common::count_events(&state, |k| {
        matches!(k, EventKind::PermissionDecision { .. })
    })
    .await;
    assert_eq!(decisions, 1, "every decision is one event");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_tool_call_tells_the_agent_why() {
    let (_dir, state, router) = ui_server(&[]).await;
    let id = ask(&state, &router).await;
    let r = answer(
        &router,
        &id,
        json!({"decision": "deny", "message": "not on this machine"}),
    )
    .await;
    assert_eq!(r.json()["state"], "denied", "{}", r.body);
    wait_for(&state, "the refusal in the lead's reply", |d| {
        lead_said(d, "I was not allowed to run `echo hi`: not on this machine")
    })
    .await;
    let p = state
        .store
        .with_all_docs(|d| request(d, &id).cloned())
        .unwrap();
    assert_eq!(p.outcome(), "denied: not on this machine");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_nobody_answers_is_denied_after_the_timeout() {
    let (_dir, state, router) = ui_server(&["--permission-timeout", "400ms"]).await;
    let id = ask(&state, &router).await;
    wait_for(&state, "the timeout's denial", |d| {
        lead_said(d, "I was not allowed to run `echo hi`: Nobody answered within 400 ms; denied automatically.")
    })
    .await;
    let p = state
        .store
        .with_all_docs(|d| request(d, &id).cloned())
        .unwrap();
    assert_eq!(
        (p.state, p.decided_by),
        (PermissionState::Denied, Some(Decider::Timeout))
    );
    let r = answer(&router, &id, json!({"decision": "allow"})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "too late: {}", r.body);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_dies_with_its_process_and_bad_answers_are_clear_errors() {
    let (_dir, state, router) = ui_server(&[]).await;
    let id = ask(&state, &router).await;
    let path = format!("/api/permissions/{id}");

    let r = call(&router, post_json(&path, json!({"decision": "maybe"}))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("unknown variant `maybe`"),
        "{}",
        r.body
    );
    let r = call(
        &router,
        post_json("/api/permissions/nope", json!({"decision": "allow"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.json()["error"], "no permission request \"nope\"");
    let long = "x".repeat(5000);
    let r = call(
        &router,
        post_json(&path, json!({"decision": "deny", "message": long})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);

    call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    let docs = state.store.snapshot().0;
    assert_eq!(
        request(&docs, &id).unwrap().state,
        PermissionState::Cancelled
    );
    assert_eq!(
        identity(&docs, LEAD_SEAT).unwrap().process_state,
        Some(ProcessState::Stopped)
    );
    let r = call(&router, post_json(&path, json!({"decision": "allow"}))).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["error"], "the request was already cancelled");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_ui_permissions_nobody_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &[]).await;
    let router = soulgrid::http::router(state.clone());
    call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL now"})),
    )
    .await;
    wait_for(&state, "the command ran without asking", |d| {
        lead_said(d, "it printed: hi")
    })
    .await;
    assert_eq!(state.store.with_all_docs(|d| permissions(d).count()), 0);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_a_turn_that_waits_for_an_answer_cancels_the_request() {
    let (_dir, state, router) = ui_server(&[]).await;
    let id = ask(&state, &router).await;
    let r = call(&router, post_json("/api/agents/4/interrupt", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&state, "the request cancelled with its turn", |d| {
        request(d, &id).is_some_and(|p| p.state == PermissionState::Cancelled)
    })
    .await;
    let r = answer(&router, &id, json!({"decision": "allow"})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    // The lead goes on with the next message.
    call(
        &router,
        post_json("/api/send", json!({"text": "never mind"})),
    )
    .await;
    wait_for(&state, "the next answer", |d| lead_said(d, "“never mind")).await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allowing_hands_the_cli_its_suggested_rule_and_it_stops_asking() {
    let (_dir, state, router) = ui_server(&[]).await;
    let id = ask(&state, &router).await;
    // A rule it did not suggest is refused, and the request still waits for an answer.
    let r = answer(
        &router,
        &id,
        json!({"decision": "allow_always", "suggestion": 5}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .starts_with("no such rule to remember"));
    let r = answer(
        &router,
        &id,
        json!({"decision": "allow_always", "suggestion": 0}),
    )
    .await;
    assert_eq!(r.json()["state"], "allowed", "{}", r.body);
    let p = state
        .store
        .with_all_docs(|d| request(d, &id).cloned())
        .unwrap();
    assert_eq!(
        p.outcome(),
        "approved, and from now on: allow Bash(echo hi) (localSettings)"
    );
    wait_for(&state, "the first run", |d| lead_said(d, "it printed: hi")).await;
    // The same call again is not asked: the CLI keeps the rule it was given.
    call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL again"})),
    )
    .await;
    wait_for(&state, "the second run", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .filter(|m| m.speaker_type == SpeakerType::Lead && m.text.contains("it printed: hi"))
            .count()
            == 2
    })
    .await;
    assert_eq!(
        state.store.with_all_docs(|d| permissions(d).count()),
        1,
        "asked once"
    );
    soulgrid::shut_down(&state).await;
}
