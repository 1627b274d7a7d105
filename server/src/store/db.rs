//! The two databases the store runs on, behind one small interface: SQLite in the data
//! directory (the default) and PostgreSQL (`--database postgres://…`). The store's SQL is
//! written once, with PostgreSQL's `$1` parameters (SQLite is given them as `?1`); what differs
//! is the schema (`schema`), how a commit is made durable (`sync`) and how a busy database is
//! told apart (`writer`).
//!
//! Every call blocks: the store runs them on its own threads (the writer, the sync stage) or on
//! tokio's blocking pool, never on the runtime's threads.

use std::collections::HashMap;

use postgres::types::{IsNull, ToSql, Type};

use super::StoreError;

/// Which database a store is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

/// One connection.
pub enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(Box<Pg>),
}

/// A PostgreSQL connection and the statements it prepared (each once). A connection the
/// database or the network ended is made again before the next statement, never inside a
/// transaction (that transaction fails; the next `BEGIN` connects again).
pub struct Pg {
    url: String,
    /// Taken only when it is dropped (`Drop`).
    client: Option<postgres::Client>,
    prepared: HashMap<String, postgres::Statement>,
    in_transaction: bool,
    reconnects: u64,
}

/// Connects with bounds of its own where the URL sets none: a connection attempt gives up
/// after 10 s, and a peer that stops answering (a paused server, a cut network) is found out
/// by the kernel (keepalives, unacknowledged data) within about 20 s instead of hours.
fn connect(url: &str) -> Result<postgres::Client, postgres::Error> {
    let mut config: postgres::Config = url.parse()?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(std::time::Duration::from_secs(10));
    }
    config
        .keepalives(true)
        .keepalives_idle(std::time::Duration::from_secs(5))
        .keepalives_interval(std::time::Duration::from_secs(2))
        .keepalives_retries(5)
        .tcp_user_timeout(std::time::Duration::from_secs(20));
    config.connect(postgres::NoTls)
}

/// A value bound to a parameter or read from a column: the store stores integers and text.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    Text(String),
}

impl From<i64> for Val {
    fn from(v: i64) -> Self {
        Val::Int(v)
    }
}

impl From<u64> for Val {
    /// Ids and counts: past `i64::MAX` (never stored) they are read as the largest.
    fn from(v: u64) -> Self {
        Val::Int(v.min(i64::MAX as u64) as i64)
    }
}

impl From<&str> for Val {
    fn from(v: &str) -> Self {
        Val::Text(v.to_string())
    }
}

impl From<String> for Val {
    fn from(v: String) -> Self {
        Val::Text(v)
    }
}

impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Self {
        v.map_or(Val::Null, Into::into)
    }
}

/// `[a, b, …]` as the values of a statement's parameters.
macro_rules! vals {
    ($($v:expr),* $(,)?) => { &[$($crate::store::db::Val::from($v)),*] as &[$crate::store::db::Val] };
}
pub(crate) use vals;

/// One row read.
#[derive(Debug)]
pub struct Row(Vec<Val>);

impl Row {
    fn at(&self, i: usize) -> Result<&Val, StoreError> {
        self.0
            .get(i)
            .ok_or_else(|| StoreError::Row(format!("no column {i}")))
    }

    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        self.opt_int(i)?
            .ok_or_else(|| StoreError::Row(format!("column {i} is NULL")))
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.at(i)? {
            Val::Int(v) => Ok(Some(*v)),
            Val::Null => Ok(None),
            other => Err(StoreError::Row(format!(
                "column {i} is not an integer: {other:?}"
            ))),
        }
    }

    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?
            .ok_or_else(|| StoreError::Row(format!("column {i} is NULL")))
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.at(i)? {
            Val::Text(v) => Ok(Some(v.clone())),
            Val::Null => Ok(None),
            other => Err(StoreError::Row(format!(
                "column {i} is not text: {other:?}"
            ))),
        }
    }
}

impl Db {
    pub fn kind(&self) -> Kind {
        match self {
            Db::Sqlite(_) => Kind::Sqlite,
            Db::Postgres(_) => Kind::Postgres,
        }
    }

    /// Connects to PostgreSQL at `url`.
    pub fn connect_postgres(url: &str) -> Result<Db, StoreError> {
        off_runtime(|| connect(url))
            .map(|client| {
                Db::Postgres(Box::new(Pg {
                    url: url.to_string(),
                    client: Some(client),
                    prepared: HashMap::new(),
                    in_transaction: false,
                    reconnects: 0,
                }))
            })
            .map_err(StoreError::from)
    }

    /// How many times the connection was made again (`Pg::ready`): what a session set on it
    /// (a `LISTEN`, a setting) went with the old one.
    pub fn reconnects(&self) -> u64 {
        match self {
            Db::Sqlite(_) => 0,
            Db::Postgres(pg) => pg.reconnects,
        }
    }

    /// Runs a statement; how many rows it changed.
    pub fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, StoreError> {
        match self {
            Db::Sqlite(c) => {
                Ok(c.prepare_cached(&for_sqlite(sql))?
                    .execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Db::Postgres(pg) => pg.again_if_closed(|pg| {
                let stmt = pg.statement(sql)?;
                Ok(pg.client().execute(&stmt, &refs(params))?)
            }),
        }
    }

    /// Every row a query reads.
    pub fn rows(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Row>, StoreError> {
        match self {
            Db::Sqlite(c) => {
                let mut stmt = c.prepare_cached(&for_sqlite(sql))?;
                let n = stmt.column_count();
                let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
                    (0..n).map(|i| sqlite_val(r.get_ref(i)?)).collect()
                })?;
                Ok(rows.map(|r| r.map(Row)).collect::<Result<_, _>>()?)
            }
            Db::Postgres(pg) => pg.again_if_closed(|pg| {
                let stmt = pg.statement(sql)?;
                pg.client()
                    .query(&stmt, &refs(params))?
                    .iter()
                    .map(pg_row)
                    .collect()
            }),
        }
    }

    /// The first row a query reads, if any.
    pub fn row(&mut self, sql: &str, params: &[Val]) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// Statements without parameters, one after the other (the schema).
    pub fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Db::Postgres(pg) => {
                let ends = matches!(sql, "COMMIT" | "ROLLBACK");
                if ends {
                    // Whatever comes of it, no transaction is open after it.
                    pg.in_transaction = false;
                    return Ok(pg.client().batch_execute(sql)?);
                }
                pg.again_if_closed(|pg| Ok(pg.client().batch_execute(sql)?))?;
                if sql == "BEGIN" {
                    pg.in_transaction = true;
                }
                Ok(())
            }
        }
    }

    /// Runs `f` in one transaction: committed when it returns `Ok`, else rolled back.
    pub fn in_transaction<T>(
        &mut self,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.batch("BEGIN")?;
        match f(self) {
            Ok(v) => {
                if let Err(e) = self.batch("COMMIT") {
                    let _ = self.batch("ROLLBACK");
                    return Err(e);
                }
                Ok(v)
            }
            Err(e) => {
                if let Err(undo) = self.batch("ROLLBACK") {
                    tracing::warn!(error = %undo, "a rollback failed");
                }
                Err(e)
            }
        }
    }

    /// Waits up to `timeout` for a notification on a channel this connection listens to
    /// (PostgreSQL's `LISTEN`); whether any came. All that came are taken: a storm of them is
    /// one wake-up. SQLite has none: it waits the time out.
    pub fn notified(&mut self, timeout: std::time::Duration) -> Result<bool, StoreError> {
        match self {
            Db::Sqlite(_) => {
                std::thread::sleep(timeout);
                Ok(false)
            }
            Db::Postgres(pg) => {
                use postgres::fallible_iterator::FallibleIterator;
                if pg.client().is_closed() {
                    // What it listened to went with it: the caller listens again.
                    return Err(StoreError::Row(
                        "the connection to PostgreSQL was closed".into(),
                    ));
                }
                let mut n = pg.client().notifications();
                let first = n.timeout_iter(timeout).next()?.is_some();
                let more = n.iter().count()?;
                Ok(first || more > 0)
            }
        }
    }

    /// The SQLite connection, for what only SQLite does (its pragmas, its backup).
    pub fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match self {
            Db::Sqlite(c) => Some(c),
            Db::Postgres(_) => None,
        }
    }
}

/// Runs `f` where the blocking PostgreSQL client may block: on this thread, or on a thread of
/// its own when this one runs tokio's tasks (the client runs a runtime of its own, which
/// cannot start inside another). For what is rare (opening the store, tests' snapshots): the
/// store's hot paths run on its own threads or tokio's blocking pool.
pub fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| {
        s.spawn(f)
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

impl Pg {
    fn client(&mut self) -> &mut postgres::Client {
        self.client.as_mut().expect("taken only when dropped")
    }

    /// Runs `f`; outside a transaction, once more on a new connection when the connection
    /// was found ended (by the database, the network): its client may learn of it only when
    /// it is used. Inside one, the transaction fails and says so.
    fn again_if_closed<T>(
        &mut self,
        f: impl Fn(&mut Pg) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.ready(false)?;
        match f(self) {
            Err(StoreError::Postgres(e))
                if !self.in_transaction && (ended(&e) || self.client().is_closed()) =>
            {
                self.ready(true)?;
                f(self)
            }
            done => done,
        }
    }

    /// Connects again when the connection was ended (or `now`), outside a transaction.
    fn ready(&mut self, now: bool) -> Result<(), StoreError> {
        if self.in_transaction || !(now || self.client().is_closed()) {
            return Ok(());
        }
        tracing::warn!("the connection to PostgreSQL was lost; connecting again");
        let client = off_runtime(|| connect(&self.url))?;
        self.prepared.clear();
        self.reconnects += 1;
        if let Some(old) = self.client.replace(client) {
            let_go(old);
        }
        Ok(())
    }

    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, StoreError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client().prepare(sql)?;
        self.prepared.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

impl Drop for Pg {
    /// Closing the connection blocks too (`off_runtime`): a store may be dropped by a task.
    fn drop(&mut self) {
        self.prepared.clear();
        if let Some(client) = self.client.take() {
            let_go(client);
        }
    }
}

/// The error says the connection is gone: closed, or ended by the database (its shutdown, an
/// administrator's `pg_terminate_backend`).
fn ended(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.is_closed()
        || e.code().is_some_and(|c| {
            [
                SqlState::ADMIN_SHUTDOWN,
                SqlState::CRASH_SHUTDOWN,
                SqlState::CANNOT_CONNECT_NOW,
            ]
            .contains(c)
        })
}

/// Closes a connection where its blocking close may block (`off_runtime`).
fn let_go(client: postgres::Client) {
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::spawn(move || drop(client));
    } else {
        drop(client);
    }
}

/// PostgreSQL's `$1` parameters as SQLite's `?1` (the store's SQL has no `$` elsewhere).
fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
}

fn refs(params: &[Val]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

fn sqlite_val(v: rusqlite::types::ValueRef<'_>) -> rusqlite::Result<Val> {
    use rusqlite::types::ValueRef;
    Ok(match v {
        ValueRef::Null => Val::Null,
        ValueRef::Integer(i) => Val::Int(i),
        ValueRef::Text(t) => Val::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Real(f) => Val::Int(f as i64),
        ValueRef::Blob(b) => Val::Text(String::from_utf8_lossy(b).into_owned()),
    })
}

fn pg_row(row: &postgres::Row) -> Result<Row, StoreError> {
    let mut out = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let v = match *col.type_() {
            Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Val::Int),
            Type::INT4 => row
                .try_get::<_, Option<i32>>(i)?
                .map(|v| Val::Int(v.into())),
            Type::INT2 => row
                .try_get::<_, Option<i16>>(i)?
                .map(|v| Val::Int(v.into())),
            Type::BOOL => row
                .try_get::<_, Option<bool>>(i)?
                .map(|v| Val::Int(v.into())),
            Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => {
                row.try_get::<_, Option<String>>(i)?.map(Val::Text)
            }
            ref other => {
                return Err(StoreError::Row(format!(
                    "column {} has a type the store does not read: {other}",
                    col.name()
                )))
            }
        };
        out.push(v.unwrap_or(Val::Null));
    }
    Ok(Row(out))
}

impl rusqlite::ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Val::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Val::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Val::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
        })
    }
}

impl ToSql for Val {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Val::Null => Ok(IsNull::Yes),
            Val::Int(v) => match *ty {
                Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Val::Text(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT8 | Type::INT4 | Type::INT2 | Type::TEXT | Type::VARCHAR | Type::NAME
        )
    }

    postgres::types::to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_reads_the_same_parameters_and_values() {
        let mut db = Db::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (a INTEGER, b TEXT)").unwrap();
        db.exec("INSERT INTO t VALUES ($1, $2)", vals![7i64, "x"])
            .unwrap();
        db.exec(
            "INSERT INTO t VALUES ($1, $2)",
            vals![None::<i64>, None::<&str>],
        )
        .unwrap();
        let rows = db
            .rows(
                "SELECT a, b FROM t WHERE a = $1 OR $1 = $1 ORDER BY a",
                vals![7i64],
            )
            .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].opt_int(0).unwrap(), None);
        assert_eq!(rows[1].int(0).unwrap(), 7);
        assert_eq!(rows[1].text(1).unwrap(), "x");
        assert!(rows[1].text(0).is_err(), "an integer is not text");
    }

    #[test]
    fn a_failing_transaction_leaves_nothing() {
        let mut db = Db::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (a INTEGER PRIMARY KEY)").unwrap();
        let failed = db.in_transaction(|db| {
            db.exec("INSERT INTO t VALUES ($1)", vals![1i64])?;
            db.exec("INSERT INTO t VALUES ($1)", vals![1i64])
        });
        assert!(failed.is_err());
        let n = db.row("SELECT COUNT(*) FROM t", &[]).unwrap().unwrap();
        assert_eq!(n.int(0).unwrap(), 0);
    }
}
