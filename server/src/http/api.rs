//! The JSON API.

use app::domain::docs::seat_named;
use app::domain::events::EventKind;
use app::domain::LEAD_SEAT;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::AppError;
use crate::state::AppState;

/// The longest message the human may send in one go (the CLI truncates stdin lines past 100 KB).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

pub async fn healthz(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "ok": true,
        "claude": &*state.claude_label,
        "session": &*state.session_id,
        "lastEventId": state.store.last_event_id(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `{docs, lastEventId}`: the snapshot SSR renders from.
pub async fn docs(State(state): State<AppState>) -> Json<Value> {
    let (docs, last_event_id) = state.store.snapshot();
    Json(json!({ "docs": docs, "lastEventId": last_event_id }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendBody {
    text: String,
    #[serde(default)]
    target_agent: Option<String>,
}

/// `POST /api/send {text, targetAgent?}` → `202 {eventId}`: the human's message is recorded.
pub async fn send(
    State(state): State<AppState>,
    body: Result<Json<SendBody>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    let Json(body) = body?;
    let text = body.text.trim_end();
    if text.trim().is_empty() {
        return Err(AppError::BadRequest("text is empty".into()));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err(AppError::BadRequest(format!(
            "text is {} bytes; the limit is {MAX_TEXT_BYTES}",
            text.len()
        )));
    }
    let target = body
        .target_agent
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let (docs, _) = state.store.snapshot();
    let seat = match target {
        None => LEAD_SEAT,
        Some(name) => seat_named(&docs, name).ok_or_else(|| {
            AppError::BadRequest(format!("no agent named {name:?} is in the grid"))
        })?,
    };
    let event = state
        .store
        .append(
            &state.session_id,
            EventKind::UserMessage {
                message_id: uuid::Uuid::new_v4().simple().to_string(),
                speaker_name: state.human_name.to_string(),
                seat,
                text: text.to_string(),
                target_agent: target.map(str::to_owned),
            },
        )
        .await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "eventId": event.id }))))
}
