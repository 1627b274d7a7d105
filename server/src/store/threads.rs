//! Messages are not held in memory: the store keeps each thread's newest page (what a page load
//! carries, `docs::page`) and how many messages the thread has; the rest stays in SQLite and is
//! read a page at a time when asked for. Each message row carries its thread and place in it
//! (`schema::threads`), indexed.

use std::collections::{HashMap, VecDeque};

use app::domain::docs::page::{owner, place, Older, PAGE};
use app::domain::docs::{Doc, Docs, MessageDoc};

use super::db::{vals, Db};
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
    pub fn load(db: &mut Db) -> Result<Threads, StoreError> {
        let mut by_owner = HashMap::new();
        let counts: Vec<(String, i64)> = db
            .rows(
                "SELECT owner, COUNT(*) FROM docs WHERE owner IS NOT NULL GROUP BY owner",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.text(0)?, r.int(1)?)))
            .collect::<Result<_, StoreError>>()?;
        for (who, total) in counts {
            let (newest, _) = page_before(db, &who, None, u64::MAX, PAGE)?;
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
    pub(super) fn read(db: &mut Db, who: &str) -> Result<Option<Thread>, StoreError> {
        let total = count(db, "SELECT COUNT(*) FROM docs WHERE owner = $1", vals![who])?;
        if total == 0 {
            return Ok(None);
        }
        let (newest, _) = page_before(db, who, None, u64::MAX, PAGE)?;
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
    db: &mut Db,
    who: &str,
    before: Option<(i64, u64)>,
    upto: u64,
    limit: usize,
) -> Result<(Vec<MessageDoc>, usize), StoreError> {
    let (ts, ev) = before.unwrap_or((i64::MAX, u64::MAX));
    let ev = ev.min(i64::MAX as u64) as i64;
    let upto = upto.min(i64::MAX as u64) as i64;
    let mut page: Vec<MessageDoc> = db
        .rows(
            "SELECT body FROM docs WHERE owner = $1 AND (created_at, origin) < ($2, $3)
                 AND origin <= $4
             ORDER BY created_at DESC, origin DESC LIMIT $5",
            vals![who, ts, ev, upto, limit as u64],
        )?
        .iter()
        .map(|r| parse(r.text(0)?))
        .collect::<Result<_, _>>()?;
    page.reverse();
    let left = match page.first() {
        None => 0,
        Some(first) => {
            let (ts, ev) = place(first);
            count(
                db,
                "SELECT COUNT(*) FROM docs WHERE owner = $1 AND (created_at, origin) < ($2, $3)",
                vals![who, ts, ev],
            )? as usize
        }
    };
    Ok((page, left))
}

/// Every message of `owners`' threads, and (`None`) of every thread.
pub fn messages(db: &mut Db, owners: Option<&[String]>) -> Result<Vec<MessageDoc>, StoreError> {
    let rows = match owners {
        None => db.rows("SELECT body FROM docs WHERE owner IS NOT NULL", &[])?,
        Some(owners) => {
            let mut all = Vec::new();
            for who in owners {
                all.extend(db.rows(
                    "SELECT body FROM docs WHERE owner = $1",
                    vals![who.as_str()],
                )?);
            }
            all
        }
    };
    rows.iter().map(|r| parse(r.text(0)?)).collect()
}

/// The messages among `ids` that are stored.
pub fn messages_by_id<'a>(
    db: &mut Db,
    ids: impl Iterator<Item = &'a str>,
) -> Result<Vec<MessageDoc>, StoreError> {
    let mut out = Vec::new();
    for id in ids {
        let found = db.row(
            "SELECT body FROM docs WHERE id = $1 AND type = 'message'",
            vals![id],
        )?;
        if let Some(r) = found {
            out.push(parse(r.text(0)?)?);
        }
    }
    Ok(out)
}

/// The one number a `COUNT(*)` reads.
fn count(db: &mut Db, sql: &str, params: &[super::db::Val]) -> Result<i64, StoreError> {
    db.row(sql, params)?.map_or(Ok(0), |r| r.int(0))
}
