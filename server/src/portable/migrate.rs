//! `soulgrid migrate --from data/soulgrid.db --to postgres://…`: a team's log moved from its
//! SQLite store into an empty PostgreSQL database as it was (the same ids, the same JSON byte
//! for byte, the documents made again by the reducer), in one transaction: all of it or
//! nothing. Then read back: the last id and the count must be the SQLite store's. The agents'
//! folders stay in the data directory, which the server goes on using with `--database`.

use std::collections::VecDeque;
use std::path::Path;

use super::PortableError;
use crate::store::db::Db;
use crate::store::restore::{last_id, open_read_only, page, restore_postgres};
use crate::store::{Database, StoreError};

/// Events read from SQLite at a time.
const PAGE: usize = 5_000;

/// Moves the log; how many events.
pub fn migrate(
    from: &Path,
    to: &Database,
    progress: &mut dyn FnMut(&str),
) -> Result<u64, PortableError> {
    let Database::Postgres(url) = to else {
        return Err(PortableError::Bad(
            "--to names a PostgreSQL database".into(),
        ));
    };
    let dir = match from.file_name().and_then(|n| n.to_str()) {
        Some("soulgrid.db") => from.parent().unwrap_or(Path::new(".")),
        _ => from,
    };
    let mut source = Db::Sqlite(open_read_only(dir)?);
    let last = last_id(&mut source)?;
    progress(&format!("moving {last} events into {}", to.shown()));
    let events = Pages {
        db: &mut source,
        after: 0,
        upto: last,
        held: VecDeque::new(),
    };
    let restoring = restore_postgres(url, events, |n| {
        progress(&format!("moved {n} of {last} events"))
    })?;
    let written = restoring.keep()?;
    let mut check = Db::connect_postgres(url)?;
    let there = last_id(&mut check)?;
    let count = check
        .row("SELECT COUNT(*) FROM events", &[])?
        .map_or(Ok(0), |r| r.int(0))? as u64;
    if (written, there, count) != (last, last, last) {
        return Err(PortableError::Bad(format!(
            "the database holds {count} events up to {there} after the move, not {last}"
        )));
    }
    Ok(written)
}

/// The log as stored, a page at a time.
struct Pages<'a> {
    db: &'a mut Db,
    after: u64,
    upto: u64,
    held: VecDeque<String>,
}

impl Iterator for Pages<'_> {
    type Item = Result<String, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.held.is_empty() && self.after < self.upto {
            match page(self.db, self.after, self.upto, PAGE) {
                Ok(rows) => {
                    self.after = rows.last().map_or(self.upto, |(id, _)| *id);
                    self.held.extend(rows.into_iter().map(|(_, json)| json));
                }
                Err(e) => {
                    self.after = self.upto;
                    return Some(Err(e));
                }
            }
        }
        self.held.pop_front().map(Ok)
    }
}
