//! A replica's store: the log is written by another server (the leader) into the same
//! PostgreSQL database, and this one follows it. The leader's append transaction notifies
//! `soulgrid_events` (PostgreSQL delivers it on commit, carrying the last id, never the event);
//! on each notification (all that came at once are one wake-up), and each second without one
//! (`Options::replica_poll`),
//! the tail reads what is new from the tables in one snapshot and publishes it as the writer's
//! own batches are published (`sync::Stage`): the documents, the threads, the live stream. A
//! dropped connection is made again with backoff and what was missed is read from the table,
//! so every follower of this store sees every event once, in order.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use app::domain::docs::page::seat_owner;
use app::domain::docs::{Doc, DocWrite};
use app::domain::events::{Event, EventKind};

use super::db::{vals, Db};
use super::sync::{Job, Stage};
use super::threads::Threads;
use super::{Committed, Shared, StoreError};

/// The channel the leader notifies on each commit.
pub const CHANNEL: &str = "soulgrid_events";

/// Events read at a time while catching up.
const PAGE: usize = 5_000;

/// Stops the tail when the last handle to the store is dropped.
pub(super) struct Guard {
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
}

/// What a replica's tail has done, counted since the store was opened.
#[derive(Debug, Default)]
pub struct Counts {
    /// Reads of the table for what is new (at a wake-up, whatever woke it).
    pub reads: AtomicU64,
    /// Notifications taken.
    pub notifications: AtomicU64,
}

impl Guard {
    pub(super) fn counts(&self) -> (u64, u64) {
        (
            self.counts.reads.load(Ordering::SeqCst),
            self.counts.notifications.load(Ordering::SeqCst),
        )
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Starts the tail on its own thread, with connections of its own to `url`; without a
/// notification for `poll`, it reads the table anyway.
pub(super) fn spawn(
    url: String,
    poll: Duration,
    stage: Stage,
    shared: Arc<RwLock<Shared>>,
) -> Guard {
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let tail = Tail {
        url,
        poll,
        stage,
        shared,
        stop: stop.clone(),
        counts: counts.clone(),
        batches: 0,
    };
    std::thread::Builder::new()
        .name("store-tail".into())
        .spawn(move || tail.run())
        .expect("spawning the store's tail thread");
    Guard { stop, counts }
}

struct Tail {
    url: String,
    poll: Duration,
    stage: Stage,
    shared: Arc<RwLock<Shared>>,
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
    /// Batches published (a `Committed`'s transaction, counted here).
    batches: u64,
}

impl Tail {
    fn run(mut self) {
        let mut backoff = Duration::from_millis(100);
        while !self.stop.load(Ordering::SeqCst) {
            match self.follow(&mut backoff) {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(error = %e, retry_in = ?backoff, "the replica lost the database; it connects again and catches up");
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    /// Listens and catches up until stopped (`Ok`) or the connection fails.
    fn follow(&mut self, backoff: &mut Duration) -> Result<(), StoreError> {
        let mut db = Db::connect_postgres(&self.url)?;
        let listen = format!("SET application_name = 'soulgrid-tail'; LISTEN {CHANNEL}");
        db.batch(&listen)?;
        *backoff = Duration::from_millis(100);
        let mut listening = db.reconnects();
        // What was committed before the LISTEN took effect is in the table.
        self.catch_up(&mut db)?;
        let mut read_at = std::time::Instant::now();
        while !self.stop.load(Ordering::SeqCst) {
            // Woken each second at least, to see whether the store was let go.
            let taken = db.notified(self.poll.min(Duration::from_secs(1)))?;
            self.counts.notifications.fetch_add(taken, Ordering::SeqCst);
            if taken == 0 && read_at.elapsed() < self.poll {
                continue;
            }
            self.catch_up(&mut db)?;
            read_at = std::time::Instant::now();
            // Made again under the tail (between two calls): it listens again.
            if db.reconnects() != listening {
                db.batch(&listen)?;
                listening = db.reconnects();
            }
        }
        Ok(())
    }

    /// Reads and publishes everything after the last event published, in one snapshot.
    fn catch_up(&mut self, db: &mut Db) -> Result<(), StoreError> {
        self.counts.reads.fetch_add(1, Ordering::SeqCst);
        let last = self
            .shared
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .last_event_id;
        let read = db.in_transaction(|db| {
            db.batch("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
            read_after(db, last)
        })?;
        let Some(read) = read else { return Ok(()) };
        self.batches += 1;
        let transaction = self.batches;
        let last_id = read.events.last().map_or(last, |(e, _)| e.id);
        let committed = read
            .events
            .into_iter()
            .map(|(event, json)| {
                Arc::new(Committed {
                    event,
                    json,
                    transaction,
                    frame: Default::default(),
                })
            })
            .collect();
        self.stage.publish(Job {
            writes: read.writes,
            committed,
            added: Vec::new(),
            reloaded: read.threads,
            last_id,
            replies: Vec::new(),
        });
        Ok(())
    }
}

/// What a snapshot holds after event `last`.
struct Read {
    events: Vec<(Event, String)>,
    /// Each document but messages changed since, as it is now.
    writes: Vec<DocWrite>,
    /// Each thread that changed since, as it is now.
    threads: Vec<(String, Option<super::threads::Thread>)>,
}

/// The events after `last`, and the documents and threads as they are after the newest of
/// them: `None` when there is none. Run in one snapshot (`REPEATABLE READ`), so the documents
/// are those the events made, no more.
fn read_after(db: &mut Db, last: u64) -> Result<Option<Read>, StoreError> {
    let mut events = Vec::new();
    loop {
        let after = events.last().map_or(last, |(e, _): &(Event, String)| e.id);
        let page = super::read::raw_events_after(db, after, u64::MAX, PAGE)?;
        if page.is_empty() {
            break;
        }
        for (id, json) in page {
            let event: Event = serde_json::from_str(&json)?;
            if event.id != id {
                return Err(StoreError::Row(format!(
                    "event {id} says it is {}",
                    event.id
                )));
            }
            events.push((event, json));
        }
    }
    if events.is_empty() {
        return Ok(None);
    }
    let mut writes = Vec::new();
    for r in db.rows(
        "SELECT id, body FROM docs WHERE event_id > $1 AND owner IS NULL",
        vals![last],
    )? {
        let value: serde_json::Value = serde_json::from_str(&r.text(1)?)?;
        writes.push(DocWrite {
            id: r.text(0)?,
            doc: Doc::from_value(value)?,
        });
    }
    // The threads messages were written to, and those a retirement took messages from.
    let mut owners: BTreeSet<String> = db
        .rows(
            "SELECT DISTINCT owner FROM docs WHERE event_id > $1 AND owner IS NOT NULL",
            vals![last],
        )?
        .iter()
        .map(|r| r.text(0))
        .collect::<Result<_, _>>()?;
    for (e, _) in &events {
        if let EventKind::AgentKilled { seat, .. } = e.kind {
            owners.insert(seat_owner(seat));
        }
    }
    let mut threads = Vec::new();
    for who in owners {
        let thread = Threads::read(db, &who)?;
        threads.push((who, thread));
    }
    Ok(Some(Read {
        events,
        writes,
        threads,
    }))
}
