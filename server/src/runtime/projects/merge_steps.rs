//! What a merge looks at and records on its way: the worktree's files not committed, the
//! project's check run in the worktree (its output recorded as it grows), each move of the
//! merge, and a base checked out in another worktree of the user's.

use std::path::Path;

use app::domain::docs::{MergeState, ProjectDoc, WorktreeDoc};
use app::domain::events::EventKind;

use crate::fsafe::{read_in, Found};
use crate::repo::check;

use super::{ProjectError, Projects};

impl Projects {
    /// The files of the worktree not committed yet (under the project's lock: the server's
    /// index of it is written).
    pub(super) async fn loose(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
    ) -> Result<Vec<String>, ProjectError> {
        let held = self.lock(&p.project_id);
        let _held = held.lock().await;
        Ok(self
            .work(p, w, super::view::Listing::Every)
            .await?
            .uncommitted())
    }

    /// Runs the project's check in the worktree, its output recorded as it grows.
    pub(super) async fn check(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        command: &str,
    ) -> Result<check::Checked, ProjectError> {
        self.moved(&p.project_id, &w.identity_id, MergeState::Checking, |_| {})
            .await?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let me = self.clone();
        let (project, identity) = (p.project_id.clone(), w.identity_id.clone());
        // One writer, so the output's events keep their order and end before the next state.
        let writer = self.ctx.spawn(async move {
            while let Some(out) = rx.recv().await {
                let _ = me
                    .moved(&project, &identity, MergeState::Checking, |e| {
                        if let EventKind::MergeMoved { output, .. } = e {
                            *output = Some(out);
                        }
                    })
                    .await;
            }
        });
        let limit = self.ctx.config().agents.check_timeout;
        let last = tx.clone();
        let config = self.ctx.config();
        let places = (Path::new(&w.path), config.data_dir.as_path());
        let checked = check::run(command, places, &config.sandbox, limit, move |out| {
            drop(tx.send(out))
        })
        .await;
        // Its whole output, even for a check quicker than the first tick.
        if let Ok(c) = &checked {
            let _ = last.send(c.output.clone());
        }
        drop(last);
        let _ = writer.await;
        Ok(checked?)
    }

    /// Records a move of the merge of `identity`'s branch (`f` fills the rest).
    pub(super) async fn moved(
        &self,
        project: &str,
        identity: &str,
        state: MergeState,
        f: impl FnOnce(&mut EventKind),
    ) -> Result<(), ProjectError> {
        let mut e = EventKind::MergeMoved {
            project_id: project.into(),
            identity_id: identity.into(),
            state,
            strategy: None,
            commit: None,
            why: None,
            files: Vec::new(),
            output: None,
            exit: None,
        };
        f(&mut e);
        Ok(self.ctx.recorder().record(vec![e]).await?)
    }
}

/// The user's own linked worktree (not one of Soulgrid's) that has `base` checked out, if any:
/// moving the branch under it would leave it showing the merge reversed.
pub(super) fn checked_out_elsewhere(common: &Path, base: &str) -> Option<String> {
    let wanted = format!("ref: refs/heads/{base}");
    let dir = std::fs::read_dir(common.join("worktrees")).ok()?;
    dir.flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with("soulgrid-"))
        .find_map(|e| {
            let Ok(Found::Bytes(head)) = read_in(&e.path(), Path::new("HEAD"), 4096) else {
                return None;
            };
            (String::from_utf8_lossy(&head).trim() == wanted).then(|| {
                match read_in(&e.path(), Path::new("gitdir"), 4096) {
                    Ok(Found::Bytes(g)) => String::from_utf8_lossy(&g)
                        .trim()
                        .trim_end_matches("/.git")
                        .to_string(),
                    _ => e.file_name().to_string_lossy().into_owned(),
                }
            })
        })
}
