//! The single writer: every append goes through one thread that commits in batches
//! (group commit). A caller is answered only after the batch holding its events is durable.

use std::sync::{Arc, RwLock};

use app::domain::docs::{commit, Docs};
use app::domain::events::{Event, EventKind};
use app::domain::reducer::apply;
use rusqlite::{params, Connection};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::{read, Committed, Shared, StoreError};

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
    conn: Connection,
    docs: Docs,
    last_id: u64,
    last_ts: i64,
    shared: Arc<RwLock<Shared>>,
    live: broadcast::Sender<Arc<Committed>>,
    clock: fn() -> i64,
}

impl Writer {
    pub fn new(
        conn: Connection,
        shared: Arc<RwLock<Shared>>,
        live: broadcast::Sender<Arc<Committed>>,
        clock: fn() -> i64,
    ) -> Result<Self, StoreError> {
        let docs = read::load_docs(&conn)?;
        let last = read::last_event(&conn)?;
        Ok(Writer {
            conn,
            docs,
            last_id: last.as_ref().map_or(0, |e| e.id),
            last_ts: last.as_ref().map_or(0, |e| e.ts),
            shared,
            live,
            clock,
        })
    }

    /// Runs until every sender is gone.
    pub fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while let Some(first) = rx.blocking_recv() {
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(r) => batch.push(r),
                    Err(_) => break,
                }
            }
            self.commit_batch(&mut batch);
        }
        tracing::debug!(last_id = self.last_id, "store writer stopped");
    }

    fn commit_batch(&mut self, batch: &mut Vec<Request>) {
        let (start_id, start_ts) = (self.last_id, self.last_ts);
        let mut all_writes = Vec::new();
        let mut results: Vec<Vec<Event>> = Vec::with_capacity(batch.len());
        let mut committed: Vec<Arc<Committed>> = Vec::new();
        let outcome = (|| -> Result<(), StoreError> {
            let tx = self.conn.transaction()?;
            for req in batch.iter() {
                let mut appended = Vec::with_capacity(req.events.kinds.len());
                for kind in &req.events.kinds {
                    // Ids are gap-free; timestamps never go backwards even if the clock does.
                    self.last_id += 1;
                    self.last_ts = (self.clock)().max(self.last_ts);
                    let event = Event {
                        id: self.last_id,
                        ts: self.last_ts,
                        session_id: req.events.session_id.clone(),
                        kind: kind.clone(),
                    };
                    let writes = apply(&self.docs, &event);
                    let json = insert_event(&tx, &event)?;
                    for w in &writes {
                        upsert_doc(&tx, &w.id, &w.doc, event.id)?;
                    }
                    commit(&mut self.docs, writes.clone());
                    all_writes.extend(writes);
                    committed.push(Arc::new(Committed {
                        event: event.clone(),
                        json,
                    }));
                    appended.push(event);
                }
                results.push(appended);
            }
            tx.commit()?;
            Ok(())
        })();

        match outcome {
            Ok(()) => {
                {
                    let mut shared = self.shared.write().unwrap_or_else(|p| p.into_inner());
                    commit(&mut shared.docs, all_writes);
                    shared.last_event_id = self.last_id;
                }
                for c in committed {
                    // Nobody listening is fine.
                    let _ = self.live.send(c);
                }
                for (req, events) in batch.drain(..).zip(results) {
                    let _ = req.reply.send(Ok(events));
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "append failed; the batch was rolled back");
                self.last_id = start_id;
                self.last_ts = start_ts;
                // The in-memory documents saw writes the database did not keep: reload them.
                match read::load_docs(&self.conn) {
                    Ok(docs) => self.docs = docs,
                    Err(e) => tracing::error!(error = %e, "reloading documents failed"),
                }
                for req in batch.drain(..) {
                    let _ = req.reply.send(Err(StoreError::WriteFailed));
                }
            }
        }
    }
}

/// Inserts the event; returns its JSON.
fn insert_event(tx: &rusqlite::Transaction<'_>, e: &Event) -> Result<String, StoreError> {
    let body = serde_json::to_string(e)?;
    tx.prepare_cached(
        "INSERT INTO events (id, ts, session_id, type, seat, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        e.id as i64,
        e.ts,
        e.session_id,
        e.kind.type_name(),
        e.kind.seat().map(i64::from),
        body
    ])?;
    Ok(body)
}

fn upsert_doc(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    doc: &app::domain::docs::Doc,
    event_id: u64,
) -> Result<(), StoreError> {
    let value = doc.to_value();
    let ty = value
        .get("type")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let seat = value
        .get("gridPosition")
        .or_else(|| value.get("seat"))
        .and_then(|v| v.as_i64());
    tx.prepare_cached(
        "INSERT INTO docs (id, type, seat, event_id, body) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(id) DO UPDATE SET type = ?2, seat = ?3, event_id = ?4, body = ?5",
    )?
    .execute(params![
        id,
        ty,
        seat,
        event_id as i64,
        serde_json::to_string(&value)?
    ])?;
    Ok(())
}
