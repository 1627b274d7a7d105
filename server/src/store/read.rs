//! Reads: the log after an id, the documents, the last event.

use app::domain::docs::{Doc, Docs};
use app::domain::events::Event;
use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;

/// Up to `limit` events with id greater than `after` and at most `upto`, in order.
pub fn events_after(
    conn: &Connection,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<Event>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT body FROM events WHERE id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![after as i64, upto as i64, limit as i64], |r| {
        r.get::<_, String>(0)
    })?;
    rows.map(|body| Ok(serde_json::from_str(&body?)?)).collect()
}

/// The raw JSON of events after `after` and at most `upto`: what SSE sends, byte for byte as
/// stored.
pub fn raw_events_after(
    conn: &Connection,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<(u64, String)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, body FROM events WHERE id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![after as i64, upto as i64, limit as i64], |r| {
        Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn last_event(conn: &Connection) -> Result<Option<Event>, StoreError> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body FROM events ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
}

/// The log's line of time (`None` for an empty log): its first and newest event, each
/// session's start (from `events_sessions`) and each quest's (from the documents `docs`).
pub fn timeline(
    conn: &Connection,
    docs: &Docs,
) -> Result<Option<app::domain::moment::Timeline>, StoreError> {
    let ends: Option<(i64, i64)> = conn.query_row(
        "SELECT (SELECT ts FROM events ORDER BY id LIMIT 1), \
                    (SELECT ts FROM events ORDER BY id DESC LIMIT 1)",
        [],
        |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
    )?;
    let Some((first, last)) = ends else {
        return Ok(None);
    };
    let mut stmt =
        conn.prepare("SELECT ts FROM events WHERE type = 'session_start' ORDER BY id")?;
    let sessions = stmt
        .query_map([], |r| r.get::<_, i64>(0))?
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
pub fn last_session_event(conn: &Connection) -> Result<Option<Event>, StoreError> {
    let body: Option<String> = conn
        .query_row(LAST_SESSION_EVENT, [], |r| r.get(0))
        .optional()?;
    Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
}

/// Every document but the messages (`threads` reads those).
pub fn load_docs(conn: &Connection) -> Result<Docs, StoreError> {
    let mut stmt = conn.prepare(DOCS_BUT_MESSAGES)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut docs = Docs::new();
    for row in rows {
        let (id, body) = row?;
        let value: serde_json::Value = serde_json::from_str(&body)?;
        docs.insert(id, Doc::from_value(value)?);
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

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
