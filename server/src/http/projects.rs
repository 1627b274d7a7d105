//! Projects over HTTP (types from `app::contract`): link, list, one with its branches, put an
//! agent to work, an agent's diff, unlink.

use app::contract::{AgentToWork, DiffQuery, DiffView, NewProject, ProjectSummary, ProjectView};
use app::domain::docs::WorktreeDoc;
use app::domain::projects;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::extract::{AppJson, AppPath, AppQuery};
use crate::error::AppError;
use crate::runtime::projects::ProjectError;
use crate::state::AppState;

impl From<ProjectError> for AppError {
    fn from(e: ProjectError) -> Self {
        match e {
            ProjectError::NoSuch(why) => AppError::NoSuch(why),
            ProjectError::Bad(why) => AppError::BadRequest(why),
            ProjectError::Conflict(why) => AppError::Conflict(why),
            ProjectError::Store(s) => AppError::Store(s),
            ProjectError::Repo(e) => {
                tracing::warn!(error = %e, "git on a project failed");
                AppError::Unavailable(e.to_string())
            }
        }
    }
}

/// `POST /api/projects {"path", "name"?, "base"?, "check"?}` → `201` with the project.
pub async fn link(
    State(state): State<AppState>,
    AppJson(req): AppJson<NewProject>,
) -> Result<(StatusCode, Json<ProjectSummary>), AppError> {
    let id = state.runtime.projects().link(&req).await?;
    let p = state
        .store
        .with_docs(|d| projects::project(d, &id).map(|p| ProjectSummary::of(p, 0)))
        .ok_or_else(|| AppError::Unavailable("the project was not recorded".into()))?;
    Ok((StatusCode::CREATED, Json(p)))
}

/// `GET /api/projects`.
pub async fn list(State(state): State<AppState>) -> Json<Vec<ProjectSummary>> {
    Json(state.store.with_docs(|d| {
        projects::projects(d)
            .into_iter()
            .map(|p| ProjectSummary::of(p, projects::worktrees_of_project(d, &p.project_id).len()))
            .collect()
    }))
}

/// `GET /api/projects/{id}`.
pub async fn one(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<ProjectView>, AppError> {
    Ok(Json(state.runtime.projects().view(&id).await?))
}

/// `POST /api/projects/{id}/agents {"agent"}` → `201` with the worktree.
pub async fn put_to_work(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppJson(req): AppJson<AgentToWork>,
) -> Result<(StatusCode, Json<WorktreeDoc>), AppError> {
    let w = state.runtime.put_to_work(&id, &req.agent).await?;
    Ok((StatusCode::CREATED, Json(w)))
}

/// `GET /api/projects/{id}/diff?agent=…&page=N`.
pub async fn diff(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<DiffQuery>,
) -> Result<Json<DiffView>, AppError> {
    Ok(Json(
        state
            .runtime
            .projects()
            .diff(&id, &q.agent, q.page.unwrap_or(0))
            .await?,
    ))
}

/// `POST /api/projects/{id}/unlink` → `204`.
pub async fn unlink(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    state.runtime.projects().unlink(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
