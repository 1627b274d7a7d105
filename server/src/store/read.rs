//! Reads: the log after an id, the documents, the last event.

use app::domain::docs::{Doc, Docs};
use app::domain::events::Event;

use super::db::{vals, Db};
use super::StoreError;

/// Up to `limit` events with id greater than `after` and at most `upto`, in order.
pub fn events_after(
    db: &mut Db,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<Event>, StoreError> {
    raw_events_after(db, after, upto, limit)?
        .into_iter()
        .map(|(_, body)| Ok(serde_json::from_str(&body)?))
        .collect()
}

/// The raw JSON of events after `after` and at most `upto`: what SSE sends, byte for byte as
/// stored.
pub fn raw_events_after(
    db: &mut Db,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<(u64, String)>, StoreError> {
    db.rows(
        "SELECT id, body FROM events WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3",
        vals![after, upto, limit as u64],
    )?
    .into_iter()
    .map(|r| Ok((r.int(0)? as u64, r.text(1)?)))
    .collect()
}

pub fn last_event(db: &mut Db) -> Result<Option<Event>, StoreError> {
    one_event(db, "SELECT body FROM events ORDER BY id DESC LIMIT 1")
}

fn one_event(db: &mut Db, sql: &str) -> Result<Option<Event>, StoreError> {
    match db.row(sql, &[])? {
        Some(r) => Ok(Some(serde_json::from_str(&r.text(0)?)?)),
        None => Ok(None),
    }
}

/// The log's line of time (`None` for an empty log): its first and newest event, each
/// session's start (from `events_sessions`) and each quest's (from the documents `docs`).
pub fn timeline(
    db: &mut Db,
    docs: &Docs,
) -> Result<Option<app::domain::moment::Timeline>, StoreError> {
    let ends = db
        .row(
            "SELECT (SELECT ts FROM events ORDER BY id LIMIT 1), \
                    (SELECT ts FROM events ORDER BY id DESC LIMIT 1)",
            &[],
        )?
        .map(|r| Ok::<_, StoreError>(r.opt_int(0)?.zip(r.opt_int(1)?)))
        .transpose()?
        .flatten();
    let Some((first, last)) = ends else {
        return Ok(None);
    };
    let sessions = db
        .rows(
            "SELECT ts FROM events WHERE type = 'session_start' ORDER BY id",
            &[],
        )?
        .iter()
        .map(|r| r.int(0))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(app::domain::moment::Timeline {
        first,
        last: last.max(first),
        sessions,
        quests: app::domain::moment::quest_marks(docs),
    }))
}

/// Searches `events_sessions` (`schema::open`), which holds these events alone.
const LAST_SESSION_EVENT: &str = "SELECT body FROM events
    WHERE type IN ('session_start', 'session_end') ORDER BY id DESC LIMIT 1";

/// Messages, and only they, have an owner (`schema::threads`): searches `docs_rest`, which
/// holds the other documents alone.
const DOCS_BUT_MESSAGES: &str = "SELECT id, body FROM docs WHERE owner IS NULL";

/// The last `session_start` or `session_end`, to tell whether the previous run ended cleanly.
pub fn last_session_event(db: &mut Db) -> Result<Option<Event>, StoreError> {
    one_event(db, LAST_SESSION_EVENT)
}

/// Every document but the messages (`threads` reads those).
pub fn load_docs(db: &mut Db) -> Result<Docs, StoreError> {
    let mut docs = Docs::new();
    for row in db.rows(DOCS_BUT_MESSAGES, &[])? {
        let value: serde_json::Value = serde_json::from_str(&row.text(1)?)?;
        docs.insert(row.text(0)?, Doc::from_value(value)?);
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
    }

    /// A start reads the documents but the messages and the last session event: each from an
    /// index that holds those rows alone (which appending a message does not touch), not by
    /// reading the whole table.
    #[test]
    fn a_start_reads_through_indexes_that_hold_only_what_it_reads() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::super::schema::open(&dir.path().join("s.db")).unwrap();
        let docs = plan(&conn, DOCS_BUT_MESSAGES);
        assert!(docs.contains("USING INDEX docs_rest"), "{docs}");
        let session = plan(&conn, LAST_SESSION_EVENT);
        assert!(session.contains("USING INDEX events_sessions"), "{session}");
    }
}
