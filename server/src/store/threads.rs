//! Messages are not held in memory: the store keeps each thread's newest page (what a page load
//! carries, `docs::page`) and how many messages the thread has; the rest stays in SQLite and is
//! read a page at a time when asked for. Each message row carries its thread and place in it
//! (`schema::threads`), indexed.

use std::collections::{HashMap, VecDeque};

use app::domain::docs::page::{owner, place, Older, PAGE};
use app::domain::docs::{Doc, Docs, MessageDoc};
use rusqlite::{params, Connection};

use super::StoreError;

/// The newest page of every thread, and each thread's length.
#[derive(Default)]
pub struct Threads {
    by_owner: HashMap<String, Thread>,
}

/// One thread's newest page and length.
#[derive(Default)]
pub(super) struct Thread {
    /// Oldest first, at most [`PAGE`]: a new message goes on the end and the oldest comes off
    /// the front, neither moving the others.
    newest: VecDeque<MessageDoc>,
    total: usize,
}

impl Threads {
    /// Read from the database: each owner's count and newest page.
    pub fn load(conn: &Connection) -> Result<Threads, StoreError> {
        let mut by_owner = HashMap::new();
        let counts: Vec<(String, i64)> = conn
            .prepare("SELECT owner, COUNT(*) FROM docs WHERE owner IS NOT NULL GROUP BY owner")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (who, total) in counts {
            let (newest, _) = page_before(conn, &who, None, u64::MAX, PAGE)?;
            let total = total as usize;
            by_owner.insert(
                who,
                Thread {
                    newest: newest.into(),
                    total,
                },
            );
        }
        Ok(Threads { by_owner })
    }

    /// A message written for the first time.
    pub fn added(&mut self, m: MessageDoc) {
        let t = self.by_owner.entry(owner(&m)).or_default();
        t.total += 1;
        let at = t.newest.partition_point(|n| place(n) <= place(&m));
        if at == 0 && t.newest.len() >= PAGE {
            return;
        }
        t.newest.insert(at, m);
        if t.newest.len() > PAGE {
            t.newest.pop_front();
        }
    }

    /// `who`'s thread as the database holds it (read again after messages in it changed, or
    /// moved to another owner): `None` when it has no message.
    pub(super) fn read(conn: &Connection, who: &str) -> Result<Option<Thread>, StoreError> {
        let total: i64 =
            conn.query_row("SELECT COUNT(*) FROM docs WHERE owner = ?1", [who], |r| {
                r.get(0)
            })?;
        if total == 0 {
            return Ok(None);
        }
        let (newest, _) = page_before(conn, who, None, u64::MAX, PAGE)?;
        Ok(Some(Thread {
            newest: newest.into(),
            total: total as usize,
        }))
    }

    /// `who`'s thread is `thread` ([`Threads::read`]).
    pub(super) fn set(&mut self, who: String, thread: Option<Thread>) {
        match thread {
            Some(t) => self.by_owner.insert(who, t),
            None => self.by_owner.remove(&who),
        };
    }

    /// The newest message of the threads of `owners`.
    pub fn newest(&self, owners: &[String]) -> Option<&MessageDoc> {
        owners
            .iter()
            .filter_map(|w| self.by_owner.get(w)?.newest.back())
            .max_by_key(|m| place(m))
    }

    /// `docs` (without messages) with the newest `limit` messages (at most a page) of the
    /// threads of `carried` (`None`: of every thread), and how many messages each thread has
    /// beyond what is carried: what a page load carries.
    pub fn page(&self, docs: &Docs, carried: Option<&[String]>, limit: usize) -> (Docs, Older) {
        let mut out = docs.clone();
        let mut older = Older::new();
        for (who, t) in &self.by_owner {
            let held = if carried.is_none_or(|c| c.contains(who)) {
                let skip = t.newest.len().saturating_sub(limit);
                for m in t.newest.range(skip..) {
                    out.insert(m.id.clone(), Doc::Message(m.clone()));
                }
                t.newest.len() - skip
            } else {
                0
            };
            if t.total > held {
                older.insert(who.clone(), t.total - held);
            }
        }
        (out, older)
    }
}

fn parse(body: String) -> Result<MessageDoc, StoreError> {
    match Doc::from_value(serde_json::from_str(&body)?)? {
        Doc::Message(m) => Ok(m),
        other => Err(StoreError::Import(format!(
            "a message row holds another document: {other:?}"
        ))),
    }
}

/// The page of `who`'s messages just before `before` (`None`: the newest), oldest first, and
/// how many older ones are left after it; only messages written by event `upto` or before.
pub fn page_before(
    conn: &Connection,
    who: &str,
    before: Option<(i64, u64)>,
    upto: u64,
    limit: usize,
) -> Result<(Vec<MessageDoc>, usize), StoreError> {
    let (ts, ev) = before.unwrap_or((i64::MAX, u64::MAX));
    let ev = ev.min(i64::MAX as u64) as i64;
    let upto = upto.min(i64::MAX as u64) as i64;
    let mut stmt = conn.prepare_cached(
        "SELECT body FROM docs WHERE owner = ?1 AND (created_at, origin) < (?2, ?3)
             AND origin <= ?4
         ORDER BY created_at DESC, origin DESC LIMIT ?5",
    )?;
    let mut page: Vec<MessageDoc> = stmt
        .query_map(params![who, ts, ev, upto, limit as i64], |r| {
            r.get::<_, String>(0)
        })?
        .map(|b| parse(b?))
        .collect::<Result<_, _>>()?;
    page.reverse();
    let left = match page.first() {
        None => 0,
        Some(first) => {
            let (ts, ev) = place(first);
            conn.prepare_cached(
                "SELECT COUNT(*) FROM docs WHERE owner = ?1 AND (created_at, origin) < (?2, ?3)",
            )?
            .query_row(params![who, ts, ev as i64], |r| r.get::<_, i64>(0))? as usize
        }
    };
    Ok((page, left))
}

/// Every message of `owners`' threads, and (`None`) of every thread.
pub fn messages(
    conn: &Connection,
    owners: Option<&[String]>,
) -> Result<Vec<MessageDoc>, StoreError> {
    let bodies: Vec<String> = match owners {
        None => conn
            .prepare_cached("SELECT body FROM docs WHERE owner IS NOT NULL")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?,
        Some(owners) => {
            let mut stmt = conn.prepare_cached("SELECT body FROM docs WHERE owner = ?1")?;
            let mut all = Vec::new();
            for who in owners {
                all.extend(
                    stmt.query_map([who], |r| r.get::<_, String>(0))?
                        .collect::<Result<Vec<_>, _>>()?,
                );
            }
            all
        }
    };
    bodies.into_iter().map(parse).collect()
}

/// The messages among `ids` that are stored.
pub fn messages_by_id<'a>(
    conn: &Connection,
    ids: impl Iterator<Item = &'a str>,
) -> Result<Vec<MessageDoc>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT body FROM docs WHERE id = ?1 AND type = 'message'")?;
    let mut out = Vec::new();
    for id in ids {
        let body: Option<String> = stmt.query_map([id], |r| r.get(0))?.next().transpose()?;
        if let Some(b) = body {
            out.push(parse(b)?);
        }
    }
    Ok(out)
}
