//! The server's work-state commits, made beside the read loop: the supervisor reads the folder
//! (bounded, [`Snapshot::read`]) and hands it over; one task per process commits each in turn
//! into the server's history ([`History`]), each before its own deadline, and records it. The
//! read loop never waits for git. A stop lets what is queued finish within a short bound, then
//! cancels the rest (a git process is killed with its task).

use std::time::Duration;

use app::domain::events::EventKind;
use app::domain::Seat;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::runtime::folder::git::{History, Snapshot};
use crate::runtime::record::Recorder;

/// The most one commit may take, every git process of it together.
pub const COMMIT_DEADLINE: Duration = Duration::from_secs(30);
/// The most server commits one turn makes; further transitions in it are applied, not
/// committed.
pub const MAX_COMMITS_PER_TURN: u32 = 8;
/// How long a stop waits for the commits already queued.
const DRAIN: Duration = Duration::from_secs(5);

/// One commit to make.
pub struct Job {
    pub identity_id: String,
    pub subject: String,
    pub author: String,
    pub email: String,
    pub state: String,
    pub summary: String,
    pub snapshot: Snapshot,
}

/// The commit task of one process.
pub struct Committer {
    jobs: Option<mpsc::Sender<Job>>,
    task: tokio::task::JoinHandle<()>,
    cancel: CancellationToken,
}

impl Committer {
    pub fn start(seat: Seat, history: History, recorder: Recorder) -> Self {
        let (tx, mut rx) = mpsc::channel::<Job>(MAX_COMMITS_PER_TURN as usize * 2);
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let task = tokio::spawn(async move {
            while let Some(job) = rx.recv().await {
                let deadline = Instant::now() + COMMIT_DEADLINE;
                let made = tokio::select! {
                    made = history.commit(
                        &job.snapshot,
                        &job.subject,
                        (&job.author, &job.email),
                        (recorder.clock(), deadline),
                    ) => made,
                    _ = stop.cancelled() => return,
                };
                let event = match made {
                    Ok((sha, files)) => EventKind::WorkCommitted {
                        seat,
                        identity_id: job.identity_id,
                        sha,
                        state: Some(job.state),
                        summary: job.summary,
                        files,
                        by_agent: false,
                    },
                    Err(e) => {
                        tracing::warn!(seat, error = %e, "a work-state commit failed");
                        EventKind::RuntimeError {
                            seat: Some(seat),
                            message: format!("the work-state commit failed: {e}"),
                        }
                    }
                };
                let _ = recorder.record(vec![event]).await;
            }
        });
        Committer {
            jobs: Some(tx),
            task,
            cancel,
        }
    }

    /// One that commits nothing (what a finished supervisor keeps).
    pub fn closed() -> Self {
        Committer {
            jobs: None,
            task: tokio::spawn(async {}),
            cancel: CancellationToken::new(),
        }
    }

    /// Queues a commit; false if the queue is full or closed (it is not made).
    pub fn queue(&self, job: Job) -> bool {
        self.jobs.as_ref().is_some_and(|j| j.try_send(job).is_ok())
    }

    /// After the process stopped: the queued commits get [`DRAIN`], then the rest is
    /// cancelled.
    pub async fn close(mut self) {
        self.jobs = None;
        if tokio::time::timeout(DRAIN, &mut self.task).await.is_err() {
            self.cancel.cancel();
            let _ = (&mut self.task).await;
        }
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
