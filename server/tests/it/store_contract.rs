//! The store's contract (docs/DESIGN.md §4) on both databases, SQLite and PostgreSQL: events
//! get strictly increasing, gap-free ids in the order they were committed, each caller's
//! events together; batches are committed together (group commit); the documents are the
//! reducer's fold of the log, in memory, after a reopen and at any point of the past. With
//! `threads` and `follow` (also on both), and PostgreSQL's own faults: a schema from a newer
//! soulgrid, a database that is not there.

use std::collections::BTreeSet;

use app::domain::docs::{commit, Docs};
use app::domain::events::{Event, EventKind};
use app::domain::reducer::apply;
use proptest::prelude::*;
use soulgrid::store::Store;

use crate::common::{self, On};

crate::on_both!(
    concurrent_callers_get_gap_free_ids_and_the_documents_are_the_logs_fold,
    the_past_is_the_fold_of_the_log_up_to_it,
    arbitrary_batches_keep_the_contract,
    large_batches_and_messages_written_again_keep_the_contract,
);

/// A message from the human to `seat`, the `i`th.
pub(crate) fn said(seat: u8, i: usize) -> EventKind {
    EventKind::UserMessage {
        message_id: format!("m-{seat}-{i:05}"),
        speaker_name: "Human".into(),
        seat,
        text: format!("line {i} to seat {seat}"),
        target_agent: None,
    }
}

fn error(seat: u8, i: usize) -> EventKind {
    EventKind::RuntimeError {
        seat: Some(seat),
        message: format!("trouble {i}"),
    }
}

fn fold(events: &[Event]) -> Docs {
    let mut docs = Docs::new();
    for e in events {
        let writes = apply(&docs, e);
        commit(&mut docs, writes);
    }
    docs
}

/// The whole log, read back.
async fn log(store: &Store) -> Vec<Event> {
    store.events_after(0, usize::MAX >> 1).await.unwrap()
}

/// Every id from 1 on, once, in order; the documents (messages too) the fold of the log.
async fn holds(store: &Store) -> Vec<Event> {
    let events = log(store).await;
    let ids: Vec<u64> = events.iter().map(|e| e.id).collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());
    assert_eq!(store.last_event_id(), ids.len() as u64);
    assert_eq!(
        store.snapshot().0,
        fold(&events),
        "the documents fold the log"
    );
    events
}

async fn concurrent_callers_get_gap_free_ids_and_the_documents_are_the_logs_fold(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    let mut live = store.subscribe();
    let callers: Vec<_> = (0..8u8)
        .map(|c| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut got = Vec::new();
                for i in 0..40 {
                    let kinds = (0..=(i % 3))
                        .map(|j| {
                            let n = i * 3 + j;
                            if n % 5 == 0 {
                                error(c + 1, n)
                            } else {
                                said(c % 8 + 1, c as usize * 1000 + n)
                            }
                        })
                        .collect::<Vec<_>>();
                    let want = kinds.len();
                    let events = store.append_all("s", kinds).await.unwrap();
                    assert_eq!(events.len(), want);
                    // A caller's events are committed together, one after the other.
                    assert!(events.windows(2).all(|w| w[1].id == w[0].id + 1));
                    got.extend(events);
                }
                got
            })
        })
        .collect();
    let mut answered = Vec::new();
    for c in callers {
        answered.extend(c.await.unwrap());
    }
    let total = answered.len() as u64;
    let events = holds(&store).await;
    assert_eq!(events.len() as u64, total);
    // What each caller was answered is what the log holds.
    answered.sort_by_key(|e| e.id);
    assert_eq!(
        serde_json::to_value(&answered).unwrap(),
        serde_json::to_value(&events).unwrap()
    );
    // Group commit: the events came in fewer transactions than there were events, in order.
    let mut transactions = BTreeSet::new();
    let mut seen = 0;
    while let Ok(c) = live.try_recv() {
        seen += 1;
        assert_eq!(c.event.id, seen, "published in commit order");
        transactions.insert(c.transaction);
    }
    assert_eq!(seen, total);
    assert!(
        (transactions.len() as u64) < total,
        "{} transactions for {total} events",
        transactions.len()
    );
    // Opened again, the documents are read back as they were.
    let before = store.snapshot().0;
    drop(store);
    let store = on.open(dir.path());
    assert_eq!(store.snapshot().0, before);
    holds(&store).await;
    // And ids go on from the last.
    let next = store.append("s", said(1, 99_999)).await.unwrap();
    assert_eq!(next.id, total + 1);
}

async fn the_past_is_the_fold_of_the_log_up_to_it(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    for i in 0..30 {
        store
            .append_all("s", vec![said(2, i), error(2, i)])
            .await
            .unwrap();
    }
    let events = holds(&store).await;
    for at in [0u64, 1, 17, 31, 60] {
        let (docs, ts) = store.docs_at(at).await.unwrap();
        let upto = &events[..at as usize];
        assert_eq!(docs, fold(upto), "after event {at}");
        assert_eq!(ts, upto.last().map_or(0, |e| e.ts));
    }
}

/// Batches of messages and other events, of any size, from several callers at once.
/// A batch larger than a statement takes (64 rows), then messages written again by later events
/// (stored already, and out of memory), some into another seat's thread: the documents are the
/// log's fold, and the threads the same when read again from the database.
async fn large_batches_and_messages_written_again_keep_the_contract(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    let first: Vec<EventKind> = (0..150).map(|i| said((i % 3) as u8 + 1, i)).collect();
    store.append_all("s", first).await.unwrap();
    let again: Vec<EventKind> = (0..70)
        .map(|i| EventKind::UserMessage {
            message_id: format!("m-{}-{i:05}", i % 3 + 1),
            speaker_name: "Human".into(),
            seat: if i % 2 == 0 { (i % 3) as u8 + 1 } else { 5 },
            text: format!("again {i}"),
            target_agent: None,
        })
        .collect();
    store.append_all("s", again).await.unwrap();
    assert_eq!(holds(&store).await.len(), 220);
    let page = |s: &Store| s.page_snapshot(|_| None, app::domain::docs::page::PAGE);
    let before = page(&store);
    drop(store);
    let reopened = on.open(dir.path());
    assert_eq!(
        page(&reopened),
        before,
        "the threads as the database holds them"
    );
    holds(&reopened).await;
}

fn batches() -> impl Strategy<Value = Vec<Vec<(bool, u8)>>> {
    prop::collection::vec(prop::collection::vec((any::<bool>(), 1u8..=8), 1..6), 1..24)
}

async fn arbitrary_batches_keep_the_contract(on: On) {
    let config = ProptestConfig {
        cases: 6,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let handle = tokio::runtime::Handle::current();
    runner
        .run(&batches(), |batches| {
            let on = match &on {
                On::Sqlite => On::Sqlite,
                On::Postgres(_) => On::postgres(),
            };
            tokio::task::block_in_place(|| handle.block_on(case(on, batches)));
            Ok(())
        })
        .unwrap();
}

async fn case(on: On, batches: Vec<Vec<(bool, u8)>>) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    let mut n = 0;
    let calls: Vec<_> = batches
        .into_iter()
        .map(|batch| {
            let kinds: Vec<EventKind> = batch
                .into_iter()
                .map(|(message, seat)| {
                    n += 1;
                    if message {
                        said(seat, n)
                    } else {
                        error(seat, n)
                    }
                })
                .collect();
            let store = store.clone();
            tokio::spawn(async move { store.append_all("p", kinds).await.unwrap() })
        })
        .collect();
    for c in calls {
        let events = c.await.unwrap();
        assert!(events.windows(2).all(|w| w[1].id == w[0].id + 1));
    }
    let events = holds(&store).await;
    assert_eq!(events.len(), n);
    let before = store.snapshot().0;
    drop(store);
    assert_eq!(on.open(dir.path()).snapshot().0, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_from_a_newer_soulgrid_is_refused_with_both_versions() {
    let on = On::postgres();
    let dir = tempfile::tempdir().unwrap();
    drop(on.open(dir.path()));
    let On::Postgres(url) = &on else {
        unreachable!()
    };
    let url = url.clone();
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let applied: i64 = c
            .query_one("SELECT COUNT(*) FROM soulgrid_migrations", &[])
            .unwrap()
            .get(0);
        assert_eq!(
            applied,
            soulgrid::store::SCHEMA_VERSION,
            "each migration recorded once, a reopen added none"
        );
        c.batch_execute("INSERT INTO soulgrid_migrations (version, name) VALUES (99, 'later')")
            .unwrap();
    })
    .join()
    .unwrap();
    let err = Store::open_with(dir.path(), on.options())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("version 99")
            && err.contains(&format!("({})", soulgrid::store::SCHEMA_VERSION)),
        "{err}"
    );
}

#[tokio::test]
async fn a_database_that_is_not_there_is_a_clear_startup_error() {
    let _serial = crate::SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let url = format!("postgres://sg:secret@127.0.0.1:{port}/team");
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let err = soulgrid::boot(&common::config(dir.path(), &["--database", &url]), options)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("opening the store on postgres://sg:***@127.0.0.1")
            && err.contains("PostgreSQL")
            && !err.contains("secret"),
        "{err}"
    );
}

/// A store on a new PostgreSQL database holding one message; the database's URL.
async fn with_one_message() -> (String, tempfile::TempDir, Store) {
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    store.append("s", said(1, 0)).await.unwrap();
    (url, dir, store)
}

/// The database ends every connection of the store (a restart of PostgreSQL, a network cut):
/// an append in flight fails and says so, the next ones connect again and are stored after the
/// last id, and the reads come back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_the_database_ended_are_made_again() {
    let (url, _dir, store) = with_one_message().await;
    let ended = std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap()
        .len()
    })
    .join()
    .unwrap();
    assert!(
        ended >= 3,
        "the writer's, the reader's and time travel's: {ended}"
    );
    // The first append may meet the ended connection (and fail, saying so); none is lost
    // once answered, and the next ones are stored.
    let mut stored = vec![1];
    for i in 1..6 {
        if let Ok(e) = store.append("s", said(1, i)).await {
            stored.push(e.id);
        }
    }
    assert!(stored.len() >= 5, "{stored:?}");
    let events = holds(&store).await;
    assert_eq!(
        events.iter().map(|e| e.id).collect::<Vec<_>>(),
        stored,
        "what was answered is what is stored"
    );
    assert_eq!(store.docs_at(2).await.unwrap().0, fold(&events[..2]));
}

/// Reads do not wait on one another (a pool of read connections): one held up by a lock on the
/// log leaves a thread's page to be read meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_held_up_holds_up_no_other() {
    let (url, _dir, store) = with_one_message().await;
    let locked = common::locks::lock_table(&url, "events");
    let held_up = tokio::spawn({
        let store = store.clone();
        async move { store.events_after(0, 100).await }
    });
    // The read of the log waits on the lock.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while common::locks::waiting_on_locks(&url, None) != 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "the read never waited"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let page = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        store.older(
            app::domain::docs::page::seat_owner(1),
            (i64::MAX, u64::MAX),
            10,
        ),
    )
    .await
    .expect("a thread's page read while the log's read waits")
    .unwrap();
    assert_eq!(page.0.len(), 1);
    drop(locked);
    assert_eq!(held_up.await.unwrap().unwrap().len(), 1);
}

/// A log that passes 1,000 events has its tables' statistics brought up to date by the store
/// itself (`ANALYZE`, which sets `last_analyze`; autovacuum would set `last_autoanalyze`), so
/// no statement keeps a plan made while they were empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_growing_log_has_its_tables_analyzed() {
    let (url, _dir, store) = with_one_message().await;
    for b in 0..10 {
        let kinds = (0..100).map(|i| said(2, b * 100 + i)).collect();
        store.append_all("s", kinds).await.unwrap();
    }
    let analyzed = move || {
        let url = url.clone();
        std::thread::spawn(move || {
            let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            c.query_one(
                "SELECT count(*) FROM pg_stat_user_tables \
                 WHERE relname IN ('events', 'docs') AND last_analyze IS NOT NULL",
                &[],
            )
            .unwrap()
            .get::<_, i64>(0)
        })
        .join()
        .unwrap()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while analyzed() != 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the tables were not analyzed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
