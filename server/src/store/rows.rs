//! The log's and the documents' rows as the writer (and a restore) writes them: many to a
//! statement, so a batch of group commit is a few round trips to PostgreSQL instead of two or
//! three per event. A batch is cut into chunks of fixed sizes ([`CHUNKS`]), so each statement's
//! shape is prepared once per connection.

use std::collections::HashMap;

use app::domain::docs::Doc;
use app::domain::events::Event;

use super::db::{Db, Val};
use super::StoreError;

/// The rows one statement takes: a batch of `n` is cut into these, the largest first.
const CHUNKS: [usize; 4] = [64, 16, 4, 1];

/// `items` cut into chunks of [`CHUNKS`]' sizes, in order.
fn chunked<T>(items: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        let size = CHUNKS.into_iter().find(|c| *c <= rest.len())?;
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        Some(chunk)
    })
}

/// `($1, …, $width), …`: `rows` rows of `width` parameters each.
fn values(width: usize, rows: usize) -> String {
    (0..rows)
        .map(|r| {
            let row: Vec<String> = (1..=width).map(|c| format!("${}", r * width + c)).collect();
            format!("({})", row.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Inserts events, each with its stored JSON (as written: an import keeps it byte for byte).
pub(super) fn insert_events(tx: &mut Db, events: &[(&Event, &str)]) -> Result<(), StoreError> {
    for chunk in chunked(events) {
        let sql = format!(
            "INSERT INTO events (id, ts, session_id, type, seat, body) VALUES {}",
            values(6, chunk.len())
        );
        let mut params = Vec::with_capacity(6 * chunk.len());
        for (e, body) in chunk {
            params.extend([
                Val::from(e.id),
                Val::from(e.ts),
                Val::from(e.session_id.as_str()),
                Val::from(e.kind.type_name()),
                Val::from(e.kind.seat().map(i64::from)),
                Val::from(*body),
            ]);
        }
        tx.exec(&sql, &params)?;
    }
    Ok(())
}

/// Of the documents `ids`, those stored, each with the thread it is in (a message's owner;
/// `None` for a document that is no message).
pub(super) fn stored_owners(
    tx: &mut Db,
    ids: &[&str],
) -> Result<HashMap<String, Option<String>>, StoreError> {
    let mut found = HashMap::new();
    for chunk in chunked(ids) {
        let sql = format!(
            "SELECT id, owner FROM docs WHERE id IN {}",
            values(chunk.len(), 1)
        );
        let params: Vec<Val> = chunk.iter().map(|id| Val::from(*id)).collect();
        for r in tx.rows(&sql, &params)? {
            found.insert(r.text(0)?, r.opt_text(1)?);
        }
    }
    Ok(found)
}

/// Writes documents (each as it is now, with the event that changed it last), inserted or
/// replaced. Each id at most once.
pub(super) fn upsert_docs(tx: &mut Db, docs: &[(&str, &Doc, u64)]) -> Result<(), StoreError> {
    for chunk in chunked(docs) {
        let sql = format!(
            "INSERT INTO docs (id, type, seat, event_id, body, owner, created_at, origin) \
             VALUES {} \
             ON CONFLICT(id) DO UPDATE SET type = excluded.type, seat = excluded.seat, \
                 event_id = excluded.event_id, body = excluded.body, owner = excluded.owner, \
                 created_at = excluded.created_at, origin = excluded.origin",
            values(8, chunk.len())
        );
        let mut params = Vec::with_capacity(8 * chunk.len());
        for (id, doc, event_id) in chunk {
            params.extend(doc_row(id, doc, *event_id)?);
        }
        tx.exec(&sql, &params)?;
    }
    Ok(())
}

/// A document's row: id, type, seat, event id, body, and for a message its thread and place
/// in it (`schema::threads`).
fn doc_row(id: &str, doc: &Doc, event_id: u64) -> Result<[Val; 8], StoreError> {
    let value = doc.to_value();
    let ty = value
        .get("type")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let seat = value
        .get("gridPosition")
        .or_else(|| value.get("seat"))
        .and_then(|v| v.as_i64());
    let (owner, created_at, origin) = match doc.as_message() {
        Some(m) => (
            Some(app::domain::docs::page::owner(m)),
            Some(m.created_at),
            Some(m.event_id as i64),
        ),
        None => (None, None, None),
    };
    Ok([
        Val::from(id),
        Val::from(ty),
        Val::from(seat),
        Val::from(event_id),
        Val::from(serde_json::to_string(&value)?),
        Val::from(owner),
        Val::from(created_at),
        Val::from(origin),
    ])
}

/// Whether the log passed 1,000 events, or ten times a number it passed before, between
/// `before` and `after`: then PostgreSQL's statistics of the tables are brought up to date
/// ([`analyze_later`]).
pub(super) fn grown(before: u64, after: u64) -> bool {
    let mut mark = Some(1_000u64);
    while let Some(m) = mark.filter(|m| *m <= after) {
        if before < m {
            return true;
        }
        mark = m.checked_mul(10);
    }
    false
}

/// `ANALYZE` of the log's and the documents' tables, on a connection and a thread of its own.
/// A statement prepared while a table was empty keeps the plan made then (a sequential scan)
/// until the table's statistics change: PostgreSQL's autovacuum does that within a minute or
/// so; a store that grows fast (a bench, an import) does it itself as it grows.
pub(super) fn analyze_later(url: String) {
    let spawned = std::thread::Builder::new()
        .name("store-analyze".into())
        .spawn(move || {
            let analyzed =
                Db::connect_postgres(&url).and_then(|mut db| db.batch("ANALYZE events, docs"));
            if let Err(e) = analyzed {
                tracing::warn!(error = %e, "ANALYZE of the store's tables failed");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "ANALYZE of the store's tables not started");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_cut_into_the_fixed_sizes_largest_first() {
        let sizes = |n: usize| -> Vec<usize> { chunked(&vec![0u8; n]).map(<[u8]>::len).collect() };
        assert_eq!(sizes(0), Vec::<usize>::new());
        assert_eq!(sizes(1), [1]);
        assert_eq!(sizes(64), [64]);
        assert_eq!(sizes(150), [64, 64, 16, 4, 1, 1]);
        let items: Vec<usize> = (0..150).collect();
        let again: Vec<usize> = chunked(&items).flatten().copied().collect();
        assert_eq!(again, items);
    }

    #[test]
    fn the_tables_are_analyzed_at_a_thousand_events_and_each_tenfold() {
        assert!(!grown(0, 999));
        assert!(grown(0, 1_000));
        assert!(grown(990, 1_010));
        assert!(!grown(1_000, 9_999));
        assert!(grown(9_990, 10_000));
        assert!(grown(5, 20_000));
        assert!(!grown(10_000, 99_999));
        assert!(!grown(u64::MAX - 1, u64::MAX));
    }

    #[test]
    fn placeholders_number_every_row_in_turn() {
        assert_eq!(values(2, 2), "($1, $2), ($3, $4)");
        assert_eq!(values(3, 1), "($1, $2, $3)");
    }
}
