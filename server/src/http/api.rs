//! The JSON API.

use app::domain::docs::seat_named;
use app::domain::permissions::Decider;
use app::domain::LEAD_SEAT;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use app::contract::{
    Delivery, DocsResponse, Health, HealthDetail, PermissionAnswer, PermissionAnswered,
    SeatResponse, SeatsResponse, SendResponse, SessionEnded, SummonRequest, WakeRequest,
};
use app::domain::Seat;

use super::extract::{AppJson, AppPath};
use crate::error::AppError;
use crate::http::idempotency::Idempotency;
use crate::runtime::{DecideError, PostError, RuntimeError, TellError};
use crate::state::AppState;

/// The longest message the human may send in one go (the CLI truncates stdin lines past 100 KB).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

pub async fn healthz(
    State(state): State<AppState>,
    anonymous: Option<axum::Extension<crate::http::security::Anonymous>>,
) -> (StatusCode, Json<Health>) {
    // A store that stopped taking events (a write the disk did not confirm), or whose database
    // does not answer, is not healthy.
    let problem = match state.store.stopped() {
        true => Some(crate::store::StoreError::NotDurable.to_string()),
        false => state.store.reachable().await.err(),
    };
    let status = match problem {
        Some(_) => StatusCode::SERVICE_UNAVAILABLE,
        None => StatusCode::OK,
    };
    let (role, leader) = state.role.shown().map_or((None, None), |(role, leader)| {
        (Some(role.to_string()), leader)
    });
    if anonymous.is_some() {
        let mut health = Health::default_ok();
        health.ok = problem.is_none();
        health.closing = state.runtime.is_closing();
        (health.role, health.leader) = (role, leader);
        return (status, Json(health));
    }
    let health = Health {
        ok: problem.is_none(),
        role,
        leader,
        closing: state.runtime.is_closing(),
        server: Some(HealthDetail {
            claude: state.claude_label.to_string(),
            simulated: state.runtime.config().simulated,
            running: state.runtime.running(),
            session: state.session.id().to_string(),
            last_event_id: state.store.last_event_id(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            problem,
        }),
    };
    (status, Json(health))
}

/// `{docs, lastEventId}`: every document (a full replica; a page's snapshot leaves history out).
pub async fn docs(
    State(state): State<AppState>,
    spectator: Option<axum::Extension<crate::spectators::Spectator>>,
) -> Result<Json<DocsResponse>, AppError> {
    let (mut docs, last_event_id) = state.store.docs_with_threads(None).await?;
    // A spectator's: without what is not theirs to see (app::domain::spectate).
    if spectator.is_some() {
        docs = app::domain::spectate::docs(&docs);
    }
    Ok(Json(DocsResponse {
        docs,
        last_event_id,
    }))
}

use app::contract::SendRequest as SendBody;

/// `POST /api/send {text, seat?, targetAgent?}` → `202 {eventId, seat, delivery}`: the human's message
/// is recorded and handed on. With an `Idempotency-Key` header, a retry of the same message
/// gets the first answer and records nothing again.
pub async fn send(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    AppJson(body): AppJson<SendBody>,
) -> Result<(StatusCode, Json<SendResponse>), AppError> {
    let key = Idempotency::key(&headers)?;
    let answer = state
        .idempotency
        .clone()
        .once(key.clone(), || send_once(state, body, key))
        .await?;
    Ok((StatusCode::ACCEPTED, Json(answer)))
}

async fn send_once(
    state: AppState,
    body: SendBody,
    key: Option<String>,
) -> Result<SendResponse, AppError> {
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
    if let Some(channel) = body.channel.as_deref() {
        return post_to_channel(state, channel, &body, text).await;
    }
    let seat = match (body.seat, body.target_agent.as_deref().map(str::trim)) {
        (Some(seat), _) => seat,
        (None, None | Some("")) => LEAD_SEAT,
        (None, Some(name)) => state
            .store
            .with_docs(|docs| seat_named(docs, name))
            .ok_or_else(|| {
                AppError::BadRequest(format!("no agent named {name:?} is in the grid"))
            })?,
    };
    // A seat with an agent (and so an inbox) before anything is recorded.
    let Some(inbox) = state.runtime.seat_inbox(seat) else {
        return Err(AppError::BadRequest(
            "nobody sits there now (the agent left or was never summoned): nothing was sent".into(),
        ));
    };
    state
        .runtime
        .mailboxes()
        .path(&inbox)
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    // Filed first (the inbox is the durable queue), recorded second: a write that fails
    // records nothing, and its retry is the one message. With a key, the inbox id is the
    // key's, so a retry whose recording had failed files nothing twice.
    let msg_id = key.as_deref().map(|k| format!("soulgrid-key-{k}"));
    let (event_id, delivery) = state
        .runtime
        .tell_from_human(seat, text, msg_id)
        .await
        .map_err(|e| match e {
            TellError::Filing(e) => match e.for_client() {
                Some(said) => {
                    tracing::error!(seat, error = %e, "a message could not be filed");
                    AppError::Unavailable(said)
                }
                None => AppError::BadRequest(e.to_string()),
            },
            TellError::Recording(e) => e.into(),
        })?;
    Ok(SendResponse {
        event_id,
        seat,
        delivery,
        channel: None,
        mentioned: Vec::new(),
        nobody: Vec::new(),
    })
}

/// `POST /api/send {text, channel: "team"}`: posted in #team, filed for each agent it
/// mentions.
async fn post_to_channel(
    state: AppState,
    channel: &str,
    body: &SendBody,
    text: &str,
) -> Result<SendResponse, AppError> {
    if channel != app::domain::channel::TEAM {
        return Err(AppError::BadRequest(format!(
            "there is no channel {channel:?}: the one channel is \"team\""
        )));
    }
    if body.seat.is_some() || body.target_agent.is_some() {
        return Err(AppError::BadRequest(
            "a #team message has no seat or targetAgent: mention agents in it with @Name".into(),
        ));
    }
    let posted = state
        .runtime
        .post_to_team(text)
        .await
        .map_err(|e| match e {
            PostError::InHall(_) => AppError::Conflict(e.to_string()),
            PostError::Store(_) => AppError::Unavailable(e.to_string()),
        })?;
    Ok(SendResponse {
        event_id: posted.event_id,
        seat: LEAD_SEAT,
        delivery: Delivery::Delivered,
        channel: Some(channel.to_string()),
        mentioned: posted.mentioned,
        nobody: posted.nobody,
    })
}

/// The seats a request names: agent seats only (not the lead's, on the grid).
fn agent_seats_only(seats: &[Seat]) -> Result<(), AppError> {
    match seats
        .iter()
        .find(|&&s| s == LEAD_SEAT || s >= app::domain::SEATS)
    {
        Some(s) => Err(AppError::BadRequest(format!(
            "seat {s} is not an agent seat (0-8 without the lead's 4)"
        ))),
        None => Ok(()),
    }
}

/// `POST /api/agents/summon {seats?}`: a blank session for every empty seat, or for those of
/// `seats` that are empty (`409` when none of them is).
pub async fn summon(
    State(state): State<AppState>,
    body: Option<AppJson<SummonRequest>>,
) -> Result<(StatusCode, Json<SeatsResponse>), AppError> {
    let only = body.and_then(|AppJson(b)| b.seats);
    if let Some(only) = &only {
        agent_seats_only(only)?;
    }
    let seats = state.runtime.summon_only(only.as_deref()).await?;
    if seats.is_empty() && only.as_ref().is_some_and(|o| !o.is_empty()) {
        return Err(AppError::Conflict(
            "none of those seats is empty".to_string(),
        ));
    }
    Ok((StatusCode::ACCEPTED, Json(SeatsResponse { seats })))
}

/// `POST /api/agents/wake {seats?}`: a fresh session for every sleeping agent, or for those of
/// `seats`. Its wake prompt is built by the server from the store; anything else in a body
/// (older pages sent payloads) is ignored.
pub async fn wake(
    State(state): State<AppState>,
    body: Option<AppJson<WakeRequest>>,
) -> Result<(StatusCode, Json<SeatsResponse>), AppError> {
    let only = body.and_then(|AppJson(b)| b.seats);
    if let Some(only) = &only {
        agent_seats_only(only)?;
    }
    let seats = state.runtime.wake_only(only.as_deref()).await;
    Ok((StatusCode::ACCEPTED, Json(SeatsResponse { seats })))
}

/// `POST /api/agents/{pos}/dismiss`: the agent's process stops and its seat sleeps.
pub async fn dismiss(
    State(state): State<AppState>,
    AppPath(pos): AppPath<u8>,
) -> Result<Json<SeatResponse>, AppError> {
    if pos >= app::domain::SEATS {
        return Err(AppError::BadRequest(format!(
            "seat {pos} is not on the grid (0-8)"
        )));
    }
    if !state.runtime.running().contains(&pos) {
        return Err(AppError::Conflict(format!(
            "{} is not awake: there is nothing to put to sleep",
            who(&state, pos)
        )));
    }
    state.runtime.sleep(pos, "dismissed").await;
    Ok(Json(SeatResponse {
        seat: pos,
        made_room: None,
    }))
}

/// `POST /api/agents/{pos}/interrupt`: the agent's current turn is stopped; the agent stays.
pub async fn interrupt(
    State(state): State<AppState>,
    AppPath(pos): AppPath<u8>,
) -> Result<(StatusCode, Json<SeatResponse>), AppError> {
    state.runtime.interrupt(pos).await.map_err(|e| {
        let who = who(&state, pos);
        AppError::Conflict(match e {
            RuntimeError::NotRunning(_) => {
                format!("{who} is not awake: there is nothing to interrupt")
            }
            RuntimeError::NotWorking(_) => {
                format!("{who} is not working on anything: there is nothing to interrupt")
            }
            RuntimeError::NotTakingInput(_, why) => format!("{who} is not taking input: {why}"),
            other => other.to_string(),
        })
    })?;
    Ok((
        StatusCode::ACCEPTED,
        Json(SeatResponse {
            seat: pos,
            made_room: None,
        }),
    ))
}

/// `POST /api/session/end`: every process stops, every alive seat sleeps, a new session begins.
pub async fn end_session(State(state): State<AppState>) -> Result<Json<SessionEnded>, AppError> {
    let end = crate::end_session(&state, "ended by the human").await?;
    let start = crate::session::begin(
        &state.store,
        &state.session,
        &state.lead_name,
        &state.human_name,
    )
    .await?;
    Ok(Json(SessionEnded {
        end_event_id: end.id,
        session: state.session.id().to_string(),
        start_event_id: start.id,
    }))
}

/// The longest deny message the human may give (the agent reads it).
pub const MAX_DENY_MESSAGE_BYTES: usize = 4 * 1024;

/// `POST /api/permissions/{id} {decision: "allow"|"allow_always"|"deny", message?}`: answers
/// an agent's permission request (`allow_always` also applies the CLI's suggested rules, or
/// only the one at `suggestion`).
/// `404` for an unknown request, `409` when it was already answered or the agent that asked has
/// stopped.
pub async fn permission(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppJson(body): AppJson<PermissionAnswer>,
) -> Result<Json<PermissionAnswered>, AppError> {
    if body
        .message
        .as_ref()
        .is_some_and(|m| m.len() > MAX_DENY_MESSAGE_BYTES)
    {
        return Err(AppError::BadRequest(format!(
            "the message is longer than {MAX_DENY_MESSAGE_BYTES} bytes"
        )));
    }
    let state_after = state
        .runtime
        .decide(
            &id,
            body.decision,
            body.message,
            Decider::Human,
            body.suggestion,
        )
        .await
        .map_err(|e| match e {
            DecideError::Unknown(_) => AppError::NoSuch(e.to_string()),
            DecideError::NothingToRemember => AppError::BadRequest(e.to_string()),
            other => AppError::Conflict(other.to_string()),
        })?;
    Ok(Json(PermissionAnswered {
        request_id: id,
        state: state_after,
    }))
}

/// The agent in `seat` as an error names it: by its name, never the seat's number.
fn who(state: &AppState, seat: u8) -> String {
    state
        .runtime
        .seat_name(seat)
        .unwrap_or_else(|| "the agent there".into())
}
