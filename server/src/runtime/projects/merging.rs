//! The merge of an approved branch: queued per project, one at a time; the check in the
//! worktree (its output recorded as it grows), then the branch into the base. Every refusal says
//! why, changes nothing in the base, and is told to the agent.

use std::path::{Path, PathBuf};

use app::domain::docs::{MergeState, ProjectDoc, Review, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects;

use crate::fsafe::{read_in, Found};
use crate::repo::merge::{self, Refusal, Strategy};
use crate::repo::RepoError;

use super::review::{rev, short};
use super::{Notice, ProjectError, Projects};

/// A merge that did not happen: why, the files that conflict, the check's output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    pub why: String,
    pub files: Vec<String>,
    pub output: String,
    pub exit: Option<i32>,
}

/// What a merge came to (the base's new head and the worktree's files it left out, not
/// committed), and what the agent is told.
pub struct Merged {
    pub result: Result<(String, Vec<String>), Refused>,
    pub notice: Notice,
}

impl Projects {
    /// Merges the approved branch into the base: queued behind the project's other merges,
    /// its check run in the worktree, then the branch brought in.
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    pub async fn merge(
        &self,
        project: &str,
        identity: &str,
        strategy: Strategy,
    ) -> Result<Merged, ProjectError> {
        // Asked twice at once, one merge: looked at and queued under one lock.
        let asking = self.lock(&format!("ask:{project}:{identity}"));
        let asked = asking.lock().await;
        let (p, w) = self.branch(project, identity)?;
        if !p.is_linked() {
            return Err(ProjectError::Conflict(format!("{} is unlinked", p.name)));
        }
        let approved = match (w.review, &w.approved_head) {
            (Review::Approved, Some(head)) => head.clone(),
            _ => {
                return Err(ProjectError::Conflict(format!(
                    "{}'s branch is not approved: approve it first",
                    w.agent
                )))
            }
        };
        if w.merge.as_ref().is_some_and(|m| !m.state.is_over()) {
            return Err(ProjectError::Conflict(format!(
                "{}'s branch is already being merged",
                w.agent
            )));
        }
        self.moved(project, identity, MergeState::Queued, |e| {
            if let EventKind::MergeMoved { strategy: s, .. } = e {
                *s = Some(strategy.as_str().into());
            }
        })
        .await?;
        drop(asked);
        let queue = self.lock(&format!("merge:{project}"));
        let _turn = queue.lock().await;
        let result = self.merge_now(&p, &w, &approved, strategy).await;
        let result = match result {
            Ok(r) => r,
            Err(e) => Err(Refused {
                why: e.to_string(),
                ..Default::default()
            }),
        };
        // Exactly the approved commit was merged: what the worktree has not committed stayed.
        let left_out = match &result {
            Ok(_) => self.loose(&p, &w).await.unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        let (state, text) = match &result {
            Ok(commit) => (MergeState::Merged, merged_text(&p, &w, commit, &left_out)),
            Err(r) => (MergeState::Refused, refusal_text(&p, &w, r)),
        };
        let r = result.clone();
        self.moved(project, identity, state, move |e| {
            if let EventKind::MergeMoved {
                commit,
                why,
                files,
                output,
                exit,
                ..
            } = e
            {
                match r {
                    Ok(c) => *commit = Some(c),
                    Err(r) => {
                        *why = Some(r.why);
                        *files = r.files;
                        *output = (!r.output.is_empty()).then_some(r.output);
                        *exit = r.exit;
                    }
                }
            }
        })
        .await?;
        // The base moved: every branch of the project is looked at again (what is merged no
        // longer differs; the others' counts and overlaps change).
        if state == MergeState::Merged {
            let ids: Vec<String> = self.ctx.store().with_docs(|d| {
                projects::worktrees_of_project(d, project)
                    .into_iter()
                    .map(|w| w.identity_id.clone())
                    .collect()
            });
            for id in ids {
                if let Err(e) = self.refresh(project, &id).await {
                    tracing::debug!(%project, identity = %id, error = %e, "a branch could not be looked at after a merge");
                }
            }
        }
        Ok(Merged {
            result: result.map(|commit| (commit, left_out)),
            notice: Notice {
                identity: identity.into(),
                text,
            },
        })
    }

    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    async fn merge_now(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        approved: &str,
        strategy: Strategy,
    ) -> Result<Result<String, Refused>, ProjectError> {
        // The shadow exactly as the server made it, whatever wrote into it meanwhile.
        super::shadow_of(&self.ctx, &p.project_id, &p.path).ensure(&p.base)?;
        let why = |s: String| {
            Ok(Err(Refused {
                why: s,
                ..Default::default()
            }))
        };
        let git = self
            .git(p)
            .by(&self.ctx.names().human, "human@soulgrid.local");
        let head = rev(&git, &w.branch).await?;
        if head != approved {
            return why(format!(
                "{} moved since it was approved: look again and approve it",
                w.branch
            ));
        }
        let base_head = rev(&git, &p.base).await?;
        if w.approved_base.as_deref().is_some_and(|b| b != base_head) {
            return why(format!(
                "{} moved since the review: look again and approve it",
                p.base
            ));
        }
        let common = PathBuf::from(&p.path).join(".git");
        let checkout = match read_in(&common, Path::new("HEAD"), 4096) {
            Ok(Found::Bytes(b)) => {
                let head = String::from_utf8_lossy(&b).trim().to_string();
                match head.strip_prefix("ref: refs/heads/") {
                    None => {
                        return why(format!(
                            "{} has a detached HEAD: check out a branch first",
                            p.path
                        ))
                    }
                    Some(b) => b == p.base,
                }
            }
            _ => return why(format!("{} has no readable HEAD", p.path)),
        };
        let index = common.join("index");
        if checkout {
            let dirty = merge::dirty(&git, Path::new(&p.path), &index).await?;
            if !dirty.is_empty() {
                return Ok(Err(Refused {
                    why: format!(
                        "{} has changes not committed in your checkout of {}: commit or stash them first",
                        p.name, p.base
                    ),
                    files: dirty,
                    ..Default::default()
                }));
            }
        }
        if let Some(elsewhere) = super::merge_steps::checked_out_elsewhere(&common, &p.base) {
            return why(format!(
                "{} is checked out in your worktree {elsewhere}: merge there, or check out another branch in it",
                p.base
            ));
        }
        if let Some(command) = &p.check {
            let loose = self.loose(p, w).await?;
            if !loose.is_empty() {
                return Ok(Err(Refused {
                    why: format!(
                        "{}'s worktree has changes not committed: the check would not test what is merged",
                        w.agent
                    ),
                    files: loose,
                    ..Default::default()
                }));
            }
            let checked = self.check(p, w, command).await?;
            // What was checked is what is merged: the agent did not go on meanwhile.
            if checked.passed {
                let now = rev(&git, &w.branch).await?;
                let loose = self.loose(p, w).await?;
                if now != head || !loose.is_empty() {
                    return Ok(Err(Refused {
                        why: format!(
                            "{} changed its worktree while the check ran: what passed is not what would be merged; approve it again",
                            w.agent
                        ),
                        files: loose,
                        ..Default::default()
                    }));
                }
            }
            if !checked.passed {
                return Ok(Err(Refused {
                    why: match checked.timed_out {
                        true => "the check did not finish in time".into(),
                        false => format!(
                            "the check failed (exit status {})",
                            checked.exit.map_or("none".into(), |e| e.to_string())
                        ),
                    },
                    output: checked.output,
                    exit: checked.exit,
                    ..Default::default()
                }));
            }
        }
        self.moved(&p.project_id, &w.identity_id, MergeState::Merging, |_| {})
            .await?;
        let title = format!("Merge {} ({}) into {}", w.branch, w.agent, p.base);
        let new = match merge::merge(
            &git,
            &p.base,
            &base_head,
            (&w.branch, &head),
            &title,
            strategy,
        )
        .await?
        {
            Ok(new) => new,
            Err(Refusal::Conflicts(files)) => {
                return Ok(Err(Refused {
                    why: format!(
                        "{} conflicts with {} in {} file(s)",
                        w.branch,
                        p.base,
                        files.len()
                    ),
                    files,
                    ..Default::default()
                }))
            }
            Err(Refusal::Why(s)) => return why(s),
        };
        let tree = Path::new(&p.path);
        if let Err(s) = merge::advance(
            &git,
            &p.base,
            &base_head,
            &new,
            checkout.then_some((tree, &*index)),
        )
        .await?
        {
            return why(s);
        }
        // Replayed: the agent's branch and worktree move to the commits the base now has.
        if new != head && strategy == Strategy::Rebase {
            let shadow = super::shadow_of(&self.ctx, &p.project_id, &p.path);
            let place = crate::repo::worktree::Place::new(
                Path::new(&w.path),
                &w.identity_id,
                &w.project_id,
                &w.branch,
            );
            let agent_index = shadow
                .common
                .join("worktrees")
                .join(&place.name)
                .join("index");
            if let Err(e) = merge::advance(
                &git,
                &w.branch,
                &head,
                &new,
                Some((Path::new(&w.path), &agent_index)),
            )
            .await
            {
                tracing::warn!(error = %e, "the agent's branch could not follow its replay");
            }
        }
        Ok(Ok(new))
    }
}

/// What the agent is told of its merge.
fn merged_text(p: &ProjectDoc, w: &WorktreeDoc, commit: &str, left_out: &[String]) -> String {
    let mut text = format!(
        "Your branch {} was merged into {} of {} ({}).",
        w.branch,
        p.base,
        p.name,
        short(commit)
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            " Not part of it, because not committed in your worktree: {}.",
            super::review::listed(left_out)
        ));
    }
    text
}

/// What the agent is told of a refused merge, in one message.
fn refusal_text(p: &ProjectDoc, w: &WorktreeDoc, r: &Refused) -> String {
    let mut text = format!(
        "The human's merge of your branch {} into {} of {} did not happen: {}.",
        w.branch, p.base, p.name, r.why
    );
    if !r.files.is_empty() {
        text.push_str(&format!("\nFiles: {}", r.files.join(", ")));
    }
    if !r.output.is_empty() {
        let tail: String = r
            .output
            .chars()
            .rev()
            .take(4000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        text.push_str(&format!(
            "\nThe check's output (its end):\n```\n{tail}\n```"
        ));
    }
    text
}

impl From<RepoError> for Refused {
    fn from(e: RepoError) -> Self {
        Refused {
            why: e.to_string(),
            ..Default::default()
        }
    }
}
