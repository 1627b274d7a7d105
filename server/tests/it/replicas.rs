//! Replicas on one PostgreSQL database: a store opened as a replica follows the log another
//! store writes (`LISTEN/NOTIFY`, catching up from the table), hands every event to its own
//! followers once and in order, holds the same documents and threads, refuses appends, and
//! catches up after its connection is dropped.

use std::time::Duration;

use app::domain::docs::page::PAGE;
use app::domain::events::EventKind;
use soulgrid::store::{Options, Store, StoreError};

use crate::common::On;

fn said(seat: u8, i: usize) -> EventKind {
    EventKind::UserMessage {
        message_id: format!("m-{seat}-{i:05}"),
        speaker_name: "Human".into(),
        seat,
        text: format!("line {i} to seat {seat}"),
        target_agent: None,
    }
}

fn replica(on: &On, dir: &std::path::Path) -> Store {
    Store::open_with(
        dir,
        Options {
            replica: true,
            ..on.options()
        },
    )
    .unwrap()
}

/// Follows `store` from `after` until event `last`; the ids seen, in order.
async fn seen_until(store: &Store, after: u64, last: u64) -> Vec<u64> {
    let mut follow = store.follow(after);
    let mut seen = Vec::new();
    while seen.last().copied().unwrap_or(after) < last {
        let batch = tokio::time::timeout(Duration::from_secs(20), follow.next(1000))
            .await
            .expect("the replica waited 20 s for events that were committed")
            .expect("open")
            .unwrap();
        seen.extend(batch.ids());
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_follows_every_event_once_in_order_and_refuses_appends() {
    let on = On::postgres();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = on.open(a.path());
    // Some before the replica opens: read at its start.
    for i in 0..30 {
        leader.append("s", said(1, i)).await.unwrap();
    }
    let replica = replica(&on, b.path());
    assert_eq!(replica.last_event_id(), 30);
    let writers: Vec<_> = (0..6u8)
        .map(|w| {
            let leader = leader.clone();
            tokio::spawn(async move {
                for i in 0..40 {
                    let kinds = (0..=(i % 3))
                        .map(|j| said(w + 2, 1000 * w as usize + i * 3 + j))
                        .collect();
                    leader.append_all("s", kinds).await.unwrap();
                }
            })
        })
        .collect();
    let per_writer: u64 = (0..40).map(|i| i % 3 + 1).sum();
    let watching = tokio::spawn({
        let replica = replica.clone();
        async move { seen_until(&replica, 0, 30 + 6 * per_writer).await }
    });
    for w in writers {
        w.await.unwrap();
    }
    let last = leader.last_event_id();
    assert_eq!(last, 30 + 6 * per_writer);
    let seen = watching.await.unwrap();
    assert_eq!(
        seen,
        (1..=last).collect::<Vec<_>>(),
        "each event once, in order"
    );
    assert_eq!(replica.last_event_id(), last);
    assert_eq!(replica.snapshot().0, leader.snapshot().0);
    assert_eq!(
        replica.page_snapshot(|_| None, PAGE),
        leader.page_snapshot(|_| None, PAGE),
        "the same threads' newest pages and counts"
    );
    assert!(matches!(
        replica.append("s", said(1, 99)).await,
        Err(StoreError::Replica)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_whose_connection_drops_catches_up_from_the_table() {
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = on.open(a.path());
    let replica = replica(&on, b.path());
    leader.append("s", said(1, 0)).await.unwrap();
    assert_eq!(seen_until(&replica, 0, 1).await, [1]);
    // Its listening connection is ended by the database; meanwhile the leader writes on.
    let ended = std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = 'soulgrid-tail' AND datname = current_database()",
            &[],
        )
        .unwrap()
        .len()
    })
    .join()
    .unwrap();
    assert_eq!(ended, 1, "the replica's one listening connection");
    for i in 1..50 {
        leader.append("s", said(1, i)).await.unwrap();
    }
    assert_eq!(
        seen_until(&replica, 1, 50).await,
        (2..=50).collect::<Vec<_>>()
    );
    assert_eq!(replica.snapshot().0, leader.snapshot().0);
}

#[tokio::test]
async fn a_replica_needs_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let err = Store::open_with(
        dir.path(),
        Options {
            replica: true,
            ..Default::default()
        },
    )
    .err()
    .expect("refused");
    assert!(matches!(err, StoreError::ReplicaNeedsPostgres), "{err}");
}
