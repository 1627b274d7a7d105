//! Notices changes in the inbox directory: which files changed, through `notify` (debounced),
//! plus a slow poll that says "look at everything" in case events are lost (network file
//! systems, full event queues); without a working watcher the poll is quick.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::new_debouncer;
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

/// Watches `dir` until `stop` is cancelled. `poll` is the safety net with a working file
/// watcher, `fallback_poll` the pace without one.
pub fn watch(
    dir: PathBuf,
    debounce: Duration,
    poll: Duration,
    fallback_poll: Duration,
    stop: CancellationToken,
) -> Watcher {
    let (tx, wake) = mpsc::channel(1);
    let pending = Arc::new(Mutex::new(Changes::default()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(dir = %dir.display(), error = %e, "cannot create the inbox directory");
    }
    let (notify_tx, notify_pending) = (tx.clone(), pending.clone());
    let debouncer = new_debouncer(
        debounce,
        None,
        move |result: notify_debouncer_full::DebounceEventResult| {
            let mut changes = notify_pending.lock().unwrap_or_else(|p| p.into_inner());
            match result {
                Ok(events) => changes.files.extend(events.iter().flat_map(|e| {
                    e.paths
                        .iter()
                        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
                })),
                // Events were lost: look at everything.
                Err(_) => changes.all = true,
            }
            drop(changes);
            // A full channel already has a wake-up pending: nothing is lost.
            let _ = notify_tx.try_send(());
        },
    );
    let debouncer = match debouncer {
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
    let every = if debouncer.is_some() {
        poll
    } else {
        fallback_poll
    };
    let poll_pending = pending.clone();
    tokio::spawn(async move {
        let _keep = debouncer;
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
