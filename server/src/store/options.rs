//! How a store is opened (`Options`: where, on which clock, how it syncs, as the leader or a
//! replica) and how its calls fail (`StoreError`).

use std::path::PathBuf;

use super::schema;
use super::sync::{fsync, SyncWal};

/// How many live events a follower may fall behind before it reads from the log instead.
pub const LIVE_CAPACITY: usize = 4096;

/// Where the store keeps the log and the documents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Database {
    /// `{data_dir}/soulgrid.db`.
    #[default]
    Sqlite,
    /// A PostgreSQL database, by its URL (`postgres://…`).
    Postgres(String),
}

impl Database {
    /// What a log line or an error may show: the URL without its password.
    pub fn shown(&self) -> String {
        match self {
            Database::Sqlite => "SQLite in the data directory".into(),
            Database::Postgres(url) => schema::without_password(url),
        }
    }
}

/// How a store is opened.
pub struct Options {
    /// Where the log and the documents are kept.
    pub database: Database,
    /// The clock events are stamped with (tests move it).
    pub clock: crate::clock::Clock,
    /// What makes a commit durable (tests watch it, hold it or fail it).
    pub sync: SyncWal,
    /// How many live events a follower may fall behind before it reads from the log instead
    /// (tests lower it to make followers lag).
    pub live_capacity: usize,
    /// A replica: another server writes the log (PostgreSQL only); this store follows it
    /// (`tail`) and refuses appends.
    pub replica: bool,
    /// How long a replica waits for a notification before it reads the table anyway (tests
    /// lengthen it: notifications alone must carry a replica).
    pub replica_poll: std::time::Duration,
    /// The leader's fencing token (`lease`): every append checks the lease is still held
    /// with it, in its own transaction (PostgreSQL only).
    pub fence: Option<i64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            database: Database::Sqlite,
            clock: crate::clock::Clock::system(),
            sync: fsync(),
            live_capacity: LIVE_CAPACITY,
            replica: false,
            replica_poll: std::time::Duration::from_secs(1),
            fence: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] postgres::Error),
    #[error("a stored row is not as the store wrote it: {0}")]
    Row(String),
    #[error("the database's schema is version {database}, newer than this soulgrid knows ({known}): run a newer soulgrid")]
    NewerSchema { database: i64, known: i64 },
    #[error("stored JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the append was rolled back")]
    WriteFailed,
    #[error("the disk did not confirm the write, so it may or may not be stored; the store takes no more events until the server is restarted")]
    NotDurable,
    #[error("the store is shut down")]
    Closed,
    #[error("no connection to read with: {0}")]
    NoReader(String),
    #[error("the lease this server held with token {0} is not its own any more: another server leads; nothing was stored")]
    Fenced(i64),
    #[error("this server is a replica: another server writes the log")]
    Replica,
    #[error("a replica needs PostgreSQL (--database): SQLite has one server")]
    ReplicaNeedsPostgres,
    #[error("{0}")]
    Import(String),
}
