//! `--approvals lead-first`: an agent's request goes to the lead, which decides it with
//! `decide_permission` (recorded as the lead's); what the lead does not answer in time, and
//! what the human keeps (removing files, the network, outside the agent's places, the lead's
//! own), waits for the human, and the lead cannot decide it.

use crate::common;
use crate::tool_calls::ask;

use app::domain::docs::{request, thread};
use app::domain::escalation::Approver;
use app::domain::permissions::{Decider, PermissionDoc, PermissionState};
use app::domain::{Seat, LEAD_SEAT};
use axum::http::StatusCode;
use common::{call, post_json, wait_for, wait_until};
use serde_json::json;
use soulgrid::state::AppState;

const LEAD_FIRST: [&str; 4] = ["--permissions", "ui", "--approvals", "lead-first"];

async fn tool(router: &axum::Router, seat: Seat, text: &str) {
    let r = call(
        router,
        post_json("/api/send", json!({ "text": text, "seat": seat })),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
}

/// The first request of `seat` once it is routed (or kept) as `to`.
async fn routed(state: &AppState, seat: Seat, to: Approver) -> PermissionDoc {
    wait_for(state, "a routed request", |d| {
        app::domain::docs::pending(d, seat)
            .iter()
            .any(|p| p.with == Some(to))
    })
    .await;
    state
        .store
        .with_all_docs(|d| app::domain::docs::pending(d, seat)[0].clone())
}

fn lead_heard(dir: &std::path::Path, words: &str) -> bool {
    std::fs::read_to_string(dir.join("agents/4/.soulgrid-sim/received.jsonl"))
        .is_ok_and(|s| s.contains(words))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lead_decides_a_request_put_to_it_and_the_decision_is_its_own() {
    let (dir, state, router) = common::team_with(&LEAD_FIRST).await;
    tool(&router, 0, "SIM_TOOL now").await;
    let p = routed(&state, 0, Approver::Lead).await;
    assert_eq!(p.outcome(), "with the lead");
    wait_until("the lead is asked", || {
        lead_heard(dir.path(), "asks to use Bash") && lead_heard(dir.path(), &p.request_id)
    })
    .await;

    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!(
            "SIM_CALL: decide_permission {{\"request\":\"{}\",\"decision\":\"allow\",\"reason\":\"tests are fine\"}}",
            p.request_id
        ),
    )
    .await;
    assert!(answer.contains("(ok)"), "{answer}");
    wait_for(&state, "the agent ran it", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.contains("I ran `echo hi`"))
    })
    .await;
    state.store.with_all_docs(|d| {
        let p = request(d, &p.request_id).unwrap();
        assert_eq!(
            (p.state, p.decided_by),
            (PermissionState::Allowed, Some(Decider::Lead))
        );
        assert_eq!(p.outcome(), "approved by the lead: tests are fine");
    });
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_human_keeps_the_lead_cannot_decide_and_it_waits_for_the_human() {
    let (_dir, state, router) = common::team_with(&LEAD_FIRST).await;
    tool(&router, 0, "SIM_TOOL_RM now").await;
    let p = routed(&state, 0, Approver::Human).await;
    assert_eq!(p.routed_why.as_deref(), Some("it removes files"));
    assert_eq!(p.outcome(), "waiting for your answer: it removes files");

    // The lead approves it anyway: refused, not applied, still the human's.
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!(
            "SIM_CALL: decide_permission {{\"request\":\"{}\",\"decision\":\"allow\"}}",
            p.request_id
        ),
    )
    .await;
    assert!(answer.contains("(error)"), "{answer}");
    assert!(
        answer.contains("is the human's to answer (it removes files)")
            && answer.contains("not applied"),
        "{answer}"
    );
    let still = state
        .store
        .with_all_docs(|d| request(d, &p.request_id).unwrap().clone());
    assert_eq!(still.state, PermissionState::Pending);
    // A bad decision word and an unknown request are clear too.
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        "SIM_CALL: decide_permission {\"request\":\"nope\",\"decision\":\"maybe\"}",
    )
    .await;
    assert!(answer.contains("decision is allow or deny"), "{answer}");
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        "SIM_CALL: decide_permission {\"request\":\"nope\",\"decision\":\"deny\"}",
    )
    .await;
    assert!(
        answer.contains("there is no permission request"),
        "{answer}"
    );

    // The human answers it.
    let r = call(
        &router,
        post_json(
            &format!("/api/permissions/{}", p.request_id),
            json!({"decision": "deny", "message": "keep the build"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    wait_for(&state, "the agent told no", |d| {
        thread(d, 0).iter().any(|m| {
            m.text
                .contains("I was not allowed to run `rm -rf build`: keep the build")
        })
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_lead_leaves_goes_to_the_human_and_the_leads_own_never_go_to_it() {
    let mut args = LEAD_FIRST.to_vec();
    args.extend(["--lead-approval-timeout", "1s"]);
    let (_dir, state, router) = common::team_with(&args).await;
    tool(&router, 0, "SIM_TOOL now").await;
    routed(&state, 0, Approver::Lead).await;
    let p = routed(&state, 0, Approver::Human).await;
    assert_eq!(
        p.routed_why.as_deref(),
        Some("the lead did not answer within 1 s")
    );

    let r = call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL yourself"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let own = routed(&state, LEAD_SEAT, Approver::Human).await;
    assert_eq!(own.routed_why.as_deref(), Some("the lead's own request"));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_with_a_lead_that_crashes_goes_to_the_human_at_once() {
    // The lead's timeout is long: only the crash can hand it over within the test.
    let mut args = LEAD_FIRST.to_vec();
    args.extend([
        "--lead-approval-timeout",
        "10m",
        "--permission-timeout",
        "30m",
    ]);
    let (dir, state, router) = common::team_with(&args).await;
    tool(&router, 0, "SIM_TOOL now").await;
    let p = routed(&state, 0, Approver::Lead).await;
    wait_until("the lead is asked", || {
        lead_heard(dir.path(), &p.request_id)
    })
    .await;
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "SIM_CRASH"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = routed(&state, 0, Approver::Human).await;
    assert_eq!(
        p.routed_why.as_deref(),
        Some("the lead stopped before answering")
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_timeout_longer_than_the_humans_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = LEAD_FIRST.to_vec();
    args.extend([
        "--lead-approval-timeout",
        "10m",
        "--permission-timeout",
        "5m",
    ]);
    let config = common::config(dir.path(), &args);
    let options = leptos::config::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let e = soulgrid::boot(&config, options)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("must be shorter than --permission-timeout (5 min)"),
        "{e}"
    );
}
