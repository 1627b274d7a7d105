//! The worktrees a process starts with: every worktree its identity holds in a linked project,
//! made again first when it was removed or broken by hand (said on the seat), added to the
//! process (`--add-dir`) and named in its prompt.

use std::path::{Path, PathBuf};

use app::domain::docs::{identity, ProjectDoc, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects::{self, where_you_work};
use app::domain::Seat;

use crate::repo::git::Git;
use crate::repo::worktree::{self, Place};
use crate::repo::RepoError;
use crate::runtime::context::Context;

use super::{shadow_of, GIT_LIMIT};

/// What a process of one seat starts with.
#[derive(Clone, Debug, Default)]
pub struct Ready {
    /// Each worktree, for `--add-dir`.
    pub dirs: Vec<PathBuf>,
    /// What the agent's git writes in each worktree's repository (its sandbox shows the rest
    /// of that git folder read-only: the human's git runs its `config` and `hooks`).
    pub git: Vec<GitPlaces>,
    /// Where it works, for its system prompt.
    pub prompt: Option<String>,
}

/// Where an agent's git writes in a repository's git folder (`common`): the objects, its
/// branches' refs and their logs (`refs/heads/soulgrid/…`), and its worktree's own folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitPlaces {
    pub common: PathBuf,
    pub writable: Vec<PathBuf>,
}

impl GitPlaces {
    /// `w`'s places in the repository whose git folder is `common` (the branches' folders
    /// made if missing, so they can be bound).
    fn of(common: PathBuf, w: &WorktreeDoc) -> GitPlaces {
        let place = Place::new(Path::new(&w.path), &w.identity_id, &w.project_id, &w.branch);
        let branches = Path::new(&w.branch).parent().unwrap_or(Path::new(""));
        let mut writable = vec![common.join("objects")];
        for refs in ["refs/heads", "logs/refs/heads"] {
            let dir = common.join(refs).join(branches);
            let _ = std::fs::create_dir_all(&dir);
            writable.push(dir);
        }
        writable.push(common.join("worktrees").join(&place.name));
        GitPlaces { common, writable }
    }
}

/// A fork's worktrees: one of each project its parent works on, on a branch started from the
/// parent's branch head (it inherits the code as it inherits the conversation), made the first
/// time it starts.
async fn inherit(ctx: &Context, seat: Seat) {
    let owed: Vec<(String, String, WorktreeDoc)> = ctx.store().with_docs(|d| {
        let Some(who) = identity(d, seat) else {
            return Vec::new();
        };
        let (me, Some(parent)) = (who.stable_id(), who.parent_uuid.clone()) else {
            return Vec::new();
        };
        projects::worktrees_of(d, &parent)
            .into_iter()
            .filter(|w| projects::worktree(d, &w.project_id, &me).is_none())
            .map(|w| (w.project_id.clone(), me.clone(), w.clone()))
            .collect()
    });
    for (project, me, parent) in owed {
        let made = super::Projects::new(ctx.clone())
            .put_to_work(&project, &me, super::Start::Parent(&parent))
            .await;
        if let Err(e) = made {
            tracing::warn!(seat, %project, error = %e, "a fork's worktree could not be made");
            ctx.record(vec![EventKind::RuntimeError {
                seat: Some(seat),
                message: format!(
                    "The fork's worktree of {} could not be made: {e}",
                    parent.branch
                ),
            }])
            .await;
        }
    }
}

/// The worktrees of the identity in `seat`, each made ready (a fork's made first).
pub async fn ready(ctx: &Context, seat: Seat) -> Ready {
    inherit(ctx, seat).await;
    let list: Vec<(WorktreeDoc, ProjectDoc)> = ctx.store().with_docs(|d| {
        let Some(who) = identity(d, seat) else {
            return Vec::new();
        };
        projects::worktrees_of(d, &who.stable_id())
            .into_iter()
            .filter_map(|w| Some((w.clone(), projects::project(d, &w.project_id)?.clone())))
            .collect()
    });
    let mut ready = Ready::default();
    let mut fit = Vec::new();
    for (mut w, project) in list {
        // Where this data directory keeps it: a team restored into another one finds its
        // worktrees there, made again.
        let here = super::worktree_path(ctx, &w.identity_id, &w.project_id);
        let moved = Path::new(&w.path) != here;
        w.path = here.display().to_string();
        match make_ready(ctx, &w, &project).await {
            Ok(None) => {}
            Ok(Some((head, why))) => {
                ctx.record(vec![EventKind::WorktreeRemade {
                    project_id: w.project_id.clone(),
                    identity_id: w.identity_id.clone(),
                    head,
                    why,
                    path: moved.then(|| w.path.clone()),
                }])
                .await
            }
            Err(e) => {
                tracing::warn!(seat, project = %project.name, error = %e, "a worktree could not be made ready");
                ctx.record(vec![EventKind::RuntimeError {
                    seat: Some(seat),
                    message: format!(
                        "{}'s worktree of {} could not be made ready: {e}",
                        w.agent, project.name
                    ),
                }])
                .await;
                continue;
            }
        }
        ready.dirs.push(PathBuf::from(&w.path));
        let common = shadow_of(ctx, &w.project_id, &project.path).common;
        ready.git.push(GitPlaces::of(common, &w));
        fit.push(w);
    }
    ready.prompt = ctx
        .store()
        .with_docs(|d| where_you_work(d, &fit.iter().collect::<Vec<_>>()));
    ready
}

/// Mends one worktree: `Some((head, why))` when it was made again.
async fn make_ready(
    ctx: &Context,
    w: &WorktreeDoc,
    project: &ProjectDoc,
) -> Result<Option<(String, String)>, RepoError> {
    let shadow = shadow_of(ctx, &w.project_id, &project.path);
    shadow.ensure(&project.base)?;
    let git = Git::new(&shadow.dir, GIT_LIMIT);
    let place = Place::new(Path::new(&w.path), &w.identity_id, &w.project_id, &w.branch);
    worktree::ensure(
        &git.limited(super::CHECKOUT_LIMIT),
        &shadow,
        &place,
        &w.started_from,
    )
    .await
}
