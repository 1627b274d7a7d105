//! Durability after the commit: a pipelined group commit. The writer commits a batch without
//! waiting for the disk (`synchronous=NORMAL` on its connection) and hands it here; this stage
//! syncs the write-ahead log once for every batch committed meanwhile, then publishes them (the
//! shared documents, the live stream) and answers their callers, in commit order. So the writer
//! works on the next batch while the disk syncs this one, and a caller is still answered only
//! once its events are on the disk. Until then nothing outside the store shows them: reads of
//! the log stop at the last published event (`Store::raw_events_after`), and messages read from
//! the database are kept to it (`with_messages`, `Store::older`).
//!
//! When nothing else waits (the queue empty, no batch handed over), the writer syncs and
//! publishes a batch itself: a lone event pays no hop to another thread.
//!
//! A failed sync stops the store: what was committed since the last good sync may or may not be
//! on the disk, so its callers are told that, and nothing more is taken (a restart reads what is
//! there).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, RwLock};

use app::domain::docs::{commit, DocWrite, MessageDoc};
use app::domain::events::Event;
use tokio::sync::{broadcast, oneshot};

use super::threads::Thread;
use super::{Committed, Shared, StoreError};

/// Makes the write-ahead log at the path durable (tests put their own in).
pub type SyncWal = Arc<dyn Fn(&Path) -> io::Result<()> + Send + Sync>;

/// `fdatasync` of the log, as SQLite's `synchronous=FULL` does after each commit; the first
/// time also its directory, as SQLite does with the log's first sync (a log just created is
/// not found after a power cut without it), and as SQLite, a directory the file system will
/// not sync is not an error (some refuse `fsync` on a directory).
pub fn fsync() -> SyncWal {
    let dir_synced = AtomicBool::new(false);
    Arc::new(move |wal: &Path| {
        std::fs::File::open(wal)?.sync_data()?;
        if !dir_synced.swap(true, Ordering::Relaxed) {
            if let Some(dir) = wal.parent() {
                if let Err(e) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
                    tracing::warn!(error = %e, dir = %dir.display(), "the store's folder could not be synced");
                }
            }
        }
        Ok(())
    })
}

/// Nothing to sync: a database whose commit returns once it is durable (PostgreSQL).
pub fn committed() -> SyncWal {
    Arc::new(|_: &Path| Ok(()))
}

/// A caller waiting for its events.
pub(super) type Reply = oneshot::Sender<Result<Vec<Event>, StoreError>>;

/// A committed batch: what it makes visible once durable, and who waits for it.
pub(super) struct Job {
    /// Each document the batch changed (but messages), as it is after the batch.
    pub writes: Vec<DocWrite>,
    pub committed: Vec<Arc<Committed>>,
    /// Messages written for the first time.
    pub added: Vec<MessageDoc>,
    /// Threads whose stored messages changed, as the database held them after the batch.
    pub reloaded: Vec<(String, Option<Thread>)>,
    /// The last event of the batch.
    pub last_id: u64,
    /// Each request's caller and its events, in the batch's order.
    pub replies: Vec<(Reply, Vec<Event>)>,
}

/// The stage between a commit and its callers, shared by the writer and the sync thread.
#[derive(Clone)]
pub(super) struct Stage {
    shared: Arc<RwLock<Shared>>,
    live: broadcast::Sender<Arc<Committed>>,
    wal: PathBuf,
    sync: SyncWal,
    /// Batches handed to the sync thread and not yet published.
    in_flight: Arc<AtomicUsize>,
    failed: Arc<AtomicBool>,
}

impl Stage {
    /// `failed` is set when a sync fails (the store reads it: `Store::stopped`).
    pub fn new(
        shared: Arc<RwLock<Shared>>,
        live: broadcast::Sender<Arc<Committed>>,
        db: &Path,
        sync: SyncWal,
        failed: Arc<AtomicBool>,
    ) -> Self {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        Stage {
            shared,
            live,
            wal: wal.into(),
            sync,
            in_flight: Default::default(),
            failed,
        }
    }

    /// A sync failed: nothing more is taken.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// Nothing handed over waits to be published: the writer may finish a batch itself.
    pub fn idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
    }

    /// Starts the sync thread; batches go to it through the sender.
    pub fn spawn(&self) -> mpsc::Sender<Job> {
        let (tx, rx) = mpsc::channel::<Job>();
        let stage = self.clone();
        std::thread::Builder::new()
            .name("store-sync".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut jobs = vec![first];
                    jobs.extend(rx.try_iter());
                    let n = jobs.len();
                    stage.settle(jobs);
                    stage.in_flight.fetch_sub(n, Ordering::SeqCst);
                }
            })
            .expect("spawning the store's sync thread");
        tx
    }

    /// Hands `job` to the sync thread (`tx`, from [`Stage::spawn`]).
    pub fn hand_over(&self, tx: &mpsc::Sender<Job>, job: Job) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        if let Err(mpsc::SendError(job)) = tx.send(job) {
            // The thread is gone (it panicked): this one is finished here, after those before.
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            self.settle(vec![job]);
        }
    }

    /// One sync for `jobs` (committed in this order), then each published and answered; or,
    /// if the sync fails, every caller told its events may not be on the disk.
    pub fn settle(&self, jobs: Vec<Job>) {
        let synced = if self.failed() {
            Err(io::Error::other("an earlier sync failed"))
        } else {
            (self.sync)(&self.wal)
        };
        match synced {
            Ok(()) => jobs.into_iter().for_each(|job| self.publish(job)),
            Err(e) => {
                if !self.failed.swap(true, Ordering::SeqCst) {
                    tracing::error!(error = %e, wal = %self.wal.display(),
                        "the disk did not confirm the store's write: the store takes no more events; restart the server");
                }
                for job in jobs {
                    for (reply, _) in job.replies {
                        let _ = reply.send(Err(StoreError::NotDurable));
                    }
                }
            }
        }
    }

    /// Makes a durable batch visible: the shared documents and threads, then the live stream,
    /// then its callers.
    pub fn publish(&self, job: Job) {
        let Job {
            writes,
            committed,
            added,
            reloaded,
            last_id,
            replies,
        } = job;
        {
            let mut shared = self.shared.write().unwrap_or_else(|p| p.into_inner());
            commit(&mut shared.docs, writes);
            for m in added {
                shared.threads.added(m);
            }
            for (who, thread) in reloaded {
                shared.threads.set(who, thread);
            }
            shared.last_event_id = last_id;
            for c in &committed {
                app::domain::moment::extend(&mut shared.timeline, &c.event);
            }
        }
        for c in committed {
            // Nobody listening is fine.
            let _ = self.live.send(c);
        }
        for (reply, events) in replies {
            let _ = reply.send(Ok(events));
        }
    }
}
