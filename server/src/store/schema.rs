//! The SQLite schema: an append-only event log and the documents it produced.

use std::path::Path;

use rusqlite::Connection;

/// Opens (creating if needed) the database with the pragmas every connection needs.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    // WAL lets readers (SSE replay, snapshots) run beside the single writer; FULL makes every
    // commit of a connection durable before it returns. The writer's own connection commits
    // without it and has its batches synced by `store::sync`, pipelined.
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
         DROP INDEX IF EXISTS events_type;
         CREATE TABLE IF NOT EXISTS docs (
             id         TEXT PRIMARY KEY,
             type       TEXT,
             seat       INTEGER,
             event_id   INTEGER NOT NULL REFERENCES events(id),
             body       TEXT NOT NULL,
             owner      TEXT,
             created_at INTEGER,
             origin     INTEGER
         );
         DROP INDEX IF EXISTS docs_type_seat;",
    )?;
    threads(&conn)?;
    // What an append writes besides its rows is an index entry each: the indexes hold only the
    // few rows they are read for, so an event (most are messages) touches none of them.
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS events_sessions ON events(type)
         WHERE type IN ('session_start', 'session_end');
         CREATE INDEX IF NOT EXISTS docs_rest ON docs(type, seat) WHERE owner IS NULL;",
    )?;
    Ok(conn)
}

/// Messages are read a thread at a time, newest first, not held in memory: each message row
/// says whose thread it is in (`owner`: `docs::page::owner`) and where (`created_at`, then
/// `origin`, the event that wrote it). A database from before these columns gets them here,
/// filled from the messages' JSON, once.
fn threads(conn: &Connection) -> rusqlite::Result<()> {
    let has = |c: &Connection| -> rusqlite::Result<bool> {
        c.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('docs') WHERE name = 'owner'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    if !has(conn)? {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        // Another connection may have done it while this one waited for the lock.
        let done = has(conn).and_then(|has| {
            if !has {
                conn.execute_batch(
                    "ALTER TABLE docs ADD COLUMN owner TEXT;
                     ALTER TABLE docs ADD COLUMN created_at INTEGER;
                     ALTER TABLE docs ADD COLUMN origin INTEGER;
                     UPDATE docs SET
                         owner = COALESCE(json_extract(body, '$.identityId'), 'seat:' || seat),
                         created_at = json_extract(body, '$.createdAt'),
                         origin = COALESCE(json_extract(body, '$.eventId'), 0)
                     WHERE type = 'message';",
                )?;
            }
            Ok(())
        });
        match done {
            Ok(()) => conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
    // Only messages have owners: the index holds them alone, and counting a thread reads the
    // index only.
    conn.execute_batch(
        "DROP INDEX IF EXISTS docs_thread;
         CREATE INDEX IF NOT EXISTS docs_threads ON docs(owner, created_at, origin)
         WHERE owner IS NOT NULL;",
    )
}
