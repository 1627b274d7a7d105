//! Projects over HTTP (types from `app::contract`): link, list, one with its branches, put an
//! agent to work, an agent's diff, unlink; comments, changes requested, approval, merge.

use app::contract::{
    AgentToWork, ApproveRequest, Approved, Created, DiffQuery, DiffView, FileExcerpt, FileQuery,
    LineComment, MergeDone, MergeRefusal, MergeRequest, NewProject, ProjectSummary, ProjectView,
};
use app::domain::docs::WorktreeDoc;
use app::domain::projects;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::extract::{AppJson, AppPath, AppQuery};
use crate::error::AppError;
use crate::repo::merge::Strategy;
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
    // Branches carried from another team for a project of this name come in now.
    state.runtime.projects().bring_carried().await;
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

/// `GET /api/projects/folders`: where a project may be linked from (`--allow-dir`).
pub async fn folders(State(state): State<AppState>) -> Json<Vec<String>> {
    let allow = state.runtime.config().agents.allow_dir.clone();
    Json(crate::repo::link::folders(&allow))
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

/// `GET /api/projects/{id}/file?path=…&agent=…&line=N`.
pub async fn file(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<FileQuery>,
) -> Result<Json<FileExcerpt>, AppError> {
    Ok(Json(
        state
            .runtime
            .projects()
            .file(&id, &q.path, q.agent.as_deref(), q.line)
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

/// `POST /api/projects/{id}/branches/{identity}/comments {"file", "line", "text"}` → `201`.
pub async fn comment(
    State(state): State<AppState>,
    AppPath((id, identity)): AppPath<(String, String)>,
    AppJson(c): AppJson<LineComment>,
) -> Result<(StatusCode, Json<Created>), AppError> {
    let id = state
        .runtime
        .projects()
        .comment(&id, &identity, &c.file, c.line, &c.text)
        .await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

/// `POST …/request-changes` → `204`.
pub async fn request_changes(
    State(state): State<AppState>,
    AppPath((id, identity)): AppPath<(String, String)>,
) -> Result<StatusCode, AppError> {
    state.runtime.request_changes(&id, &identity).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/ask-rebase` → `204`: the agent is asked to rebase onto the base's head.
pub async fn ask_rebase(
    State(state): State<AppState>,
    AppPath((id, identity)): AppPath<(String, String)>,
) -> Result<StatusCode, AppError> {
    state.runtime.ask_rebase(&id, &identity).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/approve` → the head approved.
pub async fn approve(
    State(state): State<AppState>,
    AppPath((id, identity)): AppPath<(String, String)>,
    AppJson(a): AppJson<ApproveRequest>,
) -> Result<Json<Approved>, AppError> {
    let (head, uncommitted) = state
        .runtime
        .approve_branch(&id, &identity, a.head.as_deref())
        .await?;
    Ok(Json(Approved { head, uncommitted }))
}

/// `POST …/merge {"strategy"?}` → the base's new head, or `409` with why, the files or the
/// check's output.
pub async fn merge(
    State(state): State<AppState>,
    AppPath((id, identity)): AppPath<(String, String)>,
    AppJson(m): AppJson<MergeRequest>,
) -> Result<Response, AppError> {
    let strategy = Strategy::parse(m.strategy.as_deref()).map_err(AppError::BadRequest)?;
    Ok(
        match state.runtime.merge_branch(&id, &identity, strategy).await? {
            Ok((commit, uncommitted)) => Json(MergeDone {
                commit,
                uncommitted,
            })
            .into_response(),
            Err(r) => (
                StatusCode::CONFLICT,
                Json(MergeRefusal {
                    error: r.why,
                    files: r.files,
                    output: r.output,
                    exit: r.exit,
                }),
            )
                .into_response(),
        },
    )
}
