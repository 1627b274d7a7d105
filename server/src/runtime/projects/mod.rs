//! The room of the team's work on the user's code: linked projects and each identity's
//! worktree of them. It decides (what may be linked, who may be put to work, which branch) and
//! records; the git is `crate::repo`'s. Its owner is [`Projects`].
//!
//! - `mod.rs`: link, unlink, put to work.
//! - `ready.rs`: the worktrees a process starts with (made again when removed by hand).
//! - `view.rs`: each agent's branch as git sees it now, overlaps, a diff page.
//! - `radar.rs`: the worktrees followed as they change, overlaps told to the agents.
//! - `index_fresh.rs`: what of a worktree its server index must take in again (the watcher says).
//! - `review.rs`: comments, changes requested, approval.
//! - `merging.rs`: the merge queue, the branch into the base; `merge_steps.rs` the check and
//!   what a merge records on its way.
//! - `carried.rs`: branches carried from another team, brought in (or kept waiting).
//!
//! **Rule:** it names no other room. A worktree belongs to an identity
//! (`{data-dir}/worktrees/{identity}/{project}`), never to a seat.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use app::contract::NewProject;
use app::domain::docs::{identity_by_id, AgentIdentity, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects::{self, branch_for, check_name, name_from_path};

use crate::repo::git::Git;
use crate::repo::shadow::Shadow;
use crate::repo::worktree::{self, Place};
use crate::repo::RepoError;
use crate::runtime::context::Context;
use crate::store::StoreError;

mod carried;
mod index_fresh;
mod merge_steps;
mod merging;
mod radar;
mod ready;
mod review;
mod view;

pub use merging::{Merged, Refused};
pub use radar::Notice;
pub use ready::{ready, Ready};

/// How long one git call on a project may take before it is stopped.
pub const GIT_LIMIT: Duration = Duration::from_secs(60);
/// The limit of a worktree's checkout (100,000 files take 13 s here alone, over a minute beside
/// a busy test suite).
pub const CHECKOUT_LIMIT: Duration = Duration::from_secs(15 * 60);
/// The longest check command.
const MAX_CHECK: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{0}")]
    NoSuch(String),
    /// The request itself is wrong (a path that is not a work tree, a bad name).
    #[error("{0}")]
    Bad(String),
    /// The request is fine but the state refuses it (linked twice, already at work).
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Repo(RepoError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<RepoError> for ProjectError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::Refused(why) => ProjectError::Conflict(why),
            e => ProjectError::Repo(e),
        }
    }
}

/// The projects room's owner.
#[derive(Clone)]
pub struct Projects {
    pub(in crate::runtime) ctx: Context,
    /// One lock per project: its links, worktrees and server indexes change one at a time.
    locks: Arc<std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    /// Which worktrees' server indexes hold their files as they are now.
    fresh: Arc<index_fresh::Fresh>,
}

/// Where a project's shadow git directory is.
pub fn shadow_of(ctx: &Context, project_id: &str, repo_path: &str) -> Shadow {
    Shadow::at(
        &ctx.config()
            .data_dir
            .join("projects")
            .join(project_id)
            .join("git"),
        &PathBuf::from(repo_path).join(".git"),
    )
}

/// Where an identity's worktree of a project is kept.
pub fn worktree_path(ctx: &Context, identity: &str, project_id: &str) -> PathBuf {
    ctx.config()
        .data_dir
        .join("worktrees")
        .join(identity)
        .join(project_id)
}

impl Projects {
    pub fn new(ctx: Context) -> Self {
        Projects {
            ctx,
            locks: Default::default(),
            fresh: Default::default(),
        }
    }

    pub(super) fn lock(&self, project: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
        locks.entry(project.to_string()).or_default().clone()
    }

    /// Links a repository: `path` inside `--allow-dir`, a non-bare work tree; `base` its
    /// current branch unless given. Its id.
    pub async fn link(&self, req: &NewProject) -> Result<String, ProjectError> {
        let cfg = self.ctx.config();
        let found = {
            let (path, allow, data) = (
                req.path.clone(),
                cfg.agents.allow_dir.clone(),
                cfg.data_dir.clone(),
            );
            tokio::task::spawn_blocking(move || crate::repo::link::inspect(&path, &allow, &data))
                .await
                .map_err(|e| ProjectError::Repo(RepoError::Io(e.to_string())))?
                .map_err(|e| ProjectError::Bad(e.to_string()))?
        };
        let work_tree = found.work_tree.display().to_string();
        let name = check_name(
            &req.name
                .clone()
                .unwrap_or_else(|| name_from_path(&work_tree)),
        )
        .map_err(|e| ProjectError::Bad(e.into()))?;
        let check = check_command(req.check.as_deref())?;
        let base = match (req.base.as_deref().map(str::trim), &found.current) {
            (Some(b), _) if !b.is_empty() => b.to_string(),
            (_, Some(current)) => current.clone(),
            _ => {
                return Err(ProjectError::Bad(format!(
                    "{} has a detached HEAD: say which branch is the base",
                    req.path
                )))
            }
        };
        let id = crate::runtime::ids::uuid22();
        let _held = self.lock("link");
        let _held = _held.lock().await;
        self.not_linked_yet(&work_tree, &name)?;
        let shadow = shadow_of(&self.ctx, &id, &work_tree);
        shadow.make(&base, found.sha256)?;
        let git = Git::new(&shadow.dir, GIT_LIMIT);
        if !git
            .ok(&["check-ref-format", &format!("refs/heads/{base}")])
            .await?
            || base.starts_with(projects::BRANCH_PREFIX)
        {
            return Err(ProjectError::Bad(format!(
                "{base} cannot be the base branch"
            )));
        }
        if !worktree::branch_exists(&git, &base).await? {
            let _ = std::fs::remove_dir_all(shadow.dir.parent().unwrap_or(&shadow.dir));
            return Err(ProjectError::Bad(format!(
                "{work_tree} has no branch {base} with a commit on it"
            )));
        }
        self.ctx
            .recorder()
            .record(vec![EventKind::ProjectLinked {
                project_id: id.clone(),
                name,
                path: work_tree,
                base,
                check,
            }])
            .await?;
        Ok(id)
    }

    /// Refused when the folder, or a project of that name, is linked already.
    fn not_linked_yet(&self, work_tree: &str, name: &str) -> Result<(), ProjectError> {
        let twice = self.ctx.store().with_docs(|d| {
            projects::projects(d)
                .into_iter()
                .filter(|p| p.is_linked())
                .find(|p| p.path == work_tree || p.name.eq_ignore_ascii_case(name))
                .map(|p| (p.path == work_tree, p.name.clone()))
        });
        match twice {
            Some((true, other)) => Err(ProjectError::Conflict(format!(
                "{work_tree} is already linked, as {other}"
            ))),
            Some((false, other)) => Err(ProjectError::Conflict(format!(
                "a project named {other} is already linked: give this one another name"
            ))),
            None => Ok(()),
        }
    }

    /// Unlinks a project: nothing in its repository changes; its branches and worktrees stay.
    pub async fn unlink(&self, id: &str) -> Result<(), ProjectError> {
        let linked = self
            .ctx
            .store()
            .with_docs(|d| projects::project(d, id).map(|p| p.is_linked()));
        match linked {
            None => Err(ProjectError::NoSuch("no project has this id".into())),
            Some(false) => Ok(()),
            Some(true) => Ok(self
                .ctx
                .recorder()
                .record(vec![EventKind::ProjectUnlinked {
                    project_id: id.to_string(),
                }])
                .await?),
        }
    }

    /// Puts the identity `agent` to work on the project: its worktree on its own branch from
    /// `start` (the base's head; a fork's parent's branch head; a carried branch's head).
    pub async fn put_to_work(
        &self,
        project_id: &str,
        agent: &str,
        start: Start<'_>,
    ) -> Result<WorktreeDoc, ProjectError> {
        let from = match start {
            Start::Parent(parent) => Some(parent),
            _ => None,
        };
        let held = self.lock(project_id);
        let _held = held.lock().await;
        let (project, who, taken) = self.ctx.store().with_docs(|d| {
            (
                projects::project(d, project_id).cloned(),
                identity_by_id(d, agent).cloned(),
                projects::worktrees_of_project(d, project_id)
                    .into_iter()
                    .map(|w| (w.identity_id.clone(), w.branch.clone()))
                    .collect::<Vec<_>>(),
            )
        });
        let project = project
            .filter(|p| p.is_linked())
            .ok_or_else(|| ProjectError::NoSuch("no linked project has this id".into()))?;
        let who = who.ok_or_else(|| ProjectError::NoSuch("no agent has this id".into()))?;
        // A fork is given its worktree before it has chosen a name: it is named from its
        // parent's branch until then.
        let (name, stem) = match (named(&who), from) {
            (Ok(name), _) => (name.clone(), who.inbox().unwrap_or(name)),
            (Err(_), Some(parent)) => (
                format!("{}'s fork", parent.agent),
                format!(
                    "{}-fork",
                    parent.branch.trim_start_matches(projects::BRANCH_PREFIX)
                ),
            ),
            (Err(e), None) => return Err(e),
        };
        if let Some((_, branch)) = taken.iter().find(|(i, _)| i == agent) {
            return Err(ProjectError::Conflict(format!(
                "{name} is already at work on {} (branch {branch})",
                project.name
            )));
        }
        let shadow = shadow_of(&self.ctx, project_id, &project.path);
        shadow.ensure(&project.base)?;
        let git = Git::new(&shadow.dir, GIT_LIMIT);
        let carried = matches!(start, Start::Commit(_));
        let branch = free_branch(&git, (&stem, &taken, carried), &project, &name).await?;
        let (start, parent) = start_of(&git, &project, from, start).await?;
        let path = worktree_path(&self.ctx, agent, project_id);
        let place = Place::new(&path, agent, project_id, &branch);
        worktree::make(&git.limited(CHECKOUT_LIMIT), &shadow, &place, &start).await?;
        let made = EventKind::WorktreeMade {
            project_id: project_id.to_string(),
            identity_id: agent.to_string(),
            agent: name,
            branch,
            path: path.display().to_string(),
            started_from: start,
            parent_branch: parent,
        };
        self.ctx.recorder().record(vec![made]).await?;
        self.ctx
            .store()
            .with_docs(|d| projects::worktree(d, project_id, agent).cloned())
            .ok_or_else(|| {
                ProjectError::Repo(RepoError::Io("the worktree was not recorded".into()))
            })
    }
}

/// Where an agent's new branch starts.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// The base's head.
    Base,
    /// A fork's: its parent's branch head (the branch is named from the parent's).
    Parent(&'a WorktreeDoc),
    /// A branch carried from another team (its head, brought in first).
    Commit(&'a str),
}

/// The identity's name, or why it cannot be put to work.
fn named(who: &AgentIdentity) -> Result<String, ProjectError> {
    who.name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| {
            ProjectError::Conflict(
                "this agent has no name yet: put it to work once it has one".into(),
            )
        })
}

/// The branch an identity is put to work on: `soulgrid/<stem>`, not one another identity of
/// the project has; a carried branch whose name this repository has already gets the next
/// free name; refused when the repository has a branch of that name Soulgrid did not make.
async fn free_branch(
    git: &Git,
    (stem, taken, carried): (&str, &[(String, String)], bool),
    project: &app::domain::docs::ProjectDoc,
    name: &str,
) -> Result<String, ProjectError> {
    let mut branch = branch_for(stem, |b| taken.iter().any(|(_, t)| t == b));
    if carried {
        for n in 2..100 {
            if !worktree::branch_exists(git, &branch).await? {
                break;
            }
            branch = branch_for(&format!("{stem}-{n}"), |b| {
                taken.iter().any(|(_, t)| t == b)
            });
        }
    }
    if worktree::branch_exists(git, &branch).await? {
        return Err(ProjectError::Conflict(format!(
            "{} already has a branch {branch} that Soulgrid did not make: rename or remove \
             it, and put {name} to work again",
            project.name
        )));
    }
    Ok(branch)
}

/// The commit a worktree starts from (and a fork's parent's branch): a carried commit, the
/// parent's branch head, or the base's head.
async fn start_of(
    git: &Git,
    project: &app::domain::docs::ProjectDoc,
    from: Option<&WorktreeDoc>,
    start: Start<'_>,
) -> Result<(String, Option<String>), ProjectError> {
    Ok(match (from, start) {
        (_, Start::Commit(sha)) => (
            git.text(&["rev-parse", "--verify", "-q", &format!("{sha}^{{commit}}")])
                .await
                .map_err(|_| {
                    ProjectError::Conflict(format!("{} has no commit {sha}", project.name))
                })?,
            None,
        ),
        (Some(parent), _) => (
            git.text(&[
                "rev-parse",
                &format!("refs/heads/{}^{{commit}}", parent.branch),
            ])
            .await?,
            Some(parent.branch.clone()),
        ),
        (None, _) => (
            git.text(&[
                "rev-parse",
                "--verify",
                "-q",
                &format!("refs/heads/{}^{{commit}}", project.base),
            ])
            .await
            .map_err(|_| {
                ProjectError::Conflict(format!(
                    "the base branch {} of {} does not exist any more",
                    project.base, project.name
                ))
            })?,
            None,
        ),
    })
}

/// A project's check command: one line, at most [`MAX_CHECK`] bytes; none when empty.
fn check_command(given: Option<&str>) -> Result<Option<String>, ProjectError> {
    match given.map(str::trim) {
        Some(c) if c.len() > MAX_CHECK => Err(ProjectError::Bad(format!(
            "the check command is at most {MAX_CHECK} bytes"
        ))),
        Some(c) if c.contains('\n') || c.contains('\0') => {
            Err(ProjectError::Bad("the check command is one line".into()))
        }
        Some("") | None => Ok(None),
        Some(c) => Ok(Some(c.to_string())),
    }
}
