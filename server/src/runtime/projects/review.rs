//! Review of an agent's branch: the human's comments on lines, changes requested in one
//! message, an approval of the head the human saw, a review the agent asks for. The merge that
//! follows is `merge.rs`.

use std::path::{Path, PathBuf};

use app::domain::docs::{ProjectDoc, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects;

use crate::fsafe::{read_in, Found};

use super::{ProjectError, Projects};

/// The longest comment.
const MAX_COMMENT: usize = 16 * 1024;
/// Lines of code shown around a commented line.
const AROUND: usize = 3;

impl Projects {
    /// The project and the worktree of `identity` in it.
    pub(super) fn branch(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<(ProjectDoc, WorktreeDoc), ProjectError> {
        self.ctx
            .store()
            .with_docs(|d| {
                Some((
                    projects::project(d, project)?.clone(),
                    projects::worktree(d, project, identity)?.clone(),
                ))
            })
            .ok_or_else(|| ProjectError::NoSuch("this agent has no branch in this project".into()))
    }

    /// The human comments on `line` of `file` in the agent's diff; the comment's id.
    pub async fn comment(
        &self,
        project: &str,
        identity: &str,
        file: &str,
        line: u32,
        text: &str,
    ) -> Result<String, ProjectError> {
        let (_, w) = self.branch(project, identity)?;
        let text = text.trim();
        if text.is_empty() || text.len() > MAX_COMMENT {
            return Err(ProjectError::Bad(format!(
                "a comment is 1 to {MAX_COMMENT} bytes of text"
            )));
        }
        let rel = inside(file)?;
        if line == 0 {
            return Err(ProjectError::Bad("lines are counted from 1".into()));
        }
        let code = around(Path::new(&w.path), &rel, line as usize);
        let id = crate::runtime::ids::uuid22();
        self.ctx
            .recorder()
            .record(vec![EventKind::ReviewCommented {
                project_id: project.into(),
                identity_id: identity.into(),
                comment_id: id.clone(),
                file: rel.display().to_string(),
                line,
                text: text.into(),
                code,
            }])
            .await?;
        Ok(id)
    }

    /// Sends every open comment to the agent in one message (the text, for the façade to
    /// deliver as the human's) and records it.
    pub async fn request_changes(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<String, ProjectError> {
        let (p, w) = self.branch(project, identity)?;
        let text = projects::changes_message(&p.name, &w).ok_or_else(|| {
            ProjectError::Conflict(
                "there is no open comment to send: comment on a line first".into(),
            )
        })?;
        self.ctx
            .recorder()
            .record(vec![EventKind::ChangesRequested {
                project_id: project.into(),
                identity_id: identity.into(),
            }])
            .await?;
        Ok(text)
    }

    /// What the agent is asked when its branch is to be rebased onto the base as it is now:
    /// the base's head and the files that conflict (the refused merge's, else those the base
    /// changed too). `409` when the branch already starts from the base's head.
    pub async fn rebase_request(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<String, ProjectError> {
        let (p, w) = self.branch(project, identity)?;
        if !p.is_linked() {
            return Err(ProjectError::Conflict(format!("{} is unlinked", p.name)));
        }
        super::shadow_of(&self.ctx, &p.project_id, &p.path).ensure(&p.base)?;
        let git = self.git(&p);
        let (head, base_head) = (rev(&git, &w.branch).await?, rev(&git, &p.base).await?);
        if git.text(&["merge-base", &base_head, &head]).await? == base_head {
            return Err(ProjectError::Conflict(format!(
                "{} already starts from the head of {}: there is nothing to rebase onto",
                w.branch, p.base
            )));
        }
        let files = match w.merge.as_ref().filter(|m| !m.files.is_empty()) {
            Some(refused) => refused.files.clone(),
            None => w.base_overlaps.clone(),
        };
        let mut text = format!(
            "The human asks you to rebase your branch {} onto {} of {} (now at {}): in your \
             worktree, `git rebase {}`, resolve what conflicts, commit, and ask for a review again.",
            w.branch,
            p.base,
            p.name,
            short(&base_head),
            p.base
        );
        if !files.is_empty() {
            text.push_str(&format!("\nConflicting files: {}.", listed(&files)));
        }
        Ok(text)
    }

    /// The agent (or the human) asks for a review.
    pub async fn request_review(
        &self,
        project: &str,
        identity: &str,
        note: Option<String>,
    ) -> Result<(), ProjectError> {
        self.branch(project, identity)?;
        Ok(self
            .ctx
            .recorder()
            .record(vec![EventKind::ReviewRequested {
                project_id: project.into(),
                identity_id: identity.into(),
                note,
            }])
            .await?)
    }

    /// Approves the branch at `seen` (the head the human looked at), or at its head now when
    /// none is given, and the base as it is now. What the worktree has not committed is not
    /// part of it: named, with what the agent is to be told.
    pub async fn approve(
        &self,
        project: &str,
        identity: &str,
        seen: Option<&str>,
    ) -> Result<Approval, ProjectError> {
        let (p, w) = self.branch(project, identity)?;
        if !p.is_linked() {
            return Err(ProjectError::Conflict(format!("{} is unlinked", p.name)));
        }
        super::shadow_of(&self.ctx, &p.project_id, &p.path).ensure(&p.base)?;
        // Under the project's lock, as the radar looks: a look it began before the agent's last
        // commit is recorded before this approval, never after it (its older head would void
        // the approval just made).
        let held = self.lock(&p.project_id);
        let looking = held.lock().await;
        let git = self.git(&p);
        let head = rev(&git, &w.branch).await?;
        if seen.is_some_and(|s| s != head) {
            return Err(ProjectError::Conflict(format!(
                "{} has moved since you looked (it is at {} now): look again",
                w.branch,
                short(&head)
            )));
        }
        let base_head = rev(&git, &p.base).await?;
        if git.text(&["merge-base", &base_head, &head]).await? == head {
            return Err(ProjectError::Conflict(format!(
                "{} has nothing that {} does not have yet",
                w.branch, p.base
            )));
        }
        self.ctx
            .recorder()
            .record(vec![EventKind::BranchApproved {
                project_id: project.into(),
                identity_id: identity.into(),
                head: head.clone(),
                base_head: Some(base_head),
            }])
            .await?;
        drop(looking);
        let uncommitted = self.loose(&p, &w).await?;
        let notice = (!uncommitted.is_empty()).then(|| {
            format!(
                "Your branch {} of {} was approved at {}. Not part of it, because not committed in \
                 your worktree: {}. Commit them and ask for a review if they belong to the work.",
                w.branch,
                p.name,
                short(&head),
                listed(&uncommitted)
            )
        });
        Ok(Approval {
            head,
            uncommitted,
            notice,
        })
    }
}

/// An approval: the head approved, the worktree's files left out, what the agent is told.
pub struct Approval {
    pub head: String,
    pub uncommitted: Vec<String>,
    pub notice: Option<String>,
}

/// Files named in a message: the first twenty, and how many more.
pub(super) fn listed(files: &[String]) -> String {
    let mut text = files
        .iter()
        .take(20)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > 20 {
        text.push_str(&format!(" and {} more", files.len() - 20));
    }
    text
}

pub(super) async fn rev(git: &crate::repo::git::Git, branch: &str) -> Result<String, ProjectError> {
    git.text(&[
        "rev-parse",
        "--verify",
        "-q",
        &format!("refs/heads/{branch}^{{commit}}"),
    ])
    .await
    .map_err(|_| ProjectError::Conflict(format!("the branch {branch} does not exist")))
}

pub(super) fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// A relative path inside a worktree, or why not.
fn inside(file: &str) -> Result<PathBuf, ProjectError> {
    let p = Path::new(file.trim());
    let ok = !file.trim().is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    match ok {
        true => Ok(p.to_path_buf()),
        false => Err(ProjectError::Bad(format!(
            "{file} is not a path inside the project"
        ))),
    }
}

/// The lines around `line` of `rel` in the worktree (read without following a link, bounded).
fn around(tree: &Path, rel: &Path, line: usize) -> String {
    let Ok(Found::Bytes(bytes)) = read_in(tree, rel, 4 * 1024 * 1024) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let from = line.saturating_sub(AROUND + 1);
    text.lines()
        .enumerate()
        .skip(from)
        .take(2 * AROUND + 1)
        .map(|(i, l)| format!("{:>5} {}{l}", i + 1, if i + 1 == line { '>' } else { ' ' }))
        .collect::<Vec<_>>()
        .join("\n")
}
