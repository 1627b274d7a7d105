//! Notices changes in the inbox directory: which files changed, through `notify`, plus a slow
//! poll that says "look at everything" in case events are lost (network file systems, full
//! event queues); without a working watcher the poll is quick.
//!
//! A change wakes the reader at once: changes that come while it reads are gathered for its
//! next look (one pending wake-up), so a writer's lock, temporary file and rename cost one or
//! two looks, not a wait. Opening or reading a file is not a change: the server's own reads
//! would otherwise wake it again, for ever.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What changed since the last look.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The poll: look at every inbox.
    pub all: bool,
    /// Names of the files that changed (`lyra.json`, `lyra.json.invalid-…`).
    pub files: HashSet<String>,
}

/// Hands out what changed, as it changes.
pub struct Watcher {
    wake: mpsc::Receiver<()>,
    pending: Arc<Mutex<Changes>>,
}

impl Watcher {
    /// Waits for changes; `None` once the watcher has stopped.
    pub async fn next(&mut self) -> Option<Changes> {
        self.wake.recv().await?;
        Some(std::mem::take(
            &mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()),
        ))
    }
}

/// An inbox file, or one moved aside as invalid; not a lock directory or a temporary file.
fn is_inbox(name: &str) -> bool {
    name.ends_with(".json") || name.contains(".json.invalid-")
}

/// Watches `dir` until `stop` is cancelled. `poll` is the safety net with a working file
/// watcher, `fallback_poll` the pace without one.
pub fn watch(
    dir: PathBuf,
    poll: Duration,
    fallback_poll: Duration,
    (stop, tasks): (CancellationToken, &crate::tasks::Tasks),
) -> Watcher {
    let (tx, wake) = mpsc::channel(1);
    let pending = Arc::new(Mutex::new(Changes::default()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(dir = %dir.display(), error = %e, "cannot create the inbox directory");
    }
    let (notify_tx, notify_pending) = (tx.clone(), pending.clone());
    let watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
        let mut changes = notify_pending.lock().unwrap_or_else(|p| p.into_inner());
        match result {
            // Events were lost: look at everything.
            Ok(e) if e.need_rescan() => changes.all = true,
            // Opened or read: nothing changed (a file closed after writing did).
            Ok(e) if matches!(e.kind, EventKind::Access(a) if a != AccessKind::Close(AccessMode::Write)) => {
                return
            }
            Ok(e) => {
                let inboxes: Vec<String> = e
                    .paths
                    .iter()
                    .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
                    .filter(|name| is_inbox(name))
                    .collect();
                // A lock directory or a temporary file: not an inbox, nobody to wake.
                if inboxes.is_empty() {
                    return;
                }
                changes.files.extend(inboxes);
            }
            Err(_) => changes.all = true,
        }
        drop(changes);
        // A full channel already has a wake-up pending: nothing is lost.
        let _ = notify_tx.try_send(());
    });
    let watcher = match watcher {
        Ok(mut d) => match d.watch(&dir, RecursiveMode::NonRecursive) {
            Ok(()) => Some(d),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot watch the inboxes; polling only");
                None
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "no file watcher; polling the inboxes only");
            None
        }
    };
    let every = if watcher.is_some() {
        poll
    } else {
        fallback_poll
    };
    let poll_pending = pending.clone();
    tasks.spawn(async move {
        let _keep = watcher;
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tick.tick() => {
                    poll_pending.lock().unwrap_or_else(|p| p.into_inner()).all = true;
                    let _ = tx.try_send(());
                }
            }
        }
    });
    Watcher { wake, pending }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits for the next changes (a test that never gets them fails, not hangs).
    async fn next(w: &mut Watcher) -> Changes {
        tokio::time::timeout(Duration::from_secs(10), w.next())
            .await
            .expect("a change was handed out")
            .expect("the watcher runs")
    }

    #[tokio::test]
    async fn reading_an_inbox_under_its_lock_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        let hour = Duration::from_secs(3600);
        // An inbox there before the watch (its writing is no change of the watch's).
        std::fs::write(dir.path().join("lyra.json"), "[]").unwrap();
        let mut w = watch(
            dir.path().to_path_buf(),
            hour,
            hour,
            (stop.clone(), &Default::default()),
        );
        // The first look is at everything (what came while no server watched).
        assert!(next(&mut w).await.all);
        // The server reads it as every reader does (the lock directory, its owner file, the
        // read, the lock let go), then someone writes another inbox.
        let lock = dir.path().join("lyra.json.lock");
        std::fs::create_dir(&lock).unwrap();
        std::fs::write(lock.join("owner"), "server").unwrap();
        std::fs::read(dir.path().join("lyra.json")).unwrap();
        std::fs::remove_file(lock.join("owner")).unwrap();
        std::fs::remove_dir(&lock).unwrap();
        std::fs::write(dir.path().join("zoe.json"), "[]").unwrap();
        // What is handed out next is zoe's change alone: the read woke nobody (it did: the
        // open, and the lock directory coming and going, woke the readers, whose reads took
        // the lock again, for ever).
        let changes = next(&mut w).await;
        assert_eq!(
            changes,
            Changes {
                all: false,
                files: HashSet::from(["zoe.json".to_string()])
            }
        );
        stop.cancel();
    }
}
