//! Backups: one taken while agents write is checked and serves as a data directory; one of a
//! store written to all the time finishes.

use crate::common;
use crate::portable::busy;

use app::domain::docs::identity;
use soulgrid::portable::PortableError;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_agents_write_is_checked_and_serves_as_a_data_directory() {
    let (dir, state, router) = common::team().await;
    let writer = busy(&router);
    let work = tempfile::tempdir().unwrap();
    let dest = work.path().join("backup");
    let (data, to) = (dir.path().to_path_buf(), dest.clone());
    let target = tokio::task::spawn_blocking(move || {
        soulgrid::portable::backup::backup(
            &data,
            &soulgrid::store::Database::Sqlite,
            &to,
            &mut |_| {},
        )
    })
    .await
    .unwrap()
    .unwrap();
    writer.await.unwrap();
    assert!(target.ends_with("soulgrid.db"));
    let e = soulgrid::portable::backup::backup(
        dir.path(),
        &soulgrid::store::Database::Sqlite,
        &dest,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, PortableError::Exists(_)), "{e}");
    soulgrid::shut_down(&state).await;
    // Restoring is starting the server on the backup's directory.
    let restored = common::boot(&dest).await;
    restored.store.with_all_docs(|d| {
        assert_eq!(identity(d, 0).unwrap().name.as_deref(), Some("Lyra"));
    });
    soulgrid::shut_down(&restored).await;
}

/// A store the team keeps writing to while it is copied: SQLite's online backup started again
/// from its first page at every write between two of its steps and never finished (986
/// restarts in a minute on a 1 GB store). The copy is one snapshot: it finishes, and holds
/// every row committed before it began.
#[test]
fn a_backup_of_a_store_written_to_all_the_time_finishes() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soulgrid.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
         INSERT INTO t (body) SELECT randomblob(4000) FROM n;",
    )
    .unwrap();
    // Well over the 512 pages one step of the online backup copied.
    let pages: i64 = conn
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    assert!(pages > 3000, "{pages} pages");
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let writer = std::thread::spawn({
        let (stop, writes) = (stop.clone(), writes.clone());
        move || {
            while !stop.load(Ordering::SeqCst) {
                conn.execute("INSERT INTO t (body) VALUES (randomblob(100))", [])
                    .unwrap();
                writes.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    // The writer is writing before the copy starts.
    while writes.load(Ordering::SeqCst) < 10 {
        std::thread::yield_now();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let dest = dir.path().join("backup");
    std::thread::spawn({
        let (data, dest) = (dir.path().to_path_buf(), dest.clone());
        move || {
            let mut said = Vec::new();
            let done = soulgrid::portable::backup::backup(
                &data,
                &soulgrid::store::Database::Sqlite,
                &dest,
                &mut |p| said.push(p.to_string()),
            );
            let _ = tx.send((done.map_err(|e| e.to_string()), said));
        }
    });
    // Bounded: a copy of 16 MB takes well under a second; the online backup never ended.
    let (done, said) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the backup finished while the store was written to");
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let target = done.unwrap();
    assert!(said.iter().any(|s| s.contains("pages")), "{said:?}");
    let copy = rusqlite::Connection::open(&target).unwrap();
    let rows: i64 = copy
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert!(
        rows >= 4010,
        "every row committed before the copy began: {rows}"
    );
    let mode: String = copy
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "a backup stands on its own");
}
