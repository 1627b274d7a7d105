//! The SQLite schema: an append-only event log and the documents it produced.

use std::path::Path;

use rusqlite::Connection;

use super::db::Db;
use super::StoreError;

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
    // The writer's statements come in several shapes (`rows`: three tables × four chunk sizes).
    conn.set_prepared_statement_cache_capacity(64);
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

/// PostgreSQL's schema, one migration at a time, each applied once and recorded in
/// `soulgrid_migrations` (version, name, when).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "store",
        include_str!("../../migrations/postgres/0001_store.sql"),
    ),
    (
        2,
        "lease",
        include_str!("../../migrations/postgres/0002_lease.sql"),
    ),
    (
        3,
        "docs by event",
        include_str!("../../migrations/postgres/0003_docs_by_event.sql"),
    ),
];

/// The newest schema this build knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// Brings a PostgreSQL database up to [`SCHEMA_VERSION`], in one transaction holding a lock
/// of its own (two servers starting on one database take turns); a database whose schema is
/// newer than this build is refused.
pub fn migrate_postgres(db: &mut Db) -> Result<(), StoreError> {
    db.in_transaction(|db| {
        db.batch(
            "SELECT pg_advisory_xact_lock(7243911);
             CREATE TABLE IF NOT EXISTS soulgrid_migrations (
                 version    BIGINT PRIMARY KEY,
                 name       TEXT NOT NULL,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             );",
        )?;
        let at = db
            .row(
                "SELECT COALESCE(MAX(version), 0) FROM soulgrid_migrations",
                &[],
            )?
            .map_or(Ok(0), |r| r.int(0))?;
        if at > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                database: at,
                known: SCHEMA_VERSION,
            });
        }
        for (version, name, sql) in MIGRATIONS.iter().filter(|(v, _, _)| *v > at) {
            tracing::info!(version, name, "applying a migration to PostgreSQL");
            db.batch(sql)?;
            db.exec(
                "INSERT INTO soulgrid_migrations (version, name) VALUES ($1, $2)",
                super::db::vals![*version, *name],
            )?;
        }
        Ok(())
    })
}

/// `url` without its password, to be logged or shown.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // `key=value` pairs.
        return url
            .split_whitespace()
            .map(|kv| match kv.split_once('=') {
                Some(("password", _)) => "password=***",
                _ => kv,
            })
            .collect::<Vec<_>>()
            .join(" ");
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((auth, host)) => (Some(auth), host),
        None => (None, rest),
    };
    match auth.map(|a| a.split_once(':').map_or(a, |(user, _)| user)) {
        Some(user) => format!("{scheme}://{user}:***@{host}"),
        None => format!("{scheme}://{host}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_is_shown_without_its_password() {
        use super::without_password as w;
        assert_eq!(
            w("postgres://sg:s3cret@db:5432/team"),
            "postgres://sg:***@db:5432/team"
        );
        assert_eq!(w("postgres://db/team"), "postgres://db/team");
        assert_eq!(
            w("host=/tmp password=x port=5"),
            "host=/tmp password=*** port=5"
        );
    }
}
