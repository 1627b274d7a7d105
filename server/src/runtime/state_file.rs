//! Keeps `_state.md` current in every named agent's folder (`{data_dir}/agents/{seat}/`): the
//! server's objective view of the agent (`domain::state_file`), rewritten whenever the log moves
//! or the agent's inbox changes, and only when its text changed. The file is read-only: the
//! agent reads it, the server replaces it (a temp file renamed over it, never through a link
//! the agent made: `agent_fs`).

use std::collections::HashMap;
use std::time::Duration;

use app::domain::docs::identities;
use app::domain::docs::pending;
use app::domain::state_file::{render, Around, FILE_NAME};
use app::domain::Seat;
use tokio::sync::broadcast::error::RecvError;

use super::agent_fs::write_file;
use super::process::agent_dir;
use super::Runtime;

/// A safety net: inbox changes are signalled by the mail watcher, which can miss one when
/// inotify is unavailable and it polls.
const MAIL_RECHECK: Duration = Duration::from_secs(5);

impl Runtime {
    /// Starts the task that keeps the state files; it ends with the server.
    pub fn keep_state_files(&self) {
        let rt = self.clone();
        let mut live = self.store().subscribe();
        let shutdown = self.shutdown_token();
        tokio::spawn(async move {
            let mut written = HashMap::new();
            let mut recheck = tokio::time::interval(MAIL_RECHECK);
            loop {
                rt.write_state_files(&mut written).await;
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = recheck.tick() => {}
                    _ = rt.inner.inboxes_changed.notified() => {}
                    r = live.recv() => match r {
                        Ok(_) | Err(RecvError::Lagged(_)) => {
                            // A burst of events is one rewrite.
                            while live.try_recv().is_ok() {}
                        }
                        Err(RecvError::Closed) => return,
                    },
                }
            }
        });
    }

    /// Writes the state file of every named agent whose text changed since `written`.
    async fn write_state_files(&self, written: &mut HashMap<Seat, String>) {
        let seats: Vec<(Seat, String, usize)> = self.store().with_docs(|docs| {
            identities(docs)
                .filter(|d| d.status().is_visible())
                .filter_map(|d| {
                    let asking = pending(docs, d.grid_position).len();
                    Some((d.grid_position, d.inbox()?, asking))
                })
                .collect()
        });
        for (seat, inbox, asking) in seats {
            let mailboxes = self.mailboxes().clone();
            let mail = tokio::task::spawn_blocking(move || mailboxes.all(&inbox))
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            let around = Around {
                unread_mail: mail.iter().filter(|m| !m.read).count(),
                last_read: mail
                    .iter()
                    .rfind(|m| m.read)
                    .map(|m| (m.from.clone(), m.timestamp.clone())),
                pending_permissions: asking,
                context_window: self.config().context_window,
            };
            let Some(text) = self
                .store()
                .with_docs(|d| app::domain::docs::identity(d, seat).map(|i| render(i, &around)))
            else {
                continue;
            };
            if written.get(&seat) == Some(&text) {
                continue;
            }
            // The folder is the process's to make: no folder, no agent has run there yet.
            let dir = agent_dir(&self.config().data_dir, seat);
            if !dir.is_dir() {
                continue;
            }
            match write_file(&dir, FILE_NAME, text.as_bytes(), 0o444) {
                Ok(()) => {
                    written.insert(seat, text);
                }
                Err(e) => tracing::warn!(seat, error = %e, "could not write {FILE_NAME}"),
            }
        }
    }
}
