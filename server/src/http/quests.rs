//! Quests and jobs over HTTP (types from `app::contract`).

use app::contract::{
    job_views, quest_summaries, quest_view, Created, FindingMark, JobView, NewJob, NewQuest,
    QuestSummary, QuestView,
};
use app::domain::quest::artifacts_of;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;

use super::extract::{AppJson, AppPath};
use crate::error::AppError;
use crate::runtime::{QuestEditError, QuestStartError};
use crate::state::AppState;

/// The longest problem, finding comment or job text (bytes).
const MAX_TEXT: usize = 64 * 1024;

impl From<QuestStartError> for AppError {
    fn from(e: QuestStartError) -> Self {
        match e {
            QuestStartError::Busy(_) => AppError::Conflict(e.to_string()),
            QuestStartError::Store(s) => AppError::Store(s),
            _ => AppError::BadRequest(e.to_string()),
        }
    }
}

impl From<QuestEditError> for AppError {
    fn from(e: QuestEditError) -> Self {
        match e {
            QuestEditError::NoSuch => AppError::NoSuch(e.to_string()),
            QuestEditError::Over => AppError::Conflict(e.to_string()),
            QuestEditError::Store(s) => AppError::Store(s),
        }
    }
}

fn bounded(what: &str, text: &str) -> Result<(), AppError> {
    match text.len() > MAX_TEXT {
        true => Err(AppError::BadRequest(format!(
            "{what} is {} bytes; the limit is {MAX_TEXT}",
            text.len()
        ))),
        false => Ok(()),
    }
}

/// `POST /api/quests {"problem", "folder"?, "project"?}` → `202 {"id"}`; `409` while another
/// runs; `400` for a folder not allowed, a project not linked, or both.
pub async fn start(
    State(state): State<AppState>,
    AppJson(q): AppJson<NewQuest>,
) -> Result<(StatusCode, Json<Created>), AppError> {
    bounded("the problem", &q.problem)?;
    let id = state
        .runtime
        .start_quest(&q.problem, q.folder.as_deref(), q.project.as_deref())
        .await?;
    Ok((StatusCode::ACCEPTED, Json(Created { id })))
}

/// `GET /api/quests`: every quest, the newest first.
pub async fn list(State(state): State<AppState>) -> Json<Vec<QuestSummary>> {
    Json(state.store.with_docs(quest_summaries))
}

/// `GET /api/quests/{id}`: its stages, findings and artifacts.
pub async fn one(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<QuestView>, AppError> {
    state
        .store
        .with_docs(|d| quest_view(d, &id))
        .map(Json)
        .ok_or_else(|| AppError::NoSuch("no quest has this id".into()))
}

/// `POST /api/quests/{id}/findings/{fid} {"pinned"?, "struck"?, "comment"?}`.
pub async fn mark(
    State(state): State<AppState>,
    AppPath((quest, finding)): AppPath<(String, String)>,
    AppJson(m): AppJson<FindingMark>,
) -> Result<StatusCode, AppError> {
    bounded("the comment", m.comment.as_deref().unwrap_or(""))?;
    state
        .runtime
        .mark_finding(&quest, &finding, m.pinned, m.struck, m.comment)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/quests/{id}/abandon`.
pub async fn abandon(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    state
        .runtime
        .abandon_quest(&id, "abandoned by the human")
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/quests/{id}/artifacts/{name}.md`: the newest version of an artifact, as a
/// Markdown file to download.
pub async fn artifact(
    State(state): State<AppState>,
    AppPath((quest, file)): AppPath<(String, String)>,
) -> Result<impl IntoResponse, AppError> {
    let name = file
        .strip_suffix(".md")
        .ok_or_else(|| AppError::NoSuch("artifacts are downloaded as NAME.md".into()))?;
    let found = state.store.with_docs(|d| {
        artifacts_of(d, &quest)
            .into_iter()
            .filter(|a| a.name == name)
            .max_by_key(|a| a.version)
            .map(|a| a.text.clone())
    });
    let text = found.ok_or_else(|| AppError::NoSuch("no artifact has this name".into()))?;
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/markdown; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{safe}.md\""),
            ),
        ],
        text,
    ))
}

/// `POST /api/jobs {"title", "text"}` → `202 {"id", "offered", "awake", "said"}`: offered to
/// `--job-offer` awake agents now, the rest a round at a time while nobody claims it.
pub async fn post_job(
    State(state): State<AppState>,
    AppJson(job): AppJson<NewJob>,
) -> Result<(StatusCode, Json<app::contract::JobPosted>), AppError> {
    if job.title.trim().is_empty() {
        return Err(AppError::BadRequest("a job needs a title".into()));
    }
    bounded("the job", &job.text)?;
    let posted = state
        .runtime
        .post_job(job.title.trim(), &job.text, &state.human_name)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(posted)))
}

/// `GET /api/jobs`: the board, the oldest first.
pub async fn jobs(State(state): State<AppState>) -> Json<Vec<JobView>> {
    Json(state.store.with_docs(job_views))
}
