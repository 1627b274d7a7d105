//! Work nothing waits on, done on a thread of its own at the lowest priority: the projections
//! that follow the store (the human's inbox, the agents' `_state.md`). On a busy machine they
//! then never take a core from the live path (a message handed over, its reply stored and
//! streamed): measured on two cores, they were a fifth of what the server added to one message
//! (docs/perf-log.md, P8). They still run when the machine is busy, more slowly (a nice value of 19
//! is a share of the CPU, not none), one job at a time, in the order given.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::time::Duration;

/// A projection writes its files at most once an interval; what changes meanwhile goes in its
/// next write. Each write is a temporary file renamed over the old one, which ext4 starts
/// writing to the disk at once: written for every event, `_state.md` and the human's inbox
/// took a third of a core while messages flowed (P8, measured with `perf`).
pub(in crate::runtime) const INTERVAL: Duration = Duration::from_millis(50);

/// Waits out the interval since a projection's last write (`None`: none yet).
pub(in crate::runtime) async fn after_interval(written: Option<tokio::time::Instant>) {
    if let Some(written) = written {
        tokio::time::sleep_until(written + INTERVAL).await;
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The thread; it ends when the last handle is dropped.
#[derive(Clone)]
pub(in crate::runtime) struct Background {
    jobs: mpsc::Sender<Job>,
}

impl Background {
    /// Starts the thread; one that cannot be started leaves every job run on tokio's blocking
    /// pool instead (said once).
    pub(in crate::runtime) fn start() -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("soulgrid-background".into())
            .spawn(move || {
                lower_priority();
                for job in queue {
                    // A job that panics is its own caller's error (it gets no answer).
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                }
            });
        if let Err(e) = started {
            tracing::warn!(error = %e, "no background thread: projections run at full priority");
        }
        Background { jobs }
    }

    /// Runs `f` on the background thread; `None` if it panicked.
    pub(in crate::runtime) async fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> Option<R> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = answer.send(f());
        });
        // No thread: the job comes back in the error.
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            tokio::task::spawn_blocking(job);
        }
        answered.await.ok()
    }
}

/// The calling thread's nice value set to 19 (on Linux a thread's nice value is its own).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls on this thread's own id.
        let lowered = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19)
        };
        if lowered != 0 {
            tracing::warn!(
                error = %std::io::Error::last_os_error(),
                "the background thread runs at full priority"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_in_order_at_the_lowest_priority_and_a_panic_stops_none_after_it() {
        let background = Background::start();
        #[cfg(target_os = "linux")]
        {
            // SAFETY: plain system calls on the job's own thread.
            let nice = background
                .run(|| unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as _) })
                .await;
            assert_eq!(nice, Some(19));
        }
        let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let jobs = (0..3).map(|i| {
            let order = order.clone();
            background.run(move || order.lock().unwrap().push(i))
        });
        futures::future::join_all(jobs).await;
        assert_eq!(*order.lock().unwrap(), [0, 1, 2]);
        assert_eq!(
            background
                .run(|| -> u8 { panic!("a job's own error") })
                .await,
            None
        );
        assert_eq!(background.run(|| 7).await, Some(7));
    }
}
