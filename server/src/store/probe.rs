//! Whether the database answers now, for `/healthz`: PostgreSQL is asked `SELECT 1` on a
//! connection of the probe's own (made again when it fails), within [`WITHIN`], at most once
//! per [`FRESH`] (callers meanwhile get the last answer, or wait for the check under way, at
//! most [`WITHIN`]; a check still blocked on a database that stopped answering is not stacked
//! on). SQLite lives in the data directory's file: there
//! is nothing to ask.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::db::Db;

/// How long the database has to answer.
pub const WITHIN: Duration = Duration::from_secs(1);
/// How long an answer stands.
pub const FRESH: Duration = Duration::from_secs(1);

pub struct Probe {
    /// `None`: SQLite.
    url: Option<String>,
    conn: Arc<Mutex<Option<Db>>>,
    last: tokio::sync::Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Probe {
    pub fn new(url: Option<String>) -> Probe {
        Probe {
            url,
            conn: Arc::default(),
            last: tokio::sync::Mutex::new(None),
        }
    }

    /// `Err` with a sentence when the database did not answer.
    pub async fn check(&self) -> Result<(), String> {
        let Some(url) = &self.url else {
            return Ok(());
        };
        let mut last = self.last.lock().await;
        if let Some((at, answer)) = &*last {
            if at.elapsed() < FRESH {
                return answer.clone();
            }
        }
        let (conn, url) = (self.conn.clone(), url.clone());
        let asked = tokio::task::spawn_blocking(move || {
            // The check before this one still waits on the database.
            let Ok(mut conn) = conn.try_lock() else {
                return Err("the database has not answered the last check yet".to_string());
            };
            if conn.is_none() {
                *conn = Some(Db::connect_postgres(&url).map_err(|e| e.to_string())?);
            }
            let db = conn.as_mut().expect("connected above");
            let answer = db.row("SELECT 1", &[]).map(|_| ());
            if answer.is_err() {
                *conn = None;
            }
            answer.map_err(|e| e.to_string())
        });
        let answer = match tokio::time::timeout(WITHIN, asked).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err("the database check ended".to_string()),
            Err(_) => Err(format!("the database did not answer within {WITHIN:?}")),
        }
        .map_err(|e| format!("the team's database cannot be reached: {e}"));
        *last = Some((Instant::now(), answer.clone()));
        answer
    }
}
