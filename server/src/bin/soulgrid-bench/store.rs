//! P3, durable appends with group commit beside raw batched SQLite inserts on the same disk;
//! P4, a fresh client catching up on the log.

use std::path::Path;
use std::time::Instant;

use soulgrid::store::{new_message_id, Store};

use crate::serve::{message, serve, sse_client, stop};
use crate::table::{thousands, Row};

/// The reference figures' table: one row per insert, an integer key and a JSON body.
pub const RAW_ROWS: &str = "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)";

/// A new SQLite database `file` in `dir` made with `schema`, committing as the store does
/// (WAL, `synchronous=FULL`: each commit fsync'd).
pub fn raw_db(dir: &Path, file: &str, schema: &str) -> rusqlite::Connection {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(file);
    std::fs::remove_file(&path).ok();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.execute_batch(schema).unwrap();
    conn
}

/// Raw inserts of a message-sized row, `batch` rows per fsync'd transaction (the statement
/// prepared once): rows/s.
fn raw_sqlite_rate(dir: &Path, rows: usize, batch: usize) -> f64 {
    let mut conn = raw_db(dir, "raw.db", RAW_ROWS);
    let body = serde_json::to_string(&message("x".repeat(40))).unwrap();
    let start = Instant::now();
    for chunk in 0..rows.div_ceil(batch) {
        let tx = conn.transaction().unwrap();
        for i in 0..batch.min(rows - chunk * batch) {
            tx.prepare_cached("INSERT INTO t (id, body) VALUES (?1, ?2)")
                .unwrap()
                .execute(rusqlite::params![(chunk * batch + i) as i64, body])
                .unwrap();
        }
        tx.commit().unwrap();
    }
    rows as f64 / start.elapsed().as_secs_f64()
}

/// As the store writes an event: its row, and its document's row keyed by a new message's id
/// (time-ordered, as the server makes them), `batch` events per fsync'd transaction: events/s.
fn raw_event_and_doc_rate(dir: &Path, rows: usize, batch: usize) -> f64 {
    let mut conn = raw_db(
        dir,
        "pair.db",
        "CREATE TABLE e (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
         CREATE TABLE d (id TEXT PRIMARY KEY, body TEXT NOT NULL);",
    );
    let body = serde_json::to_string(&message("x".repeat(40))).unwrap();
    let start = Instant::now();
    for chunk in 0..rows.div_ceil(batch) {
        let tx = conn.transaction().unwrap();
        for i in 0..batch.min(rows - chunk * batch) {
            let id = (chunk * batch + i) as i64;
            tx.prepare_cached("INSERT INTO e (id, body) VALUES (?1, ?2)")
                .unwrap()
                .execute(rusqlite::params![id, body])
                .unwrap();
            let key = format!("message:{}", new_message_id());
            tx.prepare_cached("INSERT INTO d (id, body) VALUES (?1, ?2)")
                .unwrap()
                .execute(rusqlite::params![key, body])
                .unwrap();
        }
        tx.commit().unwrap();
    }
    rows as f64 / start.elapsed().as_secs_f64()
}

/// `appenders` tasks each appending `per` events one at a time to `store`, every caller
/// answered after its batch is durable: events/s.
pub async fn group_commit_rate(store: Store, appenders: usize, per: usize) -> f64 {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for a in 0..appenders {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..per {
                store
                    .append("bench", message(format!("{a}-{i}")))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (appenders * per) as f64 / start.elapsed().as_secs_f64()
}

/// P3, and its rate (events/s).
pub fn group_commit(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool) -> (Row, f64) {
    eprintln!("P3: group commit against raw batched inserts…");
    let (appenders, per) = if quick { (64, 20) } else { (64, 400) };
    let store = Store::open(&dir.join("gc")).unwrap();
    let gc = rt.block_on(group_commit_rate(store, appenders, per));
    let raw = raw_sqlite_rate(&dir.join("raw"), appenders * per, appenders);
    let single = raw_sqlite_rate(&dir.join("raw"), if quick { 200 } else { 1000 }, 1);
    let pair = raw_event_and_doc_rate(&dir.join("raw"), appenders * per, appenders);
    let row = Row::new(
        "P3",
        "durable appends with group commit, 64 concurrent appenders (each answered after its batch is fsync'd)",
        "≥ 50,000 events/s and ≥ 50 % of raw batched inserts",
    )
    .measured(
        format!("{} events/s", thousands(gc)),
        gc >= 50_000.0 && gc >= 0.5 * raw,
    )
    .ratio(format!(
        "{:.0} % of raw inserts, 64 per fsync'd transaction ({} rows/s; 1 per transaction: {} rows/s); {:.0} % of raw inserts of an event row and a document row keyed by a new message's id, 64 events per transaction ({} events/s)",
        100.0 * gc / raw,
        thousands(raw),
        thousands(single),
        100.0 * gc / pair,
        thousands(pair)
    ));
    (row, gc)
}

pub fn catch_up(
    rt: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    dir: &Path,
    quick: bool,
) -> Row {
    eprintln!("P4: a fresh client catching up…");
    let total: u64 = if quick { 10_000 } else { 100_000 };
    let (state, port) = rt.block_on(serve(dir, &[]));
    rt.block_on(async {
        let kinds: Vec<_> = (0..total).map(|i| message(format!("replay {i}"))).collect();
        for chunk in kinds.chunks(2000) {
            state
                .store
                .append_all(&state.session.id(), chunk.to_vec())
                .await
                .unwrap();
        }
    });
    let last = state.store.last_event_id();
    let start = Instant::now();
    client.block_on(async {
        let mut seen = 0u64;
        sse_client(port, 0, |chunk| {
            seen += chunk.lines().filter(|l| l.starts_with("id: ")).count() as u64;
            seen < last
        })
        .await;
    });
    let took = start.elapsed().as_secs_f64() * 1000.0;
    stop(rt, &state);
    Row::new(
        "P4",
        &format!(
            "a fresh SSE client receiving {} events from after=0",
            thousands(last as f64)
        ),
        "≤ 300 ms (100,000 events)",
    )
    .measured(
        format!(
            "{took:.0} ms ({} events/s)",
            thousands(last as f64 / took * 1000.0)
        ),
        took <= 300.0 * last as f64 / 100_000.0,
    )
}
