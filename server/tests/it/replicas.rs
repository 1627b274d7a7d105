//! Replicas on one PostgreSQL database: a store opened as a replica follows the log another
//! store writes (`LISTEN/NOTIFY`, catching up from the table), hands every event to its own
//! followers once and in order, holds the same documents and threads, refuses appends, and
//! catches up after its connection is dropped. One lease row says which server leads; its
//! token fences the leader's appends.

use std::time::Duration;

use app::domain::docs::page::PAGE;
use soulgrid::store::lease::Lease;
use soulgrid::store::{Options, Store, StoreError};

use crate::common::On;

use crate::store_contract::said;

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

/// A replica that would not look at the table on its own for an hour.
fn notified_only(on: &On, dir: &std::path::Path) -> Store {
    Store::open_with(
        dir,
        Options {
            replica: true,
            replica_poll: Duration::from_secs(3600),
            ..on.options()
        },
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_alone_carry_a_replica() {
    let on = On::postgres();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = on.open(a.path());
    let replica = notified_only(&on, b.path());
    for i in 0..20u64 {
        leader.append("s", said(1, i as usize)).await.unwrap();
        assert_eq!(seen_until(&replica, i, i + 1).await, [i + 1]);
    }
}

/// A storm of notifications (2,000 commits of their own, while the replica is held up reading)
/// is a few reads of the table, not one each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notify_storm_is_coalesced() {
    const STORM: usize = 2_000;
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = on.open(a.path());
    let replica = notified_only(&on, b.path());
    leader.append("s", said(1, 0)).await.unwrap();
    assert_eq!(seen_until(&replica, 0, 1).await, [1]);
    let (before, _) = replica.replica_counts();
    let notified = |replica: &Store| replica.replica_counts().1;
    let heard = notified(&replica);
    // The replica's next read waits on this lock while the storm is sent.
    let locked = crate::common::locks::lock_table(&url, "events");
    let storm = std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        for i in 0..STORM {
            c.execute("SELECT pg_notify('soulgrid_events', $1)", &[&i.to_string()])
                .unwrap();
            // The first woke the replica: its read waits on the lock before the rest is sent.
            while i == 0 && crate::common::locks::waiting_on_locks(&url, Some("soulgrid-tail")) != 1
            {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the replica's read never waited on the lock"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    tokio::task::spawn_blocking(move || storm.join().unwrap())
        .await
        .unwrap();
    tokio::task::spawn_blocking(move || drop(locked))
        .await
        .unwrap();
    // Every notification taken, the event's too.
    leader.append("s", said(1, 1)).await.unwrap();
    assert_eq!(seen_until(&replica, 1, 2).await, [2]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while notified(&replica) < heard + STORM as u64 + 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "{} of {} notifications taken",
            notified(&replica) - heard,
            STORM + 1
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let reads = replica.replica_counts().0 - before;
    assert!(
        reads <= 20,
        "{STORM} notifications and one event were {reads} reads of the table"
    );
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

/// Runs `f` on a thread of its own (the lease's calls block).
fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(f).join().unwrap()
}

fn lease(url: &str, owner: &str, span_ms: u64) -> std::sync::Arc<Lease> {
    let (url, owner) = (url.to_string(), owner.to_string());
    blocking(move || {
        std::sync::Arc::new(
            Lease::connect(
                &url,
                &owner,
                &format!("http://{owner}"),
                Duration::from_millis(span_ms),
            )
            .unwrap(),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_servers_racing_for_the_lease_one_wins_and_it_passes_on_when_let_go() {
    let On::Postgres(url) = On::postgres() else {
        unreachable!()
    };
    let (a, b) = (lease(&url, "a", 60_000), lease(&url, "b", 60_000));
    // Both at once, from their own threads, ten times on the same row: one taking each time.
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let race = |l: std::sync::Arc<Lease>, barrier: std::sync::Arc<std::sync::Barrier>| {
        std::thread::spawn(move || {
            barrier.wait();
            l.take().unwrap()
        })
    };
    let ta = race(a.clone(), barrier.clone());
    let tb = race(b.clone(), barrier.clone());
    let (ta, tb) = (ta.join().unwrap(), tb.join().unwrap());
    assert!(
        ta.is_some() != tb.is_some(),
        "exactly one wins: {ta:?} {tb:?}"
    );
    let (winner, loser, token) = match (ta, tb) {
        (Some(t), None) => (a, b, t),
        (None, Some(t)) => (b, a, t),
        _ => unreachable!(),
    };
    let held = blocking({
        let loser = loser.clone();
        move || loser.holder().unwrap().unwrap()
    });
    assert_eq!(
        (held.owner.as_str(), held.token, held.live),
        (winner.owner(), token, true)
    );
    assert_eq!(held.address, format!("http://{}", winner.owner()));
    let (w, l) = (winner.clone(), loser.clone());
    blocking(move || {
        assert!(w.renew(token).unwrap(), "the holder renews");
        assert!(!l.renew(token).unwrap(), "another cannot renew it");
        assert_eq!(l.take().unwrap(), None, "nor take it while it is live");
        w.release(token).unwrap();
        assert_eq!(
            l.take().unwrap(),
            Some(token + 1),
            "let go, it is taken at once"
        );
        assert!(!w.renew(token).unwrap(), "the old holder's token is spent");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_whose_lease_lapsed_or_was_taken_is_fenced_and_stores_nothing() {
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let a = lease(&url, "a", 2_000);
    let token = blocking({
        let a = a.clone();
        move || a.take().unwrap().unwrap()
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_with(
        dir.path(),
        Options {
            fence: Some(token),
            ..on.options()
        },
    )
    .unwrap();
    store.append("s", said(1, 0)).await.unwrap();
    // Lapsed on the database's clock, taken by nobody: refused all the same.
    let b = lease(&url, "b", 60_000);
    while blocking({
        let b = b.clone();
        move || b.holder().unwrap().unwrap().live
    }) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(matches!(
        store.append("s", said(1, 1)).await,
        Err(StoreError::Fenced(t)) if t == token
    ));
    // Taken by another: refused, and the taker's store reads the log as the first left it.
    let taken = blocking({
        let b = b.clone();
        move || b.take().unwrap()
    });
    assert_eq!(taken, Some(token + 1));
    assert!(matches!(
        store.append_all("s", vec![said(1, 2), said(1, 3)]).await,
        Err(StoreError::Fenced(_))
    ));
    let next = Store::open_with(
        tempfile::tempdir().unwrap().path(),
        Options {
            fence: taken,
            ..on.options()
        },
    )
    .unwrap();
    assert_eq!(next.last_event_id(), 1);
    assert_eq!(next.append("s", said(1, 4)).await.unwrap().id, 2);
}
