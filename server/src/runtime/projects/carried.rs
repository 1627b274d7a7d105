//! Branches carried from another team (a team export, a `.soul`): brought into their project
//! when it is linked here, else kept waiting in `{data-dir}/carried/` until one of that name is.
//! A branch its identity already has here is made again only where it is missing; an identity
//! not yet at work on the project is put to work on a new branch from the carried head.

use std::path::{Path, PathBuf};

use app::domain::docs::ProjectDoc;
use app::domain::projects;

use crate::repo::carry::{self, Owner, Waiting, CARRIED};
use crate::repo::git::Git;

use super::{shadow_of, ProjectError, Projects, Start, GIT_LIMIT};

impl Projects {
    /// The folder carried branches wait in.
    pub fn carried_dir(&self) -> PathBuf {
        self.ctx.config().data_dir.join(CARRIED)
    }

    /// Brings every waiting bundle whose project is linked into it (each then removed); the
    /// others keep waiting. What could not be brought is logged and kept. Returns how many
    /// were brought.
    pub async fn bring_carried(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(self.carried_dir()) else {
            return 0;
        };
        let mut keys: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        keys.sort();
        let mut brought = 0;
        for json in keys {
            let bundle = json.with_extension("bundle");
            let waiting: Waiting = match std::fs::read(&json)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
            {
                Some(w) if bundle.is_file() => w,
                _ => {
                    tracing::warn!(file = %json.display(), "a carried branch file cannot be read");
                    continue;
                }
            };
            match self.bring(&bundle, &waiting).await {
                Ok(false) => {}
                Ok(true) => {
                    brought += 1;
                    let _ = std::fs::remove_file(&bundle);
                    let _ = std::fs::remove_file(&json);
                }
                Err(e) => {
                    tracing::warn!(file = %bundle.display(), error = %e, "carried branches could not be brought in; they keep waiting")
                }
            }
        }
        brought
    }

    /// One bundle into its project: `false` when none is linked yet.
    async fn bring(&self, bundle: &Path, waiting: &Waiting) -> Result<bool, ProjectError> {
        let (target, owners) = self.ctx.store().with_docs(|d| {
            let own = waiting
                .project_id
                .as_deref()
                .and_then(|id| projects::project(d, id));
            let name = waiting
                .project_name
                .clone()
                .or_else(|| own.map(|p| p.name.clone()));
            let target: Option<ProjectDoc> = own
                .filter(|p| p.is_linked())
                .or_else(|| name.and_then(|n| projects::linked_named(d, &n)))
                .cloned();
            let owners: Vec<Owner> = match waiting.branches.is_empty() {
                false => waiting.branches.clone(),
                true => own
                    .map(|p| projects::worktrees_of_project(d, &p.project_id))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|w| Owner {
                        identity: w.identity_id.clone(),
                        agent: w.agent.clone(),
                        branch: w.branch.clone(),
                    })
                    .collect(),
            };
            (target, owners)
        });
        let Some(target) = target else {
            return Ok(false);
        };
        let shadow = shadow_of(&self.ctx, &target.project_id, &target.path);
        shadow.ensure(&target.base)?;
        let git = Git::new(&shadow.dir, GIT_LIMIT);
        for head in carry::unbundle(&git, bundle).await? {
            let Some(owner) = owners.iter().find(|o| o.branch == head.branch) else {
                continue;
            };
            let here = self
                .ctx
                .store()
                .with_docs(|d| projects::worktree(d, &target.project_id, &owner.identity).cloned());
            match here {
                // Its own branch again, where it is missing (its worktree is made again from
                // it when the agent next starts); one that is there is never moved.
                Some(w) => {
                    carry::make_branch(&git, &w.branch, &head.sha).await?;
                }
                None => {
                    self.put_to_work(
                        &target.project_id,
                        &owner.identity,
                        Start::Commit(&head.sha),
                    )
                    .await?;
                }
            }
            tracing::info!(project = %target.name, agent = %owner.agent, branch = %head.branch, "a carried branch was brought in");
        }
        Ok(true)
    }
}
