//! Rules per agent and the one approval queue, against `soulgrid-sim` asking on stdio as the
//! real CLI does: a call a rule covers is allowed without anyone asked, the rule recorded as the
//! reason; the rules are the identity's (added, refused with where, removed by number); the
//! queue lists every agent's waiting requests, oldest first.

use crate::common;

use app::domain::docs::{identity, pending, permissions, thread, SpeakerType};
use app::domain::permissions::{Decider, PermissionState};
use app::domain::LEAD_SEAT;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{boot_with, call, get, post_json, wait_for};
use serde_json::json;
use soulgrid::state::AppState;

async fn ui_server() -> (tempfile::TempDir, AppState, axum::Router) {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), &["--permissions", "ui"]).await;
    let router = soulgrid::http::router(state.clone());
    (dir, state, router)
}

fn lead_id(state: &AppState) -> String {
    state
        .store
        .with_all_docs(|d| identity(d, LEAD_SEAT).unwrap().stable_id())
}

fn delete(uri: &str) -> Request<Body> {
    Request::delete(uri).body(Body::empty()).unwrap()
}

async fn add(router: &axum::Router, id: &str, rule: &str) -> common::Reply {
    call(
        router,
        post_json(&format!("/api/agents/{id}/rules"), json!({ "rule": rule })),
    )
    .await
}

async fn sim_tool(router: &axum::Router) {
    let r = call(
        router,
        post_json("/api/send", json!({"text": "SIM_TOOL now"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_a_rule_covers_is_allowed_without_asking_and_the_rule_is_the_reason() {
    let (_dir, state, router) = ui_server().await;
    let id = lead_id(&state);
    let r = add(&router, &id, "Bash(echo:*)").await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json()["rules"][0]["rule"], "Bash(echo:*)");
    assert_eq!(r.json()["rules"][0]["addedBy"], "human");

    sim_tool(&router).await;
    wait_for(&state, "the lead ran the command", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains("I ran `echo hi`"))
    })
    .await;
    state.store.with_all_docs(|d| {
        let asked: Vec<_> = permissions(d).collect();
        assert_eq!(asked.len(), 1, "the request is on record");
        let p = asked[0];
        assert_eq!(
            (p.state, p.decided_by, p.rule.as_deref()),
            (
                PermissionState::Allowed,
                Some(Decider::Rule),
                Some("Bash(echo:*)")
            )
        );
        assert_eq!(p.outcome(), "allowed by its rule Bash(echo:*)");
    });
    // Nothing ever waited: the queue stays empty.
    let q = call(&router, get("/api/permissions?state=waiting")).await;
    assert_eq!(q.status, StatusCode::OK, "{}", q.body);
    assert_eq!(q.json(), json!([]));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_that_does_not_cover_the_call_leaves_it_to_the_human_in_the_queue() {
    let (_dir, state, router) = ui_server().await;
    let id = lead_id(&state);
    assert_eq!(
        add(&router, &id, "Bash(cargo test:*)").await.status,
        StatusCode::CREATED
    );
    sim_tool(&router).await;
    wait_for(&state, "a waiting request", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    let q = call(&router, get("/api/permissions?state=waiting")).await;
    let list = q.json();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["toolName"], "Bash");
    assert_eq!(list[0]["state"], "pending");
    assert_eq!(list[0]["seat"], LEAD_SEAT);
    let all = call(&router, get("/api/permissions")).await.json();
    assert_eq!(all.as_array().unwrap().len(), 1);
    let bad = call(&router, get("/api/permissions?state=maybe")).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.body);
    assert!(bad.json()["error"].as_str().unwrap().contains("waiting"));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_are_refused_with_where_kept_once_and_removed_by_number() {
    let (_dir, state, router) = ui_server().await;
    let id = lead_id(&state);

    let r = add(&router, &id, "Bash(cargo test:*").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(
        r.json()["error"],
        "the rule does not parse, at character 18: missing the closing )"
    );
    let r = add(&router, "nobody", "Read").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    let r = call(
        &router,
        post_json(
            &format!("/api/agents/{id}/rules"),
            json!({"rule": "Read", "x": 1}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);

    assert_eq!(add(&router, &id, "Read").await.status, StatusCode::CREATED);
    let r = add(&router, &id, " Read ").await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("number 1"));
    let r = add(&router, &id, "Edit(src/**)").await;
    assert_eq!(r.json()["version"], 2);

    let r = call(&router, delete(&format!("/api/agents/{id}/rules/1"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json()["version"], 3);
    assert_eq!(r.json()["rules"][0]["n"], 2);
    let r = call(&router, delete(&format!("/api/agents/{id}/rules/1"))).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    let r = call(&router, delete(&format!("/api/agents/{id}/rules/one"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);

    let r = call(&router, get(&format!("/api/agents/{id}/rules"))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["rules"].as_array().unwrap().len(), 1);
    // The rules are the identity's: on its document, as everything it is.
    state.store.with_all_docs(|d| {
        let lead = identity(d, LEAD_SEAT).unwrap();
        assert_eq!(lead.rules_version, 3);
        assert_eq!(lead.rules[0].rule, "Edit(src/**)");
    });
    soulgrid::shut_down(&state).await;
}
