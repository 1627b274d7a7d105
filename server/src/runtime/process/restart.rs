//! Restarts: an agent's process stopped so that its agent starts again with what it was just
//! given (a worktree), and the tasks that may start an agent once its process has stopped.
//!
//! A restart is asked through the process table's `restart`: the sleep at
//! once, the start again only if nobody asked that process to stop or sleep for another reason
//! meanwhile (the human's sleep is not undone). The tasks that start agents again are kept in
//! [`Restarts`], so that a stop of every agent (the session's end, a leader stepping down) waits
//! for them and leaves none to start an agent after it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::task::TaskTracker;

/// A process asked to sleep so that its agent starts again.
pub struct Restart {
    pub(super) done: watch::Receiver<bool>,
    pub(super) wanted: Arc<AtomicBool>,
}

impl Restart {
    /// Returns once the process has stopped: whether its agent is still to start again (no
    /// one asked it to stop or sleep for another reason meanwhile).
    pub async fn stopped(mut self) -> bool {
        // The sender goes with the process's reservation: an error means it is gone, so done.
        let _ = self.done.wait_for(|d| *d).await;
        self.wanted.load(Ordering::SeqCst)
    }
}

/// The tasks under way that may start an agent once its process has stopped.
#[derive(Clone, Default)]
pub struct Restarts {
    tasks: TaskTracker,
    /// One wait at a time: the tracker is closed, awaited and opened again.
    settling: Arc<tokio::sync::Mutex<()>>,
}

impl Restarts {
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(task);
    }

    /// Returns once every task spawned so far (and any spawned meanwhile) has ended.
    pub async fn settled(&self) {
        let _one = self.settling.lock().await;
        self.tasks.close();
        self.tasks.wait().await;
        self.tasks.reopen();
    }
}
