//! The single writer: every append goes through one thread that commits in batches
//! (group commit). A caller is answered only after the batch holding its events is durable:
//! the writer commits, and [`super::sync`] syncs, publishes and answers, while the writer goes
//! on with the next batch.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::domain::docs::page::{owner, seat_owner};
use app::domain::docs::{commit, Doc, DocWrite, Docs, MessageDoc, TYPE_MESSAGE};
use app::domain::events::{Event, EventKind};
use app::domain::reducer::apply;
use tokio::sync::{mpsc, oneshot};

use super::db::{vals, Db};
use super::sync::{Job, Stage};
use super::{read, rows, threads, Committed, StoreError};

/// Events to append, in order, all in the same server session.
pub struct NewEvents {
    pub session_id: String,
    pub kinds: Vec<EventKind>,
}

pub struct Request {
    pub events: NewEvents,
    pub reply: oneshot::Sender<Result<Vec<Event>, StoreError>>,
}

/// Most requests one transaction takes; more wait for the next batch.
const MAX_BATCH: usize = 512;

pub struct Writer {
    conn: Db,
    docs: Docs,
    last_id: u64,
    last_ts: i64,
    /// Where a committed batch goes to be synced, published and answered.
    stage: Stage,
    clock: crate::clock::Clock,
    /// Transactions committed since the store was opened.
    transactions: u64,
    /// The leader's fencing token, checked in every transaction (`lease::check`).
    fence: Option<i64>,
    /// The documents in memory may hold what a failed batch wrote (they could not be read
    /// again after it): read before the next batch.
    stale: bool,
}

impl Writer {
    /// A writer on `conn`, whose documents are `docs` (as the database holds them). On SQLite
    /// its commits are not synced (`synchronous=NORMAL`): `stage` syncs them; PostgreSQL's
    /// commit returns once it is durable.
    pub fn new(
        mut conn: Db,
        docs: Docs,
        stage: Stage,
        clock: crate::clock::Clock,
        fence: Option<i64>,
    ) -> Result<Self, StoreError> {
        if let Some(c) = conn.sqlite() {
            c.pragma_update(None, "synchronous", "NORMAL")?;
        }
        let last = read::last_event(&mut conn)?;
        Ok(Writer {
            conn,
            docs,
            last_id: last.as_ref().map_or(0, |e| e.id),
            last_ts: last.as_ref().map_or(0, |e| e.ts),
            stage,
            clock,
            transactions: 0,
            fence,
            stale: false,
        })
    }

    /// Runs until every sender is gone.
    pub fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        let syncer = self.stage.spawn();
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while let Some(first) = rx.blocking_recv() {
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(r) => batch.push(r),
                    Err(_) => break,
                }
            }
            if self.stage.failed() {
                for req in batch.drain(..) {
                    let _ = req.reply.send(Err(StoreError::NotDurable));
                }
                continue;
            }
            for job in self.commit_batch(&mut batch) {
                // Alone (nothing queued, nothing handed over before it): synced here, without
                // a hop to the other thread; else synced there while the next batch is made.
                if rx.is_empty() && self.stage.idle() {
                    self.stage.settle(vec![job]);
                } else {
                    self.stage.hand_over(&syncer, job);
                }
            }
        }
        tracing::debug!(last_id = self.last_id, "store writer stopped");
    }

    /// Commits the batch: its jobs (one, or one per request when it was tried one by one), to
    /// be synced, published and answered in this order. The database being busy (another
    /// connection holding a write lock) is waited out, with backoff, up to [`BUSY_DEADLINE`].
    /// Any other failure is retried one request at a time, so a request that fails on its own
    /// fails alone and the others in its batch are stored; a request that fails is answered
    /// here.
    fn commit_batch(&mut self, batch: &mut Vec<Request>) -> Vec<Job> {
        let deadline = Instant::now() + BUSY_DEADLINE;
        let mut backoff = Duration::from_millis(10);
        let error = loop {
            match self.attempt(batch) {
                Ok(done) => return vec![self.job(done, batch.drain(..))],
                Err(e) if is_busy(&e) && Instant::now() + backoff < deadline => {
                    tracing::warn!(error = %e, "the database is busy; the batch waits and is tried again");
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                }
                Err(e) => break e,
            }
        };
        if let StoreError::Fenced(token) = error {
            tracing::error!(
                token,
                requests = batch.len(),
                "an append was fenced off: another server leads"
            );
            for req in batch.drain(..) {
                let _ = req.reply.send(Err(StoreError::Fenced(token)));
            }
            return Vec::new();
        }
        if batch.len() > 1 && !is_busy(&error) {
            tracing::warn!(error = %error, "a batch failed; its requests are tried one by one");
            return batch
                .drain(..)
                .flat_map(|req| self.commit_batch(&mut vec![req]))
                .collect();
        }
        tracing::error!(error = %error, requests = batch.len(), "append failed; nothing of it was stored");
        for req in batch.drain(..) {
            let _ = req.reply.send(Err(StoreError::WriteFailed));
        }
        Vec::new()
    }

    /// What a committed transaction hands to the stage: the threads it changed are read here,
    /// on the connection that committed it.
    fn job(&mut self, done: Attempt, requests: impl Iterator<Item = Request>) -> Job {
        let reloaded = done
            .reload
            .into_iter()
            .filter_map(|who| match threads::Threads::read(&mut self.conn, &who) {
                Ok(thread) => Some((who, thread)),
                Err(e) => {
                    tracing::error!(error = %e, owner = who, "reading a thread again failed");
                    None
                }
            })
            .collect();
        Job {
            writes: done.writes,
            committed: done.committed,
            added: done.added,
            reloaded,
            last_id: self.last_id,
            replies: requests.map(|r| r.reply).zip(done.results).collect(),
        }
    }

    /// One transaction for the whole batch. On failure it is rolled back and the writer is as
    /// it was before (ids, time, documents).
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    fn attempt(&mut self, batch: &[Request]) -> Result<Attempt, StoreError> {
        if self.stale {
            self.docs = read::load_docs(&mut self.conn)?;
            if let Some(last) = read::last_event(&mut self.conn)? {
                self.last_id = last.id;
                self.last_ts = last.ts.max(self.last_ts);
            }
            self.stale = false;
        }
        let (start_id, start_ts) = (self.last_id, self.last_ts);
        let mut done = Attempt::default();
        // The documents the batch changed, and the event that changed each last: each is
        // written once per batch, however many of its events touched it.
        let mut changed: HashMap<String, u64> = HashMap::new();
        // Messages read in for an event that changes stored ones, and whose they were.
        let mut preloaded: HashMap<String, String> = HashMap::new();
        let Writer {
            conn,
            docs,
            last_id,
            last_ts,
            clock,
            transactions,
            fence,
            ..
        } = self;
        let outcome = conn.in_transaction(|tx| {
            if let Some(token) = fence {
                super::lease::check(tx, *token)?;
            }
            for req in batch {
                let mut appended = Vec::with_capacity(req.events.kinds.len());
                for kind in &req.events.kinds {
                    // Ids are gap-free; timestamps never go backwards even if the clock does.
                    *last_id += 1;
                    *last_ts = clock.now_ms().max(*last_ts);
                    let event = Event {
                        id: *last_id,
                        ts: *last_ts,
                        session_id: req.events.session_id.clone(),
                        kind: kind.clone(),
                    };
                    preload(tx, &event.kind, docs, &mut preloaded)?;
                    let writes = apply(docs, &event);
                    let json = serde_json::to_string(&event)?;
                    for w in &writes {
                        changed.insert(w.id.clone(), event.id);
                    }
                    commit(docs, writes);
                    done.committed.push(Arc::new(Committed {
                        event: event.clone(),
                        json,
                        transaction: *transactions + 1,
                        frame: Default::default(),
                    }));
                    appended.push(event);
                }
                done.results.push(appended);
            }
            let events: Vec<(&Event, &str)> = done
                .committed
                .iter()
                .map(|c| (&c.event, c.json.as_str()))
                .collect();
            rows::insert_events(tx, &events)?;
            // A message stored already (written again by an event that repeats one) is a
            // change to its thread, as one read in for its event is.
            let maybe_stored: Vec<&str> = changed
                .keys()
                .filter(|id| !preloaded.contains_key(*id))
                .filter(|id| docs.get(*id).is_some_and(|d| d.as_message().is_some()))
                .map(String::as_str)
                .collect();
            let stored = rows::stored_owners(tx, &maybe_stored)?;
            let written: Vec<(&str, &Doc, u64)> = changed
                .iter()
                .filter_map(|(id, event_id)| Some((id.as_str(), docs.get(id)?, *event_id)))
                .collect();
            rows::upsert_docs(tx, &written)?;
            for id in changed.keys() {
                if let Some(doc) = docs.get(id) {
                    let was = match preloaded.get(id) {
                        Some(was) => Some(was.clone()),
                        None => stored.get(id).cloned().flatten(),
                    };
                    match (doc.as_message(), was) {
                        (Some(m), None) => done.added.push(m.clone()),
                        (Some(m), Some(was)) => {
                            done.reload.insert(was);
                            done.reload.insert(owner(m));
                        }
                        (None, _) => done.writes.push(DocWrite {
                            id: id.clone(),
                            doc: doc.clone(),
                        }),
                    }
                }
            }
            // Replicas following this database are told the newest id; PostgreSQL delivers it
            // when (and only if) the transaction commits (`tail`).
            if tx.kind() == super::db::Kind::Postgres {
                tx.exec(
                    "SELECT pg_notify($1, $2)",
                    vals![super::tail::CHANNEL, last_id.to_string()],
                )?;
            }
            Ok(())
        });
        // Messages are not kept: stored, they are read from the database when asked for.
        evict_messages(&mut self.docs);
        if let Err(e) = outcome {
            self.last_id = start_id;
            self.last_ts = start_ts;
            // A connection lost as it committed leaves it unknown whether the batch is stored:
            // the next ids follow the log as it is (never one already taken).
            if self.conn.kind() == super::db::Kind::Postgres {
                if let Ok(Some(last)) = read::last_event(&mut self.conn) {
                    if last.id > start_id {
                        tracing::error!(
                            stored_up_to = last.id,
                            "a batch reported failed was stored: it is published by the next one's readers from the log"
                        );
                        self.last_id = last.id;
                        self.last_ts = last.ts.max(start_ts);
                    }
                }
            }
            // The in-memory documents saw writes the database did not keep: reload them.
            match read::load_docs(&mut self.conn) {
                Ok(docs) => self.docs = docs,
                Err(e) => {
                    tracing::error!(error = %e, "reloading documents failed; read before the next batch");
                    self.stale = true;
                }
            }
            return Err(e);
        }
        self.transactions += 1;
        if let Some(url) = self.conn.postgres_url() {
            if rows::grown(start_id, self.last_id) {
                rows::analyze_later(url.to_string());
            }
        }
        Ok(done)
    }
}

/// What one committed transaction produced.
#[derive(Default)]
struct Attempt {
    /// Each document the batch changed, as it is after the batch.
    writes: Vec<DocWrite>,
    committed: Vec<Arc<Committed>>,
    /// The events of each request, in the batch's order.
    results: Vec<Vec<Event>>,
    /// Messages written for the first time.
    added: Vec<MessageDoc>,
    /// Threads whose stored messages changed: read again.
    reload: BTreeSet<String>,
}

/// Reads in the stored messages an event may change (the reducer sees them as documents, as
/// the browser's replica does): a retirement gives the seat's messages without an owner to the
/// identity leaving it; an import brings messages that may be here already.
fn preload(
    db: &mut Db,
    kind: &EventKind,
    docs: &mut Docs,
    preloaded: &mut HashMap<String, String>,
) -> Result<(), StoreError> {
    let found = match kind {
        EventKind::AgentKilled { seat, .. } => threads::messages(db, Some(&[seat_owner(*seat)]))?,
        EventKind::AgentImported(a) => {
            threads::messages_by_id(db, a.lived.messages.iter().map(|m| m.id.as_str()))?
        }
        _ => return Ok(()),
    };
    for m in found {
        if !docs.contains_key(&m.id) {
            preloaded.insert(m.id.clone(), owner(&m));
            docs.insert(m.id.clone(), Doc::Message(m));
        }
    }
    Ok(())
}

/// Takes every message out of `docs`.
pub(super) fn evict_messages(docs: &mut Docs) {
    let ids: Vec<String> = docs
        .range(format!("{TYPE_MESSAGE}:")..format!("{TYPE_MESSAGE};"))
        .map(|(k, _)| k.clone())
        .collect();
    for id in ids {
        docs.remove(&id);
    }
}

/// How long a batch waits for a database another connection keeps busy.
const BUSY_DEADLINE: Duration = Duration::from_secs(30);

/// Another connection holds the database: waiting helps.
fn is_busy(e: &StoreError) -> bool {
    matches!(e, StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
        if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}
