//! Locks in a test's PostgreSQL database: one held from another connection, and who waits on
//! one (to hold a store's read up where a test wants it).

/// `LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE`, held by a connection of its own from when
/// [`lock_table`] returns until this is dropped.
pub struct Locked {
    release: Option<std::sync::mpsc::Sender<()>>,
    holder: Option<std::thread::JoinHandle<()>>,
}

pub fn lock_table(url: &str, table: &str) -> Locked {
    let (held_tx, held_rx) = std::sync::mpsc::channel::<()>();
    let (release, release_rx) = std::sync::mpsc::channel::<()>();
    let (url, lock) = (
        url.to_string(),
        format!("LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"),
    );
    let holder = std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut tx = c.transaction().unwrap();
        tx.batch_execute(&lock).unwrap();
        held_tx.send(()).unwrap();
        let _ = release_rx.recv();
        tx.commit().unwrap();
    });
    held_rx.recv().expect("the lock taken");
    Locked {
        release: Some(release),
        holder: Some(holder),
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(h) = self.holder.take() {
            let _ = h.join();
        }
    }
}

/// How many connections to `url`'s database (named `app` when given) wait on a lock now.
pub fn waiting_on_locks(url: &str, app: Option<&str>) -> i64 {
    let (url, app) = (url.to_string(), app.map(str::to_string));
    // The blocking client cannot run on a tokio thread.
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND wait_event_type = 'Lock' AND ($1::text IS NULL OR application_name = $1)",
            &[&app],
        )
        .unwrap()
        .get::<_, i64>(0)
    })
    .join()
    .unwrap()
}
