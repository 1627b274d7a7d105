//! The PostgreSQL side of [`super::Db`]: the blocking client, its statements prepared once,
//! bounds on its connection, and a connection made again when the database or the network
//! ended it (never inside a transaction).

use std::collections::HashMap;

use postgres::types::{IsNull, ToSql, Type};

use super::{off_runtime, Row, Val};
use crate::store::StoreError;

/// A PostgreSQL connection and the statements it prepared (each once). A connection the
/// database or the network ended is made again before the next statement, never inside a
/// transaction (that transaction fails; the next `BEGIN` connects again).
pub struct Pg {
    url: String,
    /// Taken only when it is dropped (`Drop`).
    client: Option<postgres::Client>,
    prepared: HashMap<String, postgres::Statement>,
    pub(super) in_transaction: bool,
    pub(super) reconnects: u64,
}

/// Connects with bounds of its own: a connection attempt gives up after 10 s (unless the URL
/// says otherwise), and a peer that stops answering (a cut network) is found out by the kernel
/// (keepalives and unacknowledged data, set here whatever the URL says) within about 20 s
/// instead of hours.
pub(super) fn connect(url: &str) -> Result<postgres::Client, postgres::Error> {
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

impl Pg {
    pub(super) fn new(url: &str, client: postgres::Client) -> Pg {
        Pg {
            url: url.to_string(),
            client: Some(client),
            prepared: HashMap::new(),
            in_transaction: false,
            reconnects: 0,
        }
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    pub(super) fn client(&mut self) -> &mut postgres::Client {
        self.client.as_mut().expect("taken only when dropped")
    }

    /// Runs `f`; outside a transaction, once more on a new connection when the connection
    /// was found ended (by the database, the network): its client may learn of it only when
    /// it is used. Inside one, the transaction fails and says so.
    pub(super) fn again_if_closed<T>(
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

    pub(super) fn statement(&mut self, sql: &str) -> Result<postgres::Statement, StoreError> {
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

pub(super) fn refs(params: &[Val]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

pub(super) fn row(row: &postgres::Row) -> Result<Row, StoreError> {
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
