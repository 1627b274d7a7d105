//! The store: the event log and the documents, in one SQLite database in the data directory
//! (the default) or in PostgreSQL (`--database postgres://…`; `db`). All appends go through
//! one writer thread that applies the shared reducer in the same transaction as the event
//! (group commit, its sync pipelined: `sync`); reads run on a pool of their own connections
//! (`readers`) and see the log up to the last event published.

pub mod db;
mod follow;
pub mod history;
pub mod lease;
mod open;
mod options;
mod probe;
mod read;
mod readers;
pub mod restore;
mod rows;
mod schema;
mod sync;
mod tail;
pub mod threads;
mod writer;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};

use app::domain::docs::page::Older;
use app::domain::docs::{Doc, Docs};
use app::domain::events::{Event, EventKind};
use tokio::sync::{broadcast, mpsc, oneshot};

use db::Db;

pub use follow::{Batch, Follow, PAGE};
pub use options::{Database, Options, StoreError, LIVE_CAPACITY};
pub use schema::SCHEMA_VERSION;
pub use sync::{fsync, SyncWal};
pub use writer::NewEvents;

/// A new message's id (the `{uuid}` of `message:{uuid}`): time-ordered (UUIDv7, in its simple
/// form), so a new message's row goes at the end of the documents' index on their ids, not on
/// a random page of it: a batch of new messages writes a few of the index's pages, not one each.
pub fn new_message_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

/// Time travel keeps the documents after every this many events (at first; see `History`).
const HISTORY_SPACING: u64 = 5_000;

/// A committed event as subscribers get it: serialized once, shared by every stream.
#[derive(Debug)]
pub struct Committed {
    pub event: Event,
    /// The event's JSON, exactly as stored.
    pub json: String,
    /// The transaction that stored it, counted from 1 since the store was opened: the events
    /// of one batch (group commit) share it.
    pub transaction: u64,
    /// The event as an event-stream frame, built by the first stream that sends it and shared
    /// by the others.
    pub frame: std::sync::OnceLock<bytes::Bytes>,
}

/// The documents (but the messages) and the id of the last event applied to them, and the
/// newest page of every thread, always updated together.
#[derive(Default)]
pub struct Shared {
    pub docs: Docs,
    pub threads: threads::Threads,
    pub last_event_id: u64,
    /// The log's line of time, for time travel's slider.
    pub timeline: Option<app::domain::moment::Timeline>,
}

/// A cheap, cloneable handle to the store.
#[derive(Clone)]
pub struct Store {
    /// The writer's queue; `None` on a replica.
    tx: Option<mpsc::Sender<writer::Request>>,
    shared: Arc<RwLock<Shared>>,
    readers: readers::Readers,
    live: broadcast::Sender<Arc<Committed>>,
    /// Time travel: its own connection (a long replay holds nothing else up) and checkpoints.
    past: Arc<Mutex<Db>>,
    history: Arc<history::History>,
    /// A sync failed: the store takes no more events (`sync`).
    stopped: Arc<AtomicBool>,
    /// A replica's tail, stopped when the last handle goes.
    tail: Option<Arc<tail::Guard>>,
    database: Arc<Database>,
    /// Asks the database whether it answers (`/healthz`).
    probe: Arc<probe::Probe>,
}

impl Store {
    /// Appends events in order; answers once they are durable.
    pub async fn append_all(
        &self,
        session_id: &str,
        kinds: Vec<EventKind>,
    ) -> Result<Vec<Event>, StoreError> {
        let (reply, rx) = oneshot::channel();
        let request = writer::Request {
            events: NewEvents {
                session_id: session_id.to_string(),
                kinds,
            },
            reply,
        };
        let Some(tx) = &self.tx else {
            return Err(StoreError::Replica);
        };
        tx.send(request).await.map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    pub async fn append(&self, session_id: &str, kind: EventKind) -> Result<Event, StoreError> {
        let mut events = self.append_all(session_id, vec![kind]).await?;
        events.pop().ok_or(StoreError::WriteFailed)
    }

    /// Every document, messages too, and the event id they are current to, read on the calling
    /// thread (tests and tools; the server uses [`Store::docs_with_threads`]).
    pub fn snapshot(&self) -> (Docs, u64) {
        let (docs, last) = self.docs_now();
        let readers = &self.readers;
        let all = db::off_runtime(|| threads::messages(&mut *readers::get(readers)?, None))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "reading the messages failed");
                Vec::new()
            });
        (with_messages(docs, last, all), last)
    }

    /// Whether the database answers now (`/healthz`); `Err` says why not. Always on SQLite.
    pub async fn reachable(&self) -> Result<(), String> {
        self.probe.check().await
    }

    /// A replica's `(reads, notifications)` so far: how many times it read the table for what
    /// is new (the notifications that came at once are one read; and each poll), and how many
    /// notifications it took. `(0, 0)` on a writer.
    pub fn replica_counts(&self) -> (u64, u64) {
        self.tail.as_ref().map_or((0, 0), |t| t.counts())
    }

    /// Where the log is kept.
    pub fn database(&self) -> &Database {
        &self.database
    }

    /// A copy of the documents (without messages) and the event id they are current to.
    fn docs_now(&self) -> (Docs, u64) {
        let s = self.shared.read().unwrap_or_else(|p| p.into_inner());
        (s.docs.clone(), s.last_event_id)
    }

    /// Runs `f` on every document, messages too (a copy: see [`Store::snapshot`]).
    pub fn with_all_docs<R>(&self, f: impl FnOnce(&Docs) -> R) -> R {
        f(&self.snapshot().0)
    }

    /// What a page load carries: the documents with the newest `limit` messages (at most a
    /// page) of the threads `carried` names (`None`: every thread's), how many older messages
    /// each thread has, and the event id they are current to.
    pub fn page_snapshot(
        &self,
        carried: impl FnOnce(&Docs) -> Option<Vec<String>>,
        limit: usize,
    ) -> (Docs, Older, u64) {
        let s = self.shared.read().unwrap_or_else(|p| p.into_inner());
        let carried = carried(&s.docs);
        let (docs, older) = s.threads.page(&s.docs, carried.as_deref(), limit);
        (docs, older, s.last_event_id)
    }

    /// The page of `owner`'s messages just before `before`, and how many are older still.
    pub async fn older(
        &self,
        owner: String,
        before: (i64, u64),
        limit: usize,
    ) -> Result<(Vec<app::domain::docs::MessageDoc>, usize), StoreError> {
        // Not what is committed but not yet synced (`sync`).
        let upto = self.last_event_id();
        self.with_reader(move |c| threads::page_before(c, &owner, Some(before), upto, limit))
            .await
    }

    /// The current documents with every message of the threads of `owners` (`None`: of every
    /// thread; `docs::page`), and the event id they are current to. The messages are read from
    /// the database on a blocking thread, never on the runtime's; a read that fails is an
    /// error, not documents without their messages.
    pub async fn docs_with_threads(
        &self,
        owners: Option<Vec<String>>,
    ) -> Result<(Docs, u64), StoreError> {
        let (docs, last) = self.docs_now();
        let all = self
            .with_reader(move |c| threads::messages(c, owners.as_deref()))
            .await?;
        Ok((with_messages(docs, last, all), last))
    }

    /// Runs `f` on the current documents and the threads' newest pages, both from memory.
    pub fn with_newest<R>(&self, f: impl FnOnce(&Docs, &threads::Threads) -> R) -> R {
        let s = self.shared.read().unwrap_or_else(|p| p.into_inner());
        f(&s.docs, &s.threads)
    }

    /// Runs `f` on the current documents (messages are not among them: see [`Store::snapshot`],
    /// [`Store::with_threads`]) without copying them.
    pub fn with_docs<R>(&self, f: impl FnOnce(&Docs) -> R) -> R {
        f(&self.shared.read().unwrap_or_else(|p| p.into_inner()).docs)
    }

    /// Whether the store stopped taking events: a write the disk did not confirm
    /// ([`StoreError::NotDurable`]); a restart reads what is on the disk.
    pub fn stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The log's line of time (`None` while it is empty).
    pub fn timeline(&self) -> Option<app::domain::moment::Timeline> {
        self.shared
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .timeline
            .clone()
    }

    pub fn last_event_id(&self) -> u64 {
        self.shared
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .last_event_id
    }

    /// Every committed event after `after`, in order, each once: from the log while the
    /// follower is behind, then live (`follow.rs`). The one way to follow the store.
    pub fn follow(&self, after: u64) -> Follow {
        Follow::new(self.clone(), after)
    }

    /// Live events, from now on, and nothing of what a slow receiver misses: only for
    /// measuring the commits themselves (the bench); followers use [`Store::follow`].
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Committed>> {
        self.live.subscribe()
    }

    /// Stored events after `after` as their JSON text, at most `limit`, up to the last one
    /// published (a batch committed but not yet synced is not shown to anyone).
    pub async fn raw_events_after(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, String)>, StoreError> {
        let upto = self.last_event_id();
        self.with_reader(move |c| read::raw_events_after(c, after, upto, limit))
            .await
    }

    /// As [`Store::raw_events_after`], read.
    pub async fn events_after(&self, after: u64, limit: usize) -> Result<Vec<Event>, StoreError> {
        let upto = self.last_event_id();
        self.with_reader(move |c| read::events_after(c, after, upto, limit))
            .await
    }

    /// The last `session_start` or `session_end` in the log.
    pub async fn last_session_event(&self) -> Result<Option<Event>, StoreError> {
        self.with_reader(read::last_session_event).await
    }

    /// The documents after event `at` and that event's time (0: before the first event). An
    /// `at` past the last event published reads up to that one.
    pub async fn docs_at(&self, at: u64) -> Result<(Docs, i64), StoreError> {
        let at = at.min(self.last_event_id());
        let (past, history) = (self.past.clone(), self.history.clone());
        tokio::task::spawn_blocking(move || {
            let mut conn = past.lock().unwrap_or_else(|p| p.into_inner());
            let docs = history.docs_at(&mut conn, at)?;
            let ts = conn
                .row(
                    "SELECT COALESCE(MAX(ts), 0) FROM events WHERE id <= $1",
                    db::vals![at],
                )?
                .map_or(Ok(0), |r| r.int(0))?;
            Ok((docs, ts))
        })
        .await
        .map_err(|_| StoreError::Closed)?
    }

    /// The event the moment `at` (`/?at=`) names, and where it was clamped to when it was
    /// outside the log (`history::resolve`); `Err` inside when `at` names no moment.
    #[allow(clippy::type_complexity)]
    pub async fn resolve_at(
        &self,
        at: &str,
    ) -> Result<
        Result<(u64, Option<app::domain::moment::Clamped>), app::domain::moment::BadMoment>,
        StoreError,
    > {
        let last = self.last_event_id();
        let at = match app::domain::moment::parse(at, last) {
            Ok(at) => at,
            Err(bad) => return Ok(Err(bad)),
        };
        let (past, line) = (self.past.clone(), self.timeline());
        tokio::task::spawn_blocking(move || {
            let mut conn = past.lock().unwrap_or_else(|p| p.into_inner());
            history::resolve(&mut conn, at, last, line.as_ref()).map(Ok)
        })
        .await
        .map_err(|_| StoreError::Closed)?
    }

    /// Lets time travel's checkpoints go when nobody has looked back in `idle`.
    pub fn forget_idle_history(&self, idle: std::time::Duration) {
        if self.history.forget_if_idle(idle) {
            tracing::debug!(?idle, "time travel checkpoints let go");
        }
    }

    /// Time travel's checkpoints: how many, and how far apart (for the bench).
    pub fn history_checkpoints(&self) -> (usize, u64) {
        self.history.checkpoints()
    }

    async fn with_reader<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let readers = self.readers.clone();
        tokio::task::spawn_blocking(move || f(&mut *readers::get(&readers)?))
            .await
            .map_err(|_| StoreError::Closed)?
    }
}

/// `docs` (current to event `last`) with the messages `all` read for them, but those written
/// after `last` (after the copy was taken: not part of these documents).
fn with_messages(mut docs: Docs, last: u64, all: Vec<app::domain::docs::MessageDoc>) -> Docs {
    for m in all.into_iter().filter(|m| m.event_id <= last) {
        docs.insert(m.id.clone(), Doc::Message(m));
    }
    docs
}

#[cfg(test)]
mod tests {
    /// New messages' ids sort as they were made, so their rows are appended to the id index.
    #[test]
    fn new_message_ids_sort_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..1000).map(|_| super::new_message_id()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert!(
            ids.iter().all(|id| id.len() == 32),
            "the simple form of a UUID"
        );
    }
}
