//! The SQLite schema: an append-only event log and the documents it produced.

use std::path::Path;

use rusqlite::Connection;

/// Opens (creating if needed) the database with the pragmas every connection needs.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    // WAL lets readers (SSE replay, snapshots) run beside the single writer; FULL makes every
    // commit durable before the caller is answered.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS events (
             id         INTEGER PRIMARY KEY,
             ts         INTEGER NOT NULL,
             session_id TEXT NOT NULL,
             type       TEXT NOT NULL,
             seat       INTEGER,
             body       TEXT NOT NULL
         );
         CREATE INDEX IF NOT EXISTS events_type ON events(type);
         CREATE TABLE IF NOT EXISTS docs (
             id         TEXT PRIMARY KEY,
             type       TEXT,
             seat       INTEGER,
             event_id   INTEGER NOT NULL REFERENCES events(id),
             body       TEXT NOT NULL
         );
         CREATE INDEX IF NOT EXISTS docs_type_seat ON docs(type, seat);",
    )?;
    Ok(conn)
}
