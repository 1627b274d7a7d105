//! The merge of an approved branch: queued per project, one at a time; the check in the
//! worktree (its output recorded as it grows), then the branch into the base. Every refusal says
//! why, changes nothing in the base, and is told to the agent.

use std::path::{Path, PathBuf};

use app::domain::docs::{MergeState, ProjectDoc, Review, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects;

use crate::fsafe::{read_in, Found};
use crate::repo::git::Git;
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

    /// The merge of `w`'s approved head into the base, in steps: what must still hold, the
    /// project's check, the merge and the base moved, and an agent's branch following its
    /// replay.
    async fn merge_now(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        approved: &str,
        strategy: Strategy,
    ) -> Step<String> {
        // The shadow exactly as the server made it, whatever wrote into it meanwhile.
        super::shadow_of(&self.ctx, &p.project_id, &p.path).ensure(&p.base)?;
        let git = self
            .git(p)
            .by(&self.ctx.names().human, "human@soulgrid.local");
        let at = match self.still_holds(p, w, approved, &git).await? {
            Ok(at) => at,
            Err(r) => return Ok(Err(r)),
        };
        if let Some(command) = &p.check {
            if let Some(r) = self.checked(p, w, command, &git, &at.head).await? {
                return Ok(Err(r));
            }
        }
        self.moved(&p.project_id, &w.identity_id, MergeState::Merging, |_| {})
            .await?;
        let new = match into_base(p, w, &git, &at, strategy).await? {
            Ok(new) => new,
            Err(r) => return Ok(Err(r)),
        };
        // Replayed: the agent's branch and worktree move to the commits the base now has.
        if new != at.head && strategy == Strategy::Rebase {
            self.follow_replay(p, w, &git, (&at.head, &new)).await;
        }
        Ok(Ok(new))
    }

    /// What must still hold at the merge: the branch at the approved commit, the base where
    /// the review saw it, the user's checkout on a branch and clean (when it is the base's),
    /// the base checked out nowhere else.
    async fn still_holds(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        approved: &str,
        git: &Git,
    ) -> Step<At> {
        let head = rev(git, &w.branch).await?;
        if head != approved {
            let why = format!(
                "{} moved since it was approved: look again and approve it",
                w.branch
            );
            return Ok(Err(refusal(why)));
        }
        let base_head = rev(git, &p.base).await?;
        if w.approved_base.as_deref().is_some_and(|b| b != base_head) {
            let why = format!(
                "{} moved since the review: look again and approve it",
                p.base
            );
            return Ok(Err(refusal(why)));
        }
        let common = PathBuf::from(&p.path).join(".git");
        let checkout = match read_in(&common, Path::new("HEAD"), 4096) {
            Ok(Found::Bytes(b)) => match String::from_utf8_lossy(&b)
                .trim()
                .strip_prefix("ref: refs/heads/")
            {
                None => {
                    let why = format!("{} has a detached HEAD: check out a branch first", p.path);
                    return Ok(Err(refusal(why)));
                }
                Some(b) => b == p.base,
            },
            _ => return Ok(Err(refusal(format!("{} has no readable HEAD", p.path)))),
        };
        let index = common.join("index");
        if checkout {
            let dirty = merge::dirty(git, Path::new(&p.path), &index).await?;
            if !dirty.is_empty() {
                return Ok(Err(Refused {
                    files: dirty,
                    ..refusal(format!(
                        "{} has changes not committed in your checkout of {}: commit or stash them first",
                        p.name, p.base
                    ))
                }));
            }
        }
        if let Some(elsewhere) = super::merge_steps::checked_out_elsewhere(&common, &p.base) {
            return Ok(Err(refusal(format!(
                "{} is checked out in your worktree {elsewhere}: merge there, or check out another branch in it",
                p.base
            ))));
        }
        Ok(Ok(At {
            head,
            base_head,
            checkout,
            index,
        }))
    }

    /// The project's check on the agent's worktree: a refusal when it has changes not
    /// committed, fails, runs out of time, or the worktree changed while it ran.
    async fn checked(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        command: &str,
        git: &Git,
        head: &str,
    ) -> Result<Option<Refused>, ProjectError> {
        let loose = self.loose(p, w).await?;
        if !loose.is_empty() {
            return Ok(Some(Refused {
                files: loose,
                ..refusal(format!(
                    "{}'s worktree has changes not committed: the check would not test what is merged",
                    w.agent
                ))
            }));
        }
        let checked = self.check(p, w, command).await?;
        if !checked.passed {
            return Ok(Some(Refused {
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
        // What was checked is what is merged: the agent did not go on meanwhile.
        let now = rev(git, &w.branch).await?;
        let loose = self.loose(p, w).await?;
        Ok((now != head || !loose.is_empty()).then(|| Refused {
            files: loose,
            ..refusal(format!(
                "{} changed its worktree while the check ran: what passed is not what would be merged; approve it again",
                w.agent
            ))
        }))
    }

    /// After a rebase: the agent's branch and worktree moved from `old` to the base's `new`.
    async fn follow_replay(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        git: &Git,
        (old, new): (&str, &str),
    ) {
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
        let tree = Some((Path::new(&w.path), agent_index.as_path()));
        if let Err(e) = merge::advance(git, &w.branch, old, new, tree).await {
            tracing::warn!(error = %e, "the agent's branch could not follow its replay");
        }
    }
}

/// A step of the merge: what it found, or why the merge is refused (or a failure).
type Step<T> = Result<Result<T, Refused>, ProjectError>;

/// Where the merge starts: the branch's and the base's heads, and the user's checkout (whether
/// it is the base's, its index).
struct At {
    head: String,
    base_head: String,
    checkout: bool,
    index: PathBuf,
}

fn refusal(why: String) -> Refused {
    Refused {
        why,
        ..Default::default()
    }
}

/// The merge made in the shadow, then the base (and the user's checkout of it) moved to it.
async fn into_base(
    p: &ProjectDoc,
    w: &WorktreeDoc,
    git: &Git,
    at: &At,
    strategy: Strategy,
) -> Step<String> {
    let title = format!("Merge {} ({}) into {}", w.branch, w.agent, p.base);
    let branch = (w.branch.as_str(), at.head.as_str());
    let new = match merge::merge(git, &p.base, &at.base_head, branch, &title, strategy).await? {
        Ok(new) => new,
        Err(Refusal::Conflicts(files)) => {
            let why = format!(
                "{} conflicts with {} in {} file(s)",
                w.branch,
                p.base,
                files.len()
            );
            return Ok(Err(Refused {
                files,
                ..refusal(why)
            }));
        }
        Err(Refusal::Why(s)) => return Ok(Err(refusal(s))),
    };
    let checkout = at
        .checkout
        .then_some((Path::new(&p.path), at.index.as_path()));
    if let Err(s) = merge::advance(git, &p.base, &at.base_head, &new, checkout).await? {
        return Ok(Err(refusal(s)));
    }
    Ok(Ok(new))
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
