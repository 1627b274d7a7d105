//! The router driven with `oneshot`: no socket, no browser.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::prelude::LeptosOptions;
use serde_json::Value;
use soulgrid::memory::MemorySnapshots;
use soulgrid::state::AppState;
use tower::ServiceExt;

fn state() -> AppState {
    AppState {
        leptos_options: LeptosOptions::builder().output_name("soulgrid").build(),
        snapshots: Arc::new(MemorySnapshots::start("Julian", "Marcus", 1_000, "s-1")),
        claude_label: "none",
    }
}

async fn get(uri: &str) -> (StatusCode, String) {
    let res = soulgrid::http::router(state())
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test]
async fn healthz_answers_ok() {
    let (status, body) = get("/healthz").await;
    assert_eq!(status, StatusCode::OK);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ok"], true);
}

#[tokio::test]
async fn docs_returns_the_snapshot_with_its_event_id() {
    let (status, body) = get("/api/docs").await;
    assert_eq!(status, StatusCode::OK);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["lastEventId"], 1);
    let lead = &v["docs"]["agent-identity:4"];
    assert_eq!(lead["name"], "Julian");
    assert_eq!(lead["color"], "#FFD600");
    assert_eq!(lead["type"], "agent-identity");
}

#[tokio::test]
async fn the_page_is_server_rendered_with_nine_cells_and_the_lead_in_the_centre() {
    let (status, html) = get("/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..html.len().min(200)]);
    let cells = html.matches("data-seat=\"").count();
    assert_eq!(cells, 9, "{html}");
    let centre = html.find("data-seat=\"4\"").expect("the lead's cell");
    let after = &html[centre..];
    assert!(after.find("Julian").unwrap() < after.find("data-seat=\"5\"").unwrap());
    assert!(html.contains("class=\"cell lead\""));
    assert!(html.contains("data-button=\"SUMMON\""), "no agent yet: SUMMON");
    assert!(html.contains("<link rel=\"icon\" href=\"data:,\">"), "no favicon request");
}

#[tokio::test]
async fn an_unknown_path_is_a_404() {
    let (status, _) = get("/no/such/page").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
