//! The server's own background work, owned: every watcher (mail, worktrees, replies, state
//! files, eggs, quests, budgets, webhooks, backups, the history's checkpoints) and every request
//! the runtime carries on in the background is spawned on one tracker, so that a shutdown,
//! once it has cancelled them, waits for them to end (bounded) instead of leaving them running
//! past the store's close. Each task is known by where it was spawned: one that outlives the
//! bound is named in the log.

use std::collections::HashMap;
use std::future::Future;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

/// The tracker every background task of one server is spawned on (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Tasks {
    tracker: TaskTracker,
    /// Where each running task was spawned, by a number of its own.
    running: Arc<Mutex<HashMap<u64, &'static Location<'static>>>>,
    next: Arc<AtomicU64>,
}

/// Takes a task out of [`Tasks::running`] when it ends (or is dropped).
struct Ended(Arc<Mutex<HashMap<u64, &'static Location<'static>>>>, u64);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.1);
    }
}

impl Tasks {
    /// Runs `work` in the background, owned by this server.
    #[track_caller]
    pub fn spawn<F>(&self, work: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(n, Location::caller());
        let ended = Ended(self.running.clone(), n);
        self.tracker.spawn(async move {
            let _ended = ended;
            work.await
        })
    }

    /// How many are still running.
    pub fn running(&self) -> usize {
        self.tracker.len()
    }

    /// Where the tasks still running were spawned (`file:line`), sorted.
    pub fn running_at(&self) -> Vec<String> {
        let mut at: Vec<String> = self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .collect();
        at.sort();
        at
    }

    /// After the shutdown's cancel: no new task is waited for past this, and those running get
    /// `within` to end. Whether all did; those that did not are named in the log.
    pub async fn end(&self, within: Duration) -> bool {
        self.tracker.close();
        let ended = tokio::time::timeout(within, self.tracker.wait())
            .await
            .is_ok();
        if !ended {
            tracing::warn!(
                running = ?self.running_at(),
                "background tasks still running {within:?} after the shutdown"
            );
        }
        ended
    }
}
