//! The conflict radar: each worktree followed as it changes (`crate::repo::watch`, coalesced),
//! what git sees recorded when it changed (`worktree_changed`, so every tab sees it live), and
//! the agents told, once, when a new overlap with another agent appears.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use app::domain::docs::{Docs, ProjectDoc, WorktreeDoc};
use app::domain::events::EventKind;
use app::domain::projects;
use tokio::sync::mpsc;

use crate::repo::watch::{self, Changes};
use crate::repo::worktree::Place;

use super::{ProjectError, Projects};

/// A burst of writes (a checkout, a build) is looked at once, this long after it began.
const SETTLE: Duration = Duration::from_millis(150);
/// The safety net: every worktree looked at this often (a base moved, events lost).
const POLL: Duration = Duration::from_secs(20);

/// Something an agent should be told (by its identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub identity: String,
    pub text: String,
}

/// (project, identity) of a worktree.
type Key = (String, String);

impl Projects {
    /// Follows every worktree until the server stops; what agents should be told goes to
    /// `tell`.
    pub fn watch(&self, tell: mpsc::UnboundedSender<Notice>) {
        let root = self.ctx.config().data_dir.join("worktrees");
        let mut tw = watch::watch(&root, POLL, (self.ctx.shutdown_token(), self.ctx.tasks()));
        if let Some(seen) = tw.seen() {
            self.fresh.follow(seen, root.clone());
        }
        let (me, shutdown) = (self.clone(), self.ctx.shutdown_token());
        self.ctx.spawn(async move {
            // At the start: every worktree once (what changed while the server was down).
            let mut first = Some(Changes {
                all: true,
                ..Default::default()
            });
            loop {
                let changes = match first.take() {
                    Some(c) => c,
                    None => {
                        let next = tokio::select! {
                            _ = shutdown.cancelled() => None,
                            c = tw.next() => c,
                        };
                        let Some(mut c) = next else { return };
                        tokio::time::sleep(SETTLE).await;
                        if let Ok(Some(more)) =
                            tokio::time::timeout(Duration::ZERO, tw.next()).await
                        {
                            c.all |= more.all;
                            c.paths.extend(more.paths);
                        }
                        c
                    }
                };
                me.expire_claims().await;
                let (keys, metas) = me.keys(&root, &changes);
                for meta in metas {
                    tw.add(&meta);
                }
                for (project, identity) in keys {
                    match me.refresh(&project, &identity).await {
                        Ok(notices) => notices.into_iter().for_each(|n| drop(tell.send(n))),
                        Err(e) => {
                            tracing::debug!(%project, %identity, error = %e, "a worktree could not be looked at")
                        }
                    }
                }
            }
        });
    }

    /// Lets go of every claim whose time is up (`files_claimed` with no paths), so that no
    /// face, panel or agent is told of it any more.
    async fn expire_claims(&self) {
        let now = self.ctx.clock().now_ms();
        let over: Vec<EventKind> = self.ctx.store().with_docs(|d| {
            projects::worktrees(d)
                .into_iter()
                .filter(|w| w.claim.as_ref().is_some_and(|c| c.until <= now))
                .map(|w| EventKind::FilesClaimed {
                    project_id: w.project_id.clone(),
                    identity_id: w.identity_id.clone(),
                    paths: Vec::new(),
                    why: "its time is up".into(),
                    until: now,
                })
                .collect()
        });
        if !over.is_empty() {
            self.ctx.record(over).await;
        }
    }

    /// The worktrees `changes` touch (all of them for the poll), and every worktree's git
    /// folder (to watch).
    fn keys(&self, root: &Path, changes: &Changes) -> (BTreeSet<Key>, Vec<PathBuf>) {
        self.ctx.store().with_docs(|d| {
            let mut by_meta: HashMap<PathBuf, Key> = HashMap::new();
            let mut all = BTreeSet::new();
            for w in projects::worktrees(d) {
                let Some(p) = projects::project(d, &w.project_id).filter(|p| p.is_linked()) else {
                    continue;
                };
                let key = (w.project_id.clone(), w.identity_id.clone());
                let place =
                    Place::new(Path::new(&w.path), &w.identity_id, &w.project_id, &w.branch);
                let meta = PathBuf::from(&p.path)
                    .join(".git/worktrees")
                    .join(&place.name);
                by_meta.insert(meta, key.clone());
                all.insert(key);
            }
            let keys = match changes.all {
                true => all,
                false => changes
                    .paths
                    .iter()
                    .filter_map(|path| {
                        if let Ok(rest) = path.strip_prefix(root) {
                            let mut parts = rest.iter();
                            let identity = parts.next()?.to_string_lossy().into_owned();
                            let project = parts.next()?.to_string_lossy().into_owned();
                            return Some((project, identity)).filter(|k| all.contains(k));
                        }
                        by_meta.get(path.parent()?).cloned()
                    })
                    .collect(),
            };
            (keys, by_meta.into_keys().collect())
        })
    }

    /// Looks at one worktree: records what git sees if it changed, and says who should hear of
    /// an overlap that is new.
    pub async fn refresh(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<Vec<Notice>, ProjectError> {
        let (p, w) = self
            .ctx
            .store()
            .with_docs(|d| {
                Some((
                    projects::project(d, project)?.clone(),
                    projects::worktree(d, project, identity)?.clone(),
                ))
            })
            .ok_or_else(|| ProjectError::NoSuch("no such worktree".into()))?;
        if !p.is_linked() {
            return Ok(Vec::new());
        }
        let held = self.lock(project);
        let guard = held.lock().await;
        let work = self.work(&p, &w, super::view::Listing::Every).await?;
        let ahead = work.commits.len() as u32;
        let changed: Vec<String> = work.files.iter().map(|f| f.path.clone()).collect();
        let uncommitted = work.uncommitted();
        let base_overlaps = self.base_overlaps(&p, &w, &work, &changed).await;
        let same = w.head.as_deref() == Some(work.head.as_str())
            && w.changed_files == listed(&changed)
            && w.uncommitted == listed(&uncommitted)
            && w.base_overlaps == listed(&base_overlaps)
            && w.commits_ahead == ahead
            && w.changed_count as usize == changed.len();
        if same {
            return Ok(Vec::new());
        }
        let before = self.ctx.store().with_docs(|d| pairs(d, project));
        self.ctx
            .recorder()
            .record(vec![EventKind::WorktreeChanged {
                project_id: project.to_string(),
                identity_id: identity.to_string(),
                head: work.head,
                changed_count: changed.len() as u32,
                changed,
                uncommitted,
                ahead,
                base_overlaps,
            }])
            .await?;
        drop(guard);
        Ok(self.ctx.store().with_docs(|d| new_overlaps(d, &p, &before)))
    }

    /// Where a merge may conflict: what the base changed meanwhile that the branch changes.
    async fn base_overlaps(
        &self,
        p: &ProjectDoc,
        w: &WorktreeDoc,
        work: &crate::repo::diff::Work,
        changed: &[String],
    ) -> Vec<String> {
        let git = self.git_on(p, w);
        match crate::repo::diff::base_changed(&git, &work.merge_base, &work.base_head).await {
            Ok(moved) => changed
                .iter()
                .filter(|f| moved.contains(*f))
                .cloned()
                .collect(),
            Err(e) => {
                let (project, identity) = (&p.project_id, &w.identity_id);
                tracing::debug!(%project, %identity, error = %e, "the base's changes could not be read");
                Vec::new()
            }
        }
    }
}

/// A list as a worktree's document keeps it (the first `MAX_LISTED`).
fn listed(all: &[String]) -> Vec<String> {
    all.iter()
        .take(app::domain::docs::MAX_LISTED)
        .cloned()
        .collect()
}

/// The overlaps of `p` that are new since `before`: each of the two agents told of the other.
fn new_overlaps(
    d: &Docs,
    p: &ProjectDoc,
    before: &std::collections::BTreeMap<(String, String), Vec<String>>,
) -> Vec<Notice> {
    let now = pairs(d, &p.project_id);
    let name = |id: &str| projects::worktree(d, &p.project_id, id).cloned();
    let mut out = Vec::new();
    for ((a, b), files) in now.iter().filter(|(k, _)| !before.contains_key(*k)) {
        let (Some(wa), Some(wb)) = (name(a), name(b)) else {
            continue;
        };
        out.push(notice(&p.name, &wa, &wb, files));
        out.push(notice(&p.name, &wb, &wa, files));
    }
    out
}

/// Each pair of agents (identities, in order) that changed one file, with the files.
fn pairs(d: &Docs, project: &str) -> std::collections::BTreeMap<(String, String), Vec<String>> {
    let mut out: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for (file, who) in projects::overlaps(d, project) {
        for (i, a) in who.iter().enumerate() {
            for b in &who[i + 1..] {
                let key = match a < b {
                    true => (a.clone(), b.clone()),
                    false => (b.clone(), a.clone()),
                };
                out.entry(key).or_default().push(file.clone());
            }
        }
    }
    out
}

/// What `to` is told of an overlap with `other`.
fn notice(project: &str, to: &WorktreeDoc, other: &WorktreeDoc, files: &[String]) -> Notice {
    let shown: Vec<&str> = files.iter().take(10).map(String::as_str).collect();
    let more = match files.len() > shown.len() {
        true => format!(" and {} more", files.len() - shown.len()),
        false => String::new(),
    };
    Notice {
        identity: to.identity_id.clone(),
        text: format!(
            "Soulgrid's conflict radar: {} has also changed {}{more} in {project} (on branch {}). \
             Talk to {} (send_message) before either of you changes it further, so that both \
             branches can be merged.",
            other.agent,
            shown.join(", "),
            other.branch,
            other.agent
        ),
    }
}
