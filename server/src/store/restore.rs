//! A store rebuilt from an event log (an import, a migration): the events written as they were
//! given (the same ids, the same JSON, byte for byte), the documents computed from them by the
//! reducer. Into SQLite in batches, so that a large log never sits in one transaction; into
//! PostgreSQL in one, kept only when the caller says so. And the log read back, from either.

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
    progress: impl FnMut(u64),
) -> Result<u64, StoreError> {
    std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let mut conn = Db::Sqlite(schema::open(&data_dir.join("soulgrid.db"))?);
    write(&mut conn, events, progress, true)
}

/// A log being written into PostgreSQL in one transaction, kept only by [`Restoring::keep`]:
/// an import commits it once the whole file held, and a failure anywhere leaves the database
/// as it was (dropped, the connection ends and PostgreSQL rolls it back).
pub struct Restoring {
    db: Db,
    pub written: u64,
}

impl Restoring {
    pub fn keep(mut self) -> Result<u64, StoreError> {
        self.db.batch("COMMIT")?;
        Ok(self.written)
    }
}

/// As [`restore`], into the PostgreSQL database at `url`, which must hold no log yet (its
/// schema is made if needed): in one transaction, left open ([`Restoring`]).
pub fn restore_postgres<E: std::fmt::Display>(
    url: &str,
    events: impl Iterator<Item = Result<String, E>>,
    progress: impl FnMut(u64),
) -> Result<Restoring, StoreError> {
    let mut db = Db::connect_postgres(url)?;
    schema::migrate_postgres(&mut db)?;
    db.batch("BEGIN")?;
    // Taken in this transaction: two imports into one database do not both find it empty.
    db.batch("LOCK TABLE events IN EXCLUSIVE MODE")?;
    let held = db
        .row("SELECT COUNT(*) FROM events", &[])?
        .map_or(Ok(0), |r| r.int(0))?;
    if held > 0 {
        return Err(StoreError::Import(format!(
            "the database already holds a team's log ({held} events): import into an empty one"
        )));
    }
    let written = write(&mut db, events, progress, false)?;
    Ok(Restoring { db, written })
}

/// Writes the events and their documents, [`BATCH`] at a time: each batch its own transaction
/// (`own_transactions`), or all in the caller's.
fn write<E: std::fmt::Display>(
    conn: &mut Db,
    events: impl Iterator<Item = Result<String, E>>,
    mut progress: impl FnMut(u64),
    own_transactions: bool,
) -> Result<u64, StoreError> {
    let mut docs = Docs::new();
    // The documents a batch changed, and the event that changed each last.
    let mut changed: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = 0u64;
    let mut events = events.peekable();
    while events.peek().is_some() {
        let mut batch = |tx: &mut Db| -> Result<(), StoreError> {
            let mut read = Vec::new();
            for raw in events.by_ref().take(BATCH) {
                let raw = raw.map_err(|e| StoreError::Import(e.to_string()))?;
                let event: Event = serde_json::from_str(&raw)?;
                let writes = apply(&docs, &event);
                for w in &writes {
                    changed.insert(w.id.clone(), event.id);
                }
                commit(&mut docs, writes);
                count += 1;
                read.push((event, raw));
            }
            let rows: Vec<(&Event, &str)> = read.iter().map(|(e, raw)| (e, raw.as_str())).collect();
            super::rows::insert_events(tx, &rows)?;
            let written: Vec<(&str, &app::domain::docs::Doc, u64)> = changed
                .iter()
                .filter_map(|(id, event_id)| Some((id.as_str(), docs.get(id)?, *event_id)))
                .collect();
            super::rows::upsert_docs(tx, &written)?;
            changed.clear();
            Ok(())
        };
        match own_transactions {
            true => conn.in_transaction(batch)?,
            false => batch(conn)?,
        }
        progress(count);
    }
    Ok(count)
}

/// A connection to read the log of the team whose store `database` names (SQLite: the data
/// directory's, read only, beside a running server).
pub fn reader(data_dir: &Path, database: &super::Database) -> Result<Db, StoreError> {
    match database {
        super::Database::Sqlite => Ok(Db::Sqlite(open_read_only(data_dir)?)),
        super::Database::Postgres(url) => {
            let mut db = Db::connect_postgres(url)?;
            schema::migrate_postgres(&mut db)?;
            Ok(db)
        }
    }
}

/// The last event's id (0: none).
pub fn last_id(db: &mut Db) -> Result<u64, StoreError> {
    Ok(db
        .row("SELECT COALESCE(MAX(id), 0) FROM events", &[])?
        .map_or(Ok(0), |r| r.int(0))? as u64)
}

/// Up to `limit` events after `after` and at most `upto`, as stored: their ids and JSON.
pub fn page(
    db: &mut Db,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<(u64, String)>, StoreError> {
    super::read::raw_events_after(db, after, upto, limit)
}
