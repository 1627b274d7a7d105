//! The knowledge vault between an agent's folder and the store. The store is the record: the
//! folder's `knowledge/` is captured into a new version whenever it changed (at every
//! work-state transition, after the distil turn before a process stops), and is made equal to
//! the identity's current version before a process starts there (a folder lost, edited by
//! hand or left by the seat's previous occupant never changes what the identity knows).

use std::path::Path;

use app::domain::docs::{identity, identity_by_id, Author, Docs, KnowledgeFiles};
use app::domain::events::EventKind;
use app::domain::knowledge::{knowledge_at, within_limits};
use app::domain::Seat;

use crate::runtime::context::Context;
use crate::runtime::folder::agent_fs::{read_knowledge, restore_knowledge};
use crate::store::Store;

/// A capture of a folder's vault.
#[derive(Debug, Default)]
pub struct Captured {
    /// `vault_saved`, when the folder differs from the identity's current version.
    pub event: Option<EventKind>,
    /// What was not kept, and why, in words for the agent and the human.
    pub problems: Vec<String>,
}

/// The current vault of the identity `id`, from the store.
pub fn current(docs: &Docs, id: &str) -> KnowledgeFiles {
    identity_by_id(docs, id)
        .and_then(|who| knowledge_at(docs, id, who.vault_version))
        .map(|v| v.files.clone())
        .unwrap_or_default()
}

/// Reads `dir`'s vault for the identity `id`.
pub fn capture(dir: &Path, store: &Store, id: &str, reason: &str) -> Captured {
    let (files, skipped) = match read_knowledge(dir) {
        Ok(read) => read,
        Err(e) => {
            return Captured {
                event: None,
                problems: vec![format!("the knowledge folder could not be read: {e}")],
            }
        }
    };
    let (kept, errors) = within_limits(files);
    let mut problems: Vec<String> = skipped
        .files
        .into_iter()
        .map(|(path, why)| format!("knowledge/{path}: {why}"))
        .collect();
    problems.extend(errors.into_iter().map(|e| format!("knowledge: {e}")));
    let before = store.with_docs(|d| current(d, id));
    let event = (kept != before).then(|| EventKind::VaultSaved {
        identity_id: id.to_string(),
        author: Author::Agent,
        author_name: None,
        reason: Some(reason.to_string()),
        files: kept,
    });
    Captured { event, problems }
}

/// What a process needs to know of its folder.
#[derive(Clone, Debug, Default)]
pub struct Folder {
    /// The stable id of the identity in the seat.
    pub identity: Option<String>,
    /// The folder repository's `HEAD` when the process started: commits after it are new.
    pub head: Option<String>,
}

/// The folder room's owner: readies an agent's folder from the store, and takes the human's
/// edits of a vault into the store and the folder.
#[derive(Clone)]
pub struct Folders {
    pub(in crate::runtime) ctx: Context,
}

impl Folders {
    /// Readies `dir` for the identity in `seat`: its vault restored from the store, and a git
    /// repository. Problems are logged and said on the seat; the process starts anyway.
    pub(in crate::runtime) async fn prepare(&self, seat: Seat, dir: &Path) -> Folder {
        let (id, files) = self.ctx.store().with_docs(|d| {
            let id = identity(d, seat).map(|i| i.stable_id());
            let files = id.as_deref().map(|id| current(d, id)).unwrap_or_default();
            (id, files)
        });
        let _ = std::fs::create_dir_all(dir);
        let owned = dir.to_path_buf();
        let restored = tokio::task::spawn_blocking(move || restore_knowledge(&owned, &files))
            .await
            .map_err(std::io::Error::other)
            .and_then(|r| r);
        if let Err(e) = restored {
            tracing::warn!(seat, error = %e, "the knowledge folder could not be restored");
            self.ctx
                .record(vec![EventKind::RuntimeError {
                    seat: Some(seat),
                    message: format!("the knowledge folder could not be restored: {e}"),
                }])
                .await;
        }
        let repo = crate::runtime::folder::git::Repo::new(dir);
        if let Err(e) = repo.ensure().await {
            tracing::warn!(seat, error = %e, "the agent folder has no git repository");
        }
        Folder {
            identity: id,
            head: repo.head().await,
        }
    }
}

/// Why the human's edit of a vault file was refused.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("no agent has this id")]
    NoSuch,
    #[error(transparent)]
    Knowledge(#[from] app::domain::knowledge::KnowledgeError),
    #[error("the edit could not be recorded: {0}")]
    Store(#[from] crate::store::StoreError),
}

/// Why the vault could not be captured now.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("no agent has this id")]
    NoSuch,
    /// Its folder is not in use: the vault was captured when it went to sleep.
    #[error("{0} is asleep: its vault was captured when it went to sleep, and is taken again when it wakes and works")]
    NotAwake(String),
    #[error("the capture could not be recorded: {0}")]
    Store(#[from] crate::store::StoreError),
}

/// A vault file the human edited: the new version, and what the agent is to be told.
#[derive(Debug)]
pub struct Edited {
    pub version: u32,
    /// The identity's seat, unless it is in the Hall.
    pub seat: Option<Seat>,
    /// Its inbox, where the note waits while it is in the Hall.
    pub inbox: Option<String>,
    /// The note for the agent: what changed, in the human's name.
    pub note: String,
}

impl Folders {
    /// The human writes `text` into `path` of the vault of the identity `id` (empty text
    /// removes the file): a new version by the human, and the file in its folder if it is
    /// seated. Telling the agent is the caller's (the mail room's).
    pub async fn edit(&self, id: &str, path: &str, text: &str) -> Result<Edited, EditError> {
        use app::domain::knowledge::{valid_path, within_limits, KnowledgeError};
        if !valid_path(path) {
            return Err(KnowledgeError::BadPath(path.to_string()).into());
        }
        let (seat, inbox, mut files) = self
            .ctx
            .store()
            .with_docs(|d| {
                let who = identity_by_id(d, id)?;
                let seat = who.retired_at.is_none().then_some(who.grid_position);
                Some((seat, who.inbox(), current(d, id)))
            })
            .ok_or(EditError::NoSuch)?;
        match text.is_empty() {
            true => files.remove(path),
            false => files.insert(path.to_string(), text.to_string()),
        };
        let (kept, mut problems) = within_limits(files.clone());
        if !problems.is_empty() {
            return Err(problems.remove(0).into());
        }
        let human = self.ctx.names().human.clone();
        self.ctx
            .recorder()
            .record(vec![EventKind::VaultSaved {
                identity_id: id.to_string(),
                author: Author::Human,
                author_name: Some(human.clone()),
                reason: Some(format!("{path} edited by {human}")),
                files: kept,
            }])
            .await?;
        let version = self
            .ctx
            .store()
            .with_docs(|d| identity_by_id(d, id).map(|w| w.vault_version))
            .unwrap_or_default();
        let note = match text.is_empty() {
            true => format!("{human} removed your knowledge/{path}."),
            false => format!(
                "{human} edited your knowledge/{path} (vault version {version}); it now reads:\n\n{}",
                text.chars().take(4000).collect::<String>()
            ),
        };
        if let Some(seat) = seat {
            self.write_edit(seat, path, text).await;
        }
        Ok(Edited {
            version,
            seat,
            inbox,
            note,
        })
    }

    /// Takes the vault of the awake identity `id` from its folder now, as a work-state change
    /// would (the human asked): a new version by the agent when it changed.
    pub async fn capture_now(
        &self,
        id: &str,
    ) -> Result<app::contract::KnowledgeCaptured, CaptureError> {
        let (seat, name, awake) = self
            .ctx
            .store()
            .with_docs(|d| {
                let who = identity_by_id(d, id)?;
                let name = who.name.clone().unwrap_or_else(|| "This agent".into());
                let seat = who.retired_at.is_none().then_some(who.grid_position);
                Some((seat, name, who.process_state.is_some_and(|p| p.is_live())))
            })
            .ok_or(CaptureError::NoSuch)?;
        let Some(seat) = seat.filter(|_| awake) else {
            return Err(CaptureError::NotAwake(name));
        };
        let dir = crate::runtime::folder::agent_fs::agent_dir(&self.ctx.config().data_dir, seat);
        let (store, owned, why) = (
            self.ctx.store().clone(),
            id.to_string(),
            format!("captured when {} asked", self.ctx.names().human),
        );
        let captured = tokio::task::spawn_blocking(move || capture(&dir, &store, &owned, &why))
            .await
            .unwrap_or_default();
        let changed = match &captured.event {
            Some(EventKind::VaultSaved { files, .. }) => {
                let before = self.ctx.store().with_docs(|d| current(d, id));
                app::domain::knowledge::changed(&before, files)
            }
            _ => Vec::new(),
        };
        if let Some(event) = captured.event {
            self.ctx.recorder().record(vec![event]).await?;
        }
        let version = self
            .ctx
            .store()
            .with_docs(|d| identity_by_id(d, id).map(|w| w.vault_version))
            .unwrap_or_default();
        Ok(app::contract::KnowledgeCaptured {
            version,
            changed,
            problems: captured.problems,
            at: self.ctx.clock().now_ms(),
        })
    }

    /// The edited file in the seated agent's folder (a problem is logged: the store has it).
    async fn write_edit(&self, seat: Seat, path: &str, text: &str) {
        let dir = crate::runtime::folder::agent_fs::agent_dir(&self.ctx.config().data_dir, seat);
        let (owned, p, t) = (dir, path.to_string(), text.to_string());
        let written = tokio::task::spawn_blocking(move || match t.is_empty() {
            // Relative to the folder, never through a link in the path.
            true => crate::fsafe::remove_in(
                &owned,
                &std::path::Path::new(app::domain::knowledge::DIR).join(&p),
            )
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            }),
            false => crate::runtime::folder::agent_fs::write_file(
                &owned.join(app::domain::knowledge::DIR),
                &p,
                t.as_bytes(),
                0o644,
            )
            .or_else(|e| {
                // No folder yet: the vault is restored when it first starts.
                match owned.exists() {
                    true => Err(e),
                    false => Ok(()),
                }
            }),
        })
        .await;
        if let Ok(Err(e)) = written {
            tracing::warn!(seat, error = %e, "the edited vault file could not be written");
        }
    }
}
