//! The store's pipelined group commit: a batch is committed without waiting for the disk and
//! synced by a stage of its own (`store::sync`). A caller is still answered only after its
//! events are synced, nothing reads what is not synced yet, and a sync that fails stops the
//! store.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use app::domain::docs::page::owner;
use app::domain::events::EventKind;
use futures::future::join_all;
use rusqlite::Connection;
use soulgrid::store::{fsync, new_message_id, Options, Store, StoreError, SyncWal};

fn message(text: &str) -> EventKind {
    EventKind::AgentMessage {
        message_id: new_message_id(),
        seat: 0,
        speaker_name: "Orin".into(),
        text: text.into(),
        target_agent: None,
        aside: None,
    }
}

/// The highest event id the database holds, read by another connection (what a sync makes
/// durable is what was committed before it).
fn committed(wal: &Path) -> u64 {
    let db = wal.to_string_lossy().trim_end_matches("-wal").to_string();
    Connection::open(db)
        .unwrap()
        .query_row("SELECT COALESCE(MAX(id), 0) FROM events", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_caller_and_every_subscriber_hears_of_an_event_only_after_a_sync_that_covered_it() {
    let dir = tempfile::tempdir().unwrap();
    // Each finished sync notes the highest event committed before it began.
    let synced: Arc<Mutex<u64>> = Arc::default();
    let sync: SyncWal = {
        let (synced, disk) = (synced.clone(), fsync());
        Arc::new(move |wal: &Path| {
            let upto = committed(wal);
            disk(wal)?;
            let mut s = synced.lock().unwrap();
            *s = (*s).max(upto);
            Ok(())
        })
    };
    let store = Store::open_with(
        dir.path(),
        Options {
            sync,
            ..Default::default()
        },
    )
    .unwrap();
    let mut live = store.subscribe();
    // 32 appenders at once: batches are handed to the sync thread while others are made.
    let appenders = (0..32).map(|a| {
        let (store, synced) = (store.clone(), synced.clone());
        async move {
            for i in 0..25 {
                let e = store
                    .append("test", message(&format!("{a}-{i}")))
                    .await
                    .unwrap();
                let covered = *synced.lock().unwrap();
                assert!(
                    e.id <= covered,
                    "event {} answered with syncs up to {covered}",
                    e.id
                );
            }
        }
    });
    let listener = tokio::spawn({
        let synced = synced.clone();
        async move {
            // In order and each once, whichever thread published it (the writer or the stage).
            for id in 1..=800 {
                let c = live.recv().await.unwrap();
                assert_eq!(c.event.id, id, "sent live out of order");
                let covered = *synced.lock().unwrap();
                assert!(
                    c.event.id <= covered,
                    "event {} sent live with syncs up to {covered}",
                    c.event.id
                );
            }
        }
    });
    join_all(appenders).await;
    listener.await.unwrap();
    assert_eq!(store.last_event_id(), 800);
}

/// A sync that waits, when armed, until the test lets it go; it says when it has begun.
struct Held {
    armed: Arc<AtomicBool>,
    begun: Mutex<mpsc::Receiver<()>>,
    release: mpsc::Sender<()>,
}

fn held() -> (Held, SyncWal) {
    let armed = Arc::new(AtomicBool::new(false));
    let (begun_tx, begun) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let (disk, on) = (fsync(), armed.clone());
    let sync: SyncWal = Arc::new(move |wal: &Path| {
        if on.load(Ordering::SeqCst) {
            begun_tx.send(()).unwrap();
            released.lock().unwrap().recv().unwrap();
        }
        disk(wal)
    });
    let held = Held {
        armed,
        begun: Mutex::new(begun),
        release,
    };
    (held, sync)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_committed_but_not_yet_synced_is_read_by_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let (held, sync) = held();
    let store = Store::open_with(
        dir.path(),
        Options {
            sync,
            ..Default::default()
        },
    )
    .unwrap();
    let first = store.append("test", message("on the disk")).await.unwrap();

    held.armed.store(true, Ordering::SeqCst);
    let pending = tokio::spawn({
        let store = store.clone();
        async move { store.append("test", message("not yet")).await }
    });
    let begun = tokio::task::spawn_blocking({
        let begun = Arc::new(held.begun);
        move || begun.lock().unwrap().recv().unwrap()
    });
    begun.await.unwrap();
    // Committed (another connection sees it), not synced: the store shows none of it.
    assert_eq!(committed(&dir.path().join("soulgrid.db-wal")), first.id + 1);
    assert_eq!(store.last_event_id(), first.id);
    let raw = store.raw_events_after(0, 100).await.unwrap();
    assert_eq!(
        raw.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        vec![first.id]
    );
    let read = store.events_after(0, 100).await.unwrap();
    assert_eq!(read.len(), 1);
    let (docs, _) = store.docs_with_threads(None).await.unwrap();
    let texts: Vec<String> = app::domain::docs::messages(&docs)
        .map(|m| m.text.clone())
        .collect();
    assert_eq!(texts, vec!["on the disk".to_string()]);
    // A thread's page read from the database, as a tab that holds none of it asks for it.
    let thread = app::domain::docs::messages(&docs)
        .map(owner)
        .next()
        .unwrap();
    let (page, _) = store
        .older(thread, (i64::MAX, u64::MAX), 100)
        .await
        .unwrap();
    let texts: Vec<&str> = page.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["on the disk"]);
    let (past, _) = store.docs_at(u64::MAX).await.unwrap();
    assert_eq!(app::domain::docs::messages(&past).count(), 1);
    assert!(!pending.is_finished(), "answered before its sync");

    held.release.send(()).unwrap();
    let second = pending.await.unwrap().unwrap();
    assert_eq!(second.id, first.id + 1);
    let raw = store.raw_events_after(0, 100).await.unwrap();
    assert_eq!(raw.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_sync_answers_that_the_events_may_not_be_stored_and_stops_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let failing = Arc::new(AtomicBool::new(false));
    let sync: SyncWal = {
        let (failing, disk) = (failing.clone(), fsync());
        Arc::new(move |wal: &Path| {
            if failing.load(Ordering::SeqCst) {
                return Err(std::io::Error::other("EIO, as a failing disk says"));
            }
            disk(wal)
        })
    };
    let store = Store::open_with(
        dir.path(),
        Options {
            sync,
            ..Default::default()
        },
    )
    .unwrap();
    let first = store.append("test", message("kept")).await.unwrap();
    assert!(!store.stopped());

    failing.store(true, Ordering::SeqCst);
    let lost = store.append("test", message("unconfirmed")).await;
    assert!(matches!(lost, Err(StoreError::NotDurable)), "{lost:?}");
    assert!(store.stopped());
    // The disk recovers; the store does not pretend it knows what it holds: it takes nothing.
    failing.store(false, Ordering::SeqCst);
    let after = store.append("test", message("refused")).await;
    assert!(matches!(after, Err(StoreError::NotDurable)), "{after:?}");
    assert_eq!(store.last_event_id(), first.id);
    let raw = store.raw_events_after(0, 100).await.unwrap();
    assert_eq!(raw.len(), 1);
}
