//! The leader's lease (PostgreSQL only): one row saying which server runs the team's runtime,
//! where it answers and until when, on the database's clock. A server takes it only when it
//! has lapsed (each taking counts the fencing token up), renews it while it holds it, and lets
//! it go on a clean stop. The token fences the leader's store: each append checks, in its own
//! transaction, that the lease is still its own and unexpired (`FOR SHARE`, so a taking waits
//! for the append and the append never follows a taking), else it is refused
//! ([`StoreError::Fenced`](super::StoreError::Fenced)).
//!
//! Every call blocks (its own connection): call it from a blocking thread.

use std::sync::Mutex;
use std::time::Duration;

use super::db::{vals, Db};
use super::StoreError;

/// Who holds the lease, as the row says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub owner: String,
    pub address: String,
    pub token: i64,
    /// Not expired on the database's clock.
    pub live: bool,
}

pub struct Lease {
    db: Mutex<Db>,
    /// This server (a new one each start).
    owner: String,
    /// Where this server answers (`http://host:port`): followers forward writes there.
    address: String,
    span: Duration,
}

impl Lease {
    pub fn connect(
        url: &str,
        owner: &str,
        address: &str,
        span: Duration,
    ) -> Result<Lease, StoreError> {
        let mut db = Db::connect_postgres(url)?;
        super::schema::migrate_postgres(&mut db)?;
        Ok(Lease {
            db: Mutex::new(db),
            owner: owner.to_string(),
            address: address.to_string(),
            span,
        })
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub fn span(&self) -> Duration {
        self.span
    }

    fn ms(&self) -> i64 {
        self.span.as_millis().min(i64::MAX as u128) as i64
    }

    /// Runs `f` in a transaction that waits for no lock and no statement longer than a third
    /// of the span: a lease call never hangs on a paused server's transaction.
    fn bounded<T>(
        &self,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let limit = (self.ms() / 3).max(200);
        db.in_transaction(|db| {
            db.batch(&format!(
                "SET LOCAL lock_timeout = {limit}; SET LOCAL statement_timeout = {limit}"
            ))?;
            f(db)
        })
    }

    /// Takes the lease if nobody holds it (never held, lapsed or let go), or if this owner
    /// does (a server restarted on its data directory, whose lock says the one before is
    /// gone): its new token.
    pub fn take(&self) -> Result<Option<i64>, StoreError> {
        let (owner, address, ms) = (self.owner.as_str(), self.address.as_str(), self.ms());
        self.bounded(|db| {
            db.row(
                "INSERT INTO soulgrid_lease AS l (id, owner, address, token, expires_at)
             VALUES (1, $1, $2, 1, clock_timestamp() + $3::bigint * interval '1 millisecond')
             ON CONFLICT (id) DO UPDATE SET owner = $1, address = $2, token = l.token + 1,
                 expires_at = EXCLUDED.expires_at
             WHERE l.expires_at < clock_timestamp() OR l.owner = $1
             RETURNING token",
                vals![owner, address, ms],
            )?
            .map(|r| r.int(0))
            .transpose()
        })
    }

    /// Renews the lease held with `token`; false when it is not this server's any more (or
    /// lapsed: a leader that could not renew in time has stopped).
    pub fn renew(&self, token: i64) -> Result<bool, StoreError> {
        let (owner, ms) = (self.owner.as_str(), self.ms());
        self.bounded(|db| {
            Ok(db
                .row(
                    "UPDATE soulgrid_lease
                 SET expires_at = clock_timestamp() + $3::bigint * interval '1 millisecond'
                 WHERE id = 1 AND owner = $1 AND token = $2 AND expires_at > clock_timestamp()
                 RETURNING token",
                    vals![owner, token, ms],
                )?
                .is_some())
        })
    }

    /// Lets the lease held with `token` go now: another server may take it at once.
    pub fn release(&self, token: i64) -> Result<(), StoreError> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        db.exec(
            "UPDATE soulgrid_lease SET expires_at = clock_timestamp()
             WHERE id = 1 AND owner = $1 AND token = $2",
            vals![self.owner.as_str(), token],
        )?;
        Ok(())
    }

    /// Who holds it, if anyone ever took it.
    pub fn holder(&self) -> Result<Option<Holder>, StoreError> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        db.row(
            "SELECT owner, address, token,
                    CASE WHEN expires_at > clock_timestamp() THEN 1 ELSE 0 END
             FROM soulgrid_lease WHERE id = 1",
            &[],
        )?
        .map(|r| {
            Ok(Holder {
                owner: r.text(0)?,
                address: r.text(1)?,
                token: r.int(2)?,
                live: r.int(3)? == 1,
            })
        })
        .transpose()
    }
}

/// How long an append's transaction may sit idle (its server paused, its network cut) before
/// the database ends it: the lease row it holds `FOR SHARE` is free again within it, and
/// what it wrote is never committed after another server took the lease.
const IDLE_IN_APPEND_MS: i64 = 1_000;

/// In an append's transaction: the lease is still held with `token` and unexpired, and stays
/// so until the transaction ends (`FOR SHARE`: a taking waits for it; the transaction is ended
/// by the database if it sits idle, `IDLE_IN_APPEND_MS`).
pub(super) fn check(db: &mut Db, token: i64) -> Result<(), StoreError> {
    let held = db.row(
        "SELECT token, set_config('idle_in_transaction_session_timeout', $2, true)
         FROM soulgrid_lease
         WHERE id = 1 AND token = $1 AND expires_at > clock_timestamp() FOR SHARE",
        vals![token, IDLE_IN_APPEND_MS.to_string()],
    )?;
    match held {
        Some(_) => Ok(()),
        None => Err(StoreError::Fenced(token)),
    }
}
