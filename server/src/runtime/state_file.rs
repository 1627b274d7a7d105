//! Keeps `_state.md` current in every named agent's folder (`{data_dir}/agents/{seat}/`): the
//! server's objective view of the agent (`domain::state_file`), rewritten whenever the log moves
//! or the agent's inbox changes, and only when its text changed. The file is read-only: the
//! agent reads it, the server replaces it (a temp file renamed over it).

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use app::domain::docs::identities;
use app::domain::docs::pending;
use app::domain::state_file::{render, FILE_NAME};
use app::domain::Seat;
use tokio::sync::broadcast::error::RecvError;

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
                .filter_map(|d| {
                    let asking = pending(docs, d.grid_position).len();
                    Some((d.grid_position, d.name.clone()?, asking))
                })
                .collect()
        });
        for (seat, name, asking) in seats {
            let mailboxes = self.mailboxes().clone();
            let inbox = name.clone();
            let unread = tokio::task::spawn_blocking(move || mailboxes.unread(&inbox))
                .await
                .ok()
                .and_then(Result::ok)
                .map_or(0, |m| m.len());
            let Some(text) = self.store().with_docs(|d| {
                app::domain::docs::identity(d, seat).map(|i| render(i, unread, asking))
            }) else {
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
            match write_read_only(&dir, &text) {
                Ok(()) => {
                    written.insert(seat, text);
                }
                Err(e) => tracing::warn!(seat, error = %e, "could not write {FILE_NAME}"),
            }
        }
    }
}

/// Replaces `{dir}/_state.md` with `text`, read-only, in one rename. The agent can write in
/// `dir`, so nothing here follows a link it made: the folder must be a real folder, the temp
/// file gets a fresh random name and is created exclusively (`O_EXCL | O_NOFOLLOW`, mode 0444
/// from the start), and the rename replaces whatever `_state.md` is (a link is replaced, not
/// followed).
fn write_read_only(dir: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::symlink_metadata(dir)?.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is not a folder",
            dir.display()
        )));
    }
    let tmp = dir.join(format!(
        ".{FILE_NAME}.{}.tmp",
        uuid::Uuid::new_v4().simple()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, dir.join(FILE_NAME))) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}
