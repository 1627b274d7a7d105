//! Backups while the server runs: `VACUUM INTO` copies the store as one read transaction
//! beside the running writer (a snapshot that finishes whatever is written meanwhile; SQLite's
//! online backup API restarts from the first page whenever another connection writes between
//! its steps, and a busy team's store never finished), the copy is checked
//! (`PRAGMA integrity_check`) and only then given its name. A backup is a data directory:
//! start the server on it to restore.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use super::PortableError;
use crate::store::restore::open_read_only;
use crate::store::StoreError;

/// The file a backup of a team kept in PostgreSQL is: an export (`soulgrid import` restores it).
pub const EXPORT_FILE: &str = "team.export";

/// Copies the store of `data_dir` into `dest/soulgrid.db` (a new data directory), checked;
/// `progress` hears what it does. A store in PostgreSQL is backed up as an export of the team
/// into `dest/team.export` (`pg_dump` is PostgreSQL's own way, beside it).
pub fn backup(
    data_dir: &Path,
    database: &crate::store::Database,
    dest: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, PortableError> {
    if let crate::store::Database::Postgres(_) = database {
        return backup_as_export(data_dir, database, dest, progress);
    }
    let source = open_read_only(data_dir)?;
    std::fs::create_dir_all(dest)?;
    let target = dest.join("soulgrid.db");
    if target.exists() {
        return Err(PortableError::Exists(dest.display().to_string()));
    }
    let partial = dest.join(".soulgrid.db.partial");
    let _ = std::fs::remove_file(&partial);
    let pages: i64 = source
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .map_err(StoreError::from)?;
    progress(&format!(
        "copying the store ({pages} pages) as one snapshot"
    ));
    let copied = source.execute("VACUUM INTO ?1", [partial.to_string_lossy().as_ref()]);
    if let Err(e) = copied {
        let _ = std::fs::remove_file(&partial);
        return Err(StoreError::from(e).into());
    }
    drop(source);
    {
        let copy = Connection::open(&partial).map_err(StoreError::from)?;
        copy.busy_timeout(Duration::from_secs(5))
            .map_err(StoreError::from)?;
        progress("checking the copy");
        let check: String = copy
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(StoreError::from)?;
        if check != "ok" {
            drop(copy);
            let _ = std::fs::remove_file(&partial);
            return Err(PortableError::Integrity(check));
        }
        // A backup stands on its own: no write-ahead log beside it.
        copy.pragma_update(None, "journal_mode", "DELETE")
            .map_err(StoreError::from)?;
    }
    std::fs::rename(&partial, &target)?;
    Ok(target)
}

/// An export of the team into `dest/team.export`, written beside and renamed when whole.
fn backup_as_export(
    data_dir: &Path,
    database: &crate::store::Database,
    dest: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, PortableError> {
    std::fs::create_dir_all(dest)?;
    let target = dest.join(EXPORT_FILE);
    if target.exists() {
        return Err(PortableError::Exists(dest.display().to_string()));
    }
    let partial = dest.join(".team.export.partial");
    let written = (|| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&partial)?);
        let team = team_of(data_dir);
        super::team::export_from(
            data_dir,
            database,
            (&team, &crate::clock::Clock::system()),
            &mut out,
            progress,
        )?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok::<_, PortableError>(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, &target)?;
    Ok(target)
}

/// The team's name as its mailboxes' folder says (`teams/{team}`), else the default.
fn team_of(data_dir: &Path) -> String {
    std::fs::read_dir(data_dir.join("teams"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .next()
        .unwrap_or_else(|| "soulgrid".into())
}

/// `--backup-every`: a checked backup of the store into `{data_dir}/backups/{time}/` at that
/// pace while the server runs, the newest `keep` kept.
pub fn keep_backing_up(
    data_dir: PathBuf,
    database: crate::store::Database,
    every: Duration,
    keep: usize,
    clock: crate::clock::Clock,
    (shutdown, tasks): (tokio_util::sync::CancellationToken, &crate::tasks::Tasks),
) {
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            let (dir, clock, db) = (data_dir.clone(), clock.clone(), database.clone());
            let done =
                tokio::task::spawn_blocking(move || backup_now(&dir, &db, keep, &clock)).await;
            match done {
                Ok(Ok(target)) => tracing::info!(backup = %target.display(), "backed up the store"),
                Ok(Err(e)) => tracing::error!(error = %e, "a backup failed"),
                Err(e) => tracing::error!(error = %e, "a backup failed"),
            }
        }
    });
}

/// One backup into `{data_dir}/backups/{time}/`, then the oldest beyond `keep` removed.
pub fn backup_now(
    data_dir: &Path,
    database: &crate::store::Database,
    keep: usize,
    clock: &crate::clock::Clock,
) -> Result<PathBuf, PortableError> {
    let root = data_dir.join("backups");
    let stamp = clock.now_iso().replace([':', '.'], "-");
    let target = backup(data_dir, database, &root.join(stamp), &mut |_| {})?;
    let mut all: Vec<PathBuf> = std::fs::read_dir(&root)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("soulgrid.db").is_file() || p.join(EXPORT_FILE).is_file())
        .collect();
    all.sort();
    let excess = all.len().saturating_sub(keep.max(1));
    for old in &all[..excess] {
        std::fs::remove_dir_all(old)?;
    }
    Ok(target)
}
