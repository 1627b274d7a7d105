//! What an identity knows, over HTTP: its vault (every version), the human's edit of a vault
//! file, and its work-cycle commits (types from `app::contract`).

use app::contract::{
    commits_view, knowledge_view, CommitView, KnowledgeCaptured, KnowledgeEdit, KnowledgeSaved,
    KnowledgeView,
};
use axum::extract::State;
use axum::Json;

use super::extract::{AppJson, AppPath, AppQuery};
use crate::error::AppError;
use crate::runtime::{CaptureError, EditError};
use crate::state::AppState;
use app::contract::endpoints::VersionQuery;

impl From<EditError> for AppError {
    fn from(e: EditError) -> Self {
        match e {
            EditError::NoSuch => AppError::NoSuch(e.to_string()),
            EditError::Knowledge(_) => AppError::BadRequest(e.to_string()),
            EditError::Store(s) => AppError::Store(s),
        }
    }
}

impl From<CaptureError> for AppError {
    fn from(e: CaptureError) -> Self {
        match e {
            CaptureError::NoSuch => AppError::NoSuch(e.to_string()),
            CaptureError::NotAwake(_) => AppError::Conflict(e.to_string()),
            CaptureError::Store(s) => AppError::Store(s),
        }
    }
}

/// `GET /api/agents/{id}/knowledge[?version=N]` → the vault's files at that version (the
/// current one by default) and every version; `404` for an unknown id or version.
pub async fn knowledge(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<VersionQuery>,
) -> Result<Json<KnowledgeView>, AppError> {
    state
        .store
        .with_docs(|d| knowledge_view(d, &id, q.version))
        .map(Json)
        .ok_or_else(|| {
            AppError::NoSuch("no agent has this id, or its vault no such version".into())
        })
}

/// `PUT /api/agents/{id}/knowledge/{path} {"text"}` → `200 {"version"}`: the human's text for
/// one vault file (empty removes it), a new version by the human; the agent is told.
pub async fn edit(
    State(state): State<AppState>,
    AppPath((id, path)): AppPath<(String, String)>,
    AppJson(edit): AppJson<KnowledgeEdit>,
) -> Result<Json<KnowledgeSaved>, AppError> {
    let version = state.runtime.edit_knowledge(&id, &path, &edit.text).await?;
    Ok(Json(KnowledgeSaved { version }))
}

/// `POST /api/agents/{id}/knowledge/capture` → `200 {"version", "changed", "at"}`: the awake
/// agent's vault taken from its folder now; `409` when it is not awake.
pub async fn capture(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<KnowledgeCaptured>, AppError> {
    Ok(Json(state.runtime.capture_knowledge(&id).await?))
}

/// `GET /api/agents/{id}/commits` → its work-cycle commits, oldest first.
pub async fn commits(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<Vec<CommitView>>, AppError> {
    state
        .store
        .with_docs(|d| commits_view(d, &id))
        .map(Json)
        .ok_or_else(|| AppError::NoSuch("no agent has this id".into()))
}
