//! The two databases the store runs on, behind one small interface: SQLite in the data
//! directory (the default) and PostgreSQL (`--database postgres://…`). The store's SQL is
//! written once, with PostgreSQL's `$1` parameters (SQLite is given them as `?1`); what differs
//! is the schema (`schema`), how a commit is made durable (`sync`) and how a busy database is
//! told apart (`writer`).
//!
//! Every call blocks: the store runs them on its own threads (the writer, the sync stage) or on
//! tokio's blocking pool, never on the runtime's threads.

mod pg;

use super::StoreError;
use pg::Pg;

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
        off_runtime(|| pg::connect(url))
            .map(|client| Db::Postgres(Box::new(Pg::new(url, client))))
            .map_err(StoreError::from)
    }

    /// Where a PostgreSQL connection connects (`None` for SQLite).
    pub fn postgres_url(&self) -> Option<&str> {
        match self {
            Db::Sqlite(_) => None,
            Db::Postgres(pg) => Some(pg.url()),
        }
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
                Ok(pg.client().execute(&stmt, &pg::refs(params))?)
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
                    .query(&stmt, &pg::refs(params))?
                    .iter()
                    .map(pg::row)
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
    /// (PostgreSQL's `LISTEN`); how many came. All that came are taken: a storm of them is
    /// one wake-up. SQLite has none: it waits the time out.
    pub fn notified(&mut self, timeout: std::time::Duration) -> Result<u64, StoreError> {
        match self {
            Db::Sqlite(_) => {
                std::thread::sleep(timeout);
                Ok(0)
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
                Ok(u64::from(first) + more as u64)
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

/// PostgreSQL's `$1` parameters as SQLite's `?1` (the store's SQL has no `$` elsewhere).
fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
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
