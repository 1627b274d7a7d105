//! Retire, the Hall and recall over HTTP (types from `app::contract`).

use app::contract::{
    agent_view, hall_entry, AgentView, ForkRequest, HallEntry, KillRequest, KillResponse,
    RecallRequest, SeatResponse,
};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::extract::{AppJson, AppPath};
use crate::error::AppError;
use crate::runtime::{ForkError, HallError};
use crate::state::AppState;

impl From<HallError> for AppError {
    fn from(e: HallError) -> Self {
        match e {
            HallError::NotInHall(_) => AppError::NoSuch(e.to_string()),
            HallError::Store(_) => AppError::Unavailable(e.to_string()),
            _ => AppError::Conflict(e.to_string()),
        }
    }
}

/// `POST /api/agents/{pos}/kill {"cascade": bool}` → `200 {"retired": [id, ...]}` (with
/// `cascade`, its seated descendants first, deepest first); `409` for an empty seat or the
/// lead's.
pub async fn kill(
    State(state): State<AppState>,
    AppPath(pos): AppPath<u8>,
    AppJson(request): AppJson<KillRequest>,
) -> Result<Json<KillResponse>, AppError> {
    let retired = state
        .runtime
        .retire_branch(pos, "retired by the human", request.cascade)
        .await?;
    Ok(Json(KillResponse { retired }))
}

/// `GET /api/hall`: the retired identities, most recently retired first.
pub async fn hall(State(state): State<AppState>) -> Json<Vec<HallEntry>> {
    let mut entries: Vec<HallEntry> = state
        .store
        .with_docs(|d| app::domain::docs::hall(d).map(hall_entry).collect());
    entries.sort_by_key(|e| std::cmp::Reverse(e.retired_at));
    Json(entries)
}

/// `GET /api/agents/{id}`: one identity's whole life (souls, sessions, ledger, lineage),
/// seated or in the Hall; `404` for an id nobody has.
pub async fn agent(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<AgentView>, AppError> {
    state
        .store
        .with_docs(|d| agent_view(d, &id))
        .map(Json)
        .ok_or_else(|| AppError::NoSuch("no agent has this id".into()))
}

/// `POST /api/hall/{id}/recall {"seat"?}` → `202 {"seat": n, "madeRoom"?}`; `404` for an id
/// not in the Hall, `409` when no seat is empty and nobody sleeps (or the one asked for is
/// not empty).
pub async fn recall(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppJson(request): AppJson<RecallRequest>,
) -> Result<(StatusCode, Json<SeatResponse>), AppError> {
    let seated = state.runtime.recall(&id, request.seat).await?;
    Ok((StatusCode::ACCEPTED, Json(seat_response(seated))))
}

impl From<ForkError> for AppError {
    fn from(e: ForkError) -> Self {
        match e {
            ForkError::Seat(e) => e.into(),
            other => AppError::Conflict(other.to_string()),
        }
    }
}

/// `POST /api/agents/{pos}/fork {"prompt"?, "seat"?}` → `202 {"seat": n, "madeRoom"?}` (the
/// child starts once the parent's running turn has ended); `409` when no seat is empty and
/// nobody sleeps, or there is nothing to fork.
pub async fn fork(
    State(state): State<AppState>,
    AppPath(pos): AppPath<u8>,
    AppJson(request): AppJson<ForkRequest>,
) -> Result<(StatusCode, Json<SeatResponse>), AppError> {
    let message = request
        .prompt
        .filter(|p| !p.trim().is_empty())
        .map(|p| (state.human_name.to_string(), p));
    let seated = state.runtime.fork(pos, message, request.seat).await?;
    Ok((StatusCode::ACCEPTED, Json(seat_response(seated))))
}

fn seat_response(seated: crate::runtime::Seated) -> SeatResponse {
    SeatResponse {
        seat: seated.seat,
        made_room: seated.made_room,
    }
}
