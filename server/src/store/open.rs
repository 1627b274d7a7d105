//! Opening a store: its connections (the writer's, the readers' pool, time travel's), the
//! documents and threads read once in one snapshot, then the writer's thread, or on a replica
//! the tail that follows another server's log.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::{broadcast, mpsc};

use super::db::{self, Db};
use super::{
    history, probe, read, readers, schema, sync, tail, threads, writer, Database, Options, Shared,
    Store, StoreError, HISTORY_SPACING,
};

impl Store {
    /// Opens `{data_dir}/soulgrid.db`, creating the directory and the schema if needed, and
    /// starts the writer thread (`open_with`: another database).
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        Self::open_with(data_dir, Options::default())
    }

    /// As [`Store::open`], with its [`Options`].
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    pub fn open_with(data_dir: &Path, options: Options) -> Result<Store, StoreError> {
        let Options {
            database,
            clock,
            sync,
            live_capacity,
            replica,
            replica_poll,
            fence,
        } = options;
        if replica && database == Database::Sqlite {
            return Err(StoreError::ReplicaNeedsPostgres);
        }
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
            path: data_dir.to_path_buf(),
            source,
        })?;
        let path = data_dir.join("soulgrid.db");
        let connect = Arc::new({
            let (database, path) = (database.clone(), path.clone());
            move || -> Result<Db, StoreError> {
                match &database {
                    Database::Sqlite => Ok(Db::Sqlite(schema::open(&path)?)),
                    Database::Postgres(url) => Db::connect_postgres(url),
                }
            }
        });
        let shared = Arc::new(RwLock::new(Shared::default()));
        let (write_conn, readers, docs, past) = db::off_runtime(|| {
            let mut write_conn = connect()?;
            if let Database::Postgres(_) = database {
                schema::migrate_postgres(&mut write_conn)?;
            }
            // Once the database is known to be there.
            let readers = readers::pool(readers::Connector(Box::new({
                let connect = connect.clone();
                move || connect()
            })));
            let mut reader = readers::get(&readers)?;
            // Read once: the writer keeps its own copy (cloning is cheaper than parsing again).
            // In one snapshot: another server may be writing (a replica's leader).
            let (docs, threads, last, timeline) = reader.in_transaction(|r| {
                if r.kind() == db::Kind::Postgres {
                    r.batch("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
                }
                let docs = read::load_docs(r)?;
                let threads = threads::Threads::load(r)?;
                let last = read::last_event(r)?.map_or(0, |e| e.id);
                let timeline = read::timeline(r, &docs)?;
                Ok((docs, threads, last, timeline))
            })?;
            let mut s = shared.write().unwrap_or_else(|p| p.into_inner());
            s.docs = docs.clone();
            s.threads = threads;
            s.last_event_id = last;
            s.timeline = timeline;
            drop(s);
            drop(reader);
            Ok::<_, StoreError>((write_conn, readers, docs, connect()?))
        })?;
        let (live, _) = broadcast::channel(live_capacity.max(1));
        let stopped = Arc::new(AtomicBool::new(false));
        // PostgreSQL's commit returns once it is durable: there is nothing left to sync.
        let sync = match database {
            Database::Sqlite => sync,
            Database::Postgres(_) => sync::committed(),
        };
        let stage = sync::Stage::new(shared.clone(), live.clone(), &path, sync, stopped.clone());
        let (tx, tail) = match &database {
            Database::Postgres(url) if replica => {
                drop(write_conn);
                (
                    None,
                    Some(Arc::new(tail::spawn(
                        url.clone(),
                        replica_poll,
                        stage,
                        shared.clone(),
                    ))),
                )
            }
            _ => {
                let writer =
                    db::off_runtime(|| writer::Writer::new(write_conn, docs, stage, clock, fence))?;
                let (tx, rx) = mpsc::channel(8192);
                std::thread::Builder::new()
                    .name("store-writer".into())
                    .spawn(move || writer.run(rx))
                    .expect("spawning the store writer thread");
                (Some(tx), None)
            }
        };
        Ok(Store {
            tx,
            shared,
            readers,
            live,
            past: Arc::new(Mutex::new(past)),
            history: Arc::new(history::History::new(HISTORY_SPACING)),
            stopped,
            tail,
            probe: Arc::new(probe::Probe::new(match &database {
                Database::Postgres(url) => Some(url.clone()),
                Database::Sqlite => None,
            })),
            database: Arc::new(database),
        })
    }
}
