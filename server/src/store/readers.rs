//! The store's read connections, pooled (`r2d2`): reads (a thread's older page, a follower
//! catching up from the log, time travel's first read) wait on one another only when more than
//! [`READERS`] run at once. A connection is made when one is needed and none is free (on the
//! pool's one helper thread), and kept while the store is open (no idle or lifetime limit, so no
//! timed job outlives the pool); a PostgreSQL one that the database ended is made again by the
//! connection itself (`db::pg`). A read that finds no connection within [`WAIT`] fails (the
//! database is gone: the caller says so).

use std::sync::Arc;
use std::time::Duration;

use super::db::Db;
use super::StoreError;

/// Read connections a store keeps at most.
pub const READERS: u32 = 4;

/// How long a read waits for a connection.
pub const WAIT: Duration = Duration::from_secs(5);

/// Makes a store's read connections.
pub struct Connector(pub Box<dyn Fn() -> Result<Db, StoreError> + Send + Sync>);

impl r2d2::ManageConnection for Connector {
    type Connection = Db;
    type Error = StoreError;

    fn connect(&self) -> Result<Db, StoreError> {
        (self.0)()
    }

    /// A connection lost is found, and made again, as it is used.
    fn is_valid(&self, _: &mut Db) -> Result<(), StoreError> {
        Ok(())
    }

    fn has_broken(&self, _: &mut Db) -> bool {
        false
    }
}

pub type Readers = r2d2::Pool<Connector>;

/// A pool of read connections, made as they are needed.
pub fn pool(connector: Connector) -> Readers {
    let helper = scheduled_thread_pool::ScheduledThreadPool::builder()
        .num_threads(1)
        .thread_name_pattern("store-readers")
        .build();
    r2d2::Pool::builder()
        .max_size(READERS)
        .min_idle(Some(0))
        .idle_timeout(None)
        .max_lifetime(None)
        .test_on_check_out(false)
        .thread_pool(Arc::new(helper))
        .connection_timeout(WAIT)
        // A connection that cannot be made is the caller's error (`get`), not a log line per try.
        .error_handler(Box::new(r2d2::NopErrorHandler))
        .build_unchecked(connector)
}

/// A read connection for the calling thread (which may block on it).
pub fn get(readers: &Readers) -> Result<r2d2::PooledConnection<Connector>, StoreError> {
    readers
        .get()
        .map_err(|e| StoreError::NoReader(e.to_string()))
}
