//! Time travel: the documents as they were after any event, computed by the same reducer over
//! a prefix of the log. Checkpoints (the documents after every `spacing`-th event) are kept as
//! they are met, so a point is replayed from the nearest one below it; when there are too many,
//! every other one goes and the spacing doubles, so memory stays bounded as the log grows.
//! They are built by the first look back (not at startup) and let go when nobody has looked
//! back for a while.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::domain::docs::{commit, Docs};
use app::domain::events::Event;
use app::domain::moment::{clamp_event, clamp_time, At, Clamped, Timeline};
use app::domain::reducer::apply;

use super::db::{vals, Db};
use super::StoreError;

/// The most checkpoints kept (each is a copy of the documents: memory grows with it).
pub const MOST: usize = 8;

pub struct History {
    checkpoints: Mutex<Checkpoints>,
}

struct Checkpoints {
    /// The spacing a new history starts with.
    first_spacing: u64,
    spacing: u64,
    at: BTreeMap<u64, Arc<Docs>>,
    /// When time travel was last asked for.
    used: Instant,
}

impl History {
    pub fn new(spacing: u64) -> Self {
        History {
            checkpoints: Mutex::new(Checkpoints {
                first_spacing: spacing.max(1),
                spacing: spacing.max(1),
                at: BTreeMap::new(),
                used: Instant::now(),
            }),
        }
    }

    /// Lets the checkpoints go when time travel has not been asked for in `idle` (they are
    /// copies of the documents: memory the server does not need while nobody looks back);
    /// whether there were any.
    pub fn forget_if_idle(&self, idle: Duration) -> bool {
        let mut c = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
        if c.at.is_empty() || c.used.elapsed() < idle {
            return false;
        }
        c.at.clear();
        c.spacing = c.first_spacing;
        true
    }

    /// The documents after event `upto` (0: before the first), read from `conn`.
    pub fn docs_at(&self, db: &mut Db, upto: u64) -> Result<Docs, StoreError> {
        let (from, base) = {
            let mut c = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
            c.used = Instant::now();
            c.at.range(..=upto)
                .next_back()
                .map(|(id, docs)| (*id, docs.clone()))
                .unwrap_or((0, Arc::new(Docs::new())))
        };
        let mut docs = Arc::unwrap_or_clone(base);
        let mut after = from;
        while after < upto {
            let page = super::read::raw_events_after(db, after, upto, 5000)?;
            if page.is_empty() {
                break;
            }
            for (_, body) in page {
                let event: Event = serde_json::from_str(&body)?;
                let writes = apply(&docs, &event);
                commit(&mut docs, writes);
                after = event.id;
                self.keep(after, &docs);
            }
        }
        Ok(docs)
    }

    /// Keeps the documents after event `id` when it is a checkpoint not kept yet.
    fn keep(&self, id: u64, docs: &Docs) {
        let mut c = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
        if !id.is_multiple_of(c.spacing) || c.at.contains_key(&id) {
            return;
        }
        c.at.insert(id, Arc::new(docs.clone()));
        if c.at.len() > MOST {
            c.spacing *= 2;
            let spacing = c.spacing;
            c.at.retain(|k, _| k % spacing == 0);
        }
    }

    /// How many checkpoints are kept, and their spacing (for the bench).
    pub fn checkpoints(&self) -> (usize, u64) {
        let c = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
        (c.at.len(), c.spacing)
    }
}

/// The event the moment `at` names on a log of `last` events whose line of time is `line`: an
/// event (within the log), or the last event at or before a time; and where a moment outside
/// the log was clamped to (`domain::moment`).
pub fn resolve(
    db: &mut Db,
    at: At,
    last: u64,
    line: Option<&Timeline>,
) -> Result<(u64, Option<Clamped>), StoreError> {
    match at {
        At::Event(n) => Ok(clamp_event(n, last)),
        At::Time(ms) => match line.and_then(|l| clamp_time(ms, l, last)) {
            Some((id, why)) => Ok((id, Some(why))),
            None => Ok((ts_to_id(db, ms)?.min(last), None)),
        },
    }
}

fn ts_to_id(db: &mut Db, ms: i64) -> Result<u64, StoreError> {
    let row = db.row(
        "SELECT COALESCE(MAX(id), 0) FROM events WHERE ts <= $1",
        vals![ms],
    )?;
    Ok(row.map_or(Ok(0), |r| r.int(0))? as u64)
}
