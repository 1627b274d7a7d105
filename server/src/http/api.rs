//! The JSON API.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::state::AppState;

pub async fn healthz(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "ok": true, "claude": state.claude_label, "version": env!("CARGO_PKG_VERSION") }))
}

/// `{docs, lastEventId}`: the snapshot SSR renders from.
pub async fn docs(State(state): State<AppState>) -> Json<Value> {
    let s = state.snapshots.snapshot();
    Json(json!({ "docs": s.docs, "lastEventId": s.last_event_id }))
}
