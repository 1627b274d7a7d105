//! A store rebuilt from an event log (an import): the events written as they were given (the
//! same ids, the same JSON, byte for byte), the documents computed from them by the reducer,
//! in batches so that a large log never sits in one transaction.

use std::collections::BTreeMap;
use std::path::Path;

use app::domain::docs::{commit, Docs};
use app::domain::events::Event;
use app::domain::reducer::apply;
use rusqlite::{Connection, OpenFlags};

use super::db::Db;
use super::{schema, StoreError};

/// Events written per transaction.
const BATCH: usize = 5_000;

/// Opens `{data_dir}/soulgrid.db` to read only (beside a running server: WAL readers never
/// block its writer, nor does it block them).
pub fn open_read_only(data_dir: &Path) -> Result<Connection, StoreError> {
    let path = data_dir.join("soulgrid.db");
    if !path.is_file() {
        return Err(StoreError::DataDir {
            path: data_dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no soulgrid.db in it"),
        });
    }
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    Ok(conn)
}

/// Writes `events` (each the stored JSON of an event, ids 1, 2, … in order) into a new store in
/// `data_dir`, with the documents they produce; `progress` hears the count now and then.
/// Returns how many were written.
pub fn restore<E: std::fmt::Display>(
    data_dir: &Path,
    events: impl Iterator<Item = Result<String, E>>,
    mut progress: impl FnMut(u64),
) -> Result<u64, StoreError> {
    std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let mut conn = Db::Sqlite(schema::open(&data_dir.join("soulgrid.db"))?);
    let mut docs = Docs::new();
    // The documents a batch changed, and the event that changed each last.
    let mut changed: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = 0u64;
    let mut events = events.peekable();
    while events.peek().is_some() {
        conn.in_transaction(|tx| {
            for raw in events.by_ref().take(BATCH) {
                let raw = raw.map_err(|e| StoreError::Import(e.to_string()))?;
                let event: Event = serde_json::from_str(&raw)?;
                super::writer::insert_raw(tx, &event, &raw)?;
                let writes = apply(&docs, &event);
                for w in &writes {
                    changed.insert(w.id.clone(), event.id);
                }
                commit(&mut docs, writes);
                count += 1;
            }
            for (id, event_id) in std::mem::take(&mut changed) {
                if let Some(doc) = docs.get(&id) {
                    super::writer::upsert_doc(tx, &id, doc, event_id)?;
                }
            }
            Ok(())
        })?;
        progress(count);
    }
    Ok(count)
}
