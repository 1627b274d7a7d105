//! The inbox lock, in Claude Code's on-disk form: a directory `{file}.lock` made with `mkdir`
//! (atomic: one writer gets it). What we add keeps that form and makes it safe:
//!
//! - **Whose it is**: our holder writes a file `owner` with its token into the directory, and
//!   releasing removes the lock only if that file is still its own (a lock broken as stale and
//!   taken by another writer is left alone).
//! - **Stale**: a lock whose `owner` file (or, for another program's lock, the directory) was
//!   not touched for `stale` is left over from a writer that died. Holders refresh it.
//! - **Breaking**: one breaker at a time (a guard directory `{file}.lock.break`), which checks
//!   again under the guard that the lock is still stale, renames it aside (atomic) and removes
//!   it. A waiter that judged a lock stale can therefore never remove a fresh one.
//! - **Waiting**: jittered backoff up to 10 ms and a deadline, then an error for the caller to report;
//!   a lock that cannot be broken is waited on, never spun on.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::MailboxError;

/// How long a lock may go untouched before it is stale, and how long a writer waits for one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockTiming {
    pub stale: Duration,
    pub timeout: Duration,
}

impl Default for LockTiming {
    fn default() -> Self {
        LockTiming {
            stale: Duration::from_secs(10),
            timeout: Duration::from_secs(15),
        }
    }
}

const OWNER: &str = "owner";

/// The longest a waiter sleeps between two looks at the lock: holds are short (one read and
/// one write of a bounded file), so a waiter looks often; jitter keeps waiters apart.
const MAX_BACKOFF: Duration = Duration::from_millis(10);

/// Between half and all of `d`.
fn jittered(d: Duration) -> Duration {
    let half = d / 2;
    let nanos = half.as_nanos().max(1) as u64;
    half + Duration::from_nanos(uuid::Uuid::new_v4().as_u64_pair().0 % nanos)
}

/// A held `{file}.lock`; released (if still ours) when dropped.
pub struct Lock {
    dir: PathBuf,
    token: String,
    /// When it was taken or last refreshed.
    fresh_since: Instant,
    stale: Duration,
}

impl Lock {
    /// Takes the lock of `file`, waiting (with backoff) up to `timing.timeout`.
    pub fn take(file: &Path, timing: LockTiming) -> Result<Lock, MailboxError> {
        let dir = PathBuf::from(format!("{}.lock", file.display()));
        let token = format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
        let deadline = Instant::now() + timing.timeout;
        let mut backoff = Duration::from_millis(1);
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Lock::mark(dir, token, timing.stale),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if is_stale(&dir, timing.stale) && break_stale(&dir, timing.stale) {
                        continue;
                    }
                }
                Err(e) => return Err(MailboxError::Io(dir, e)),
            }
            if Instant::now() >= deadline {
                return Err(MailboxError::Locked(file.to_path_buf()));
            }
            std::thread::sleep(jittered(backoff));
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Writes the owner file into a lock just made; without it the lock is given back.
    fn mark(dir: PathBuf, token: String, stale: Duration) -> Result<Lock, MailboxError> {
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(OWNER))
            .and_then(|mut f| std::io::Write::write_all(&mut f, token.as_bytes()));
        match written {
            Ok(()) => Ok(Lock {
                dir,
                token,
                fresh_since: Instant::now(),
                stale,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(MailboxError::Io(dir, e))
            }
        }
    }

    /// Says the holder is alive, if it has held the lock for a while (a quarter of the stale
    /// age): work under the lock calls this between its steps.
    pub fn keep_fresh(&mut self) {
        if self.fresh_since.elapsed() >= self.stale / 4 {
            self.refresh();
        }
    }

    /// Says the holder is alive.
    pub fn refresh(&mut self) {
        self.fresh_since = Instant::now();
        // Never through a link, never waiting on a FIFO another program placed there.
        let touched = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(self.dir.join(OWNER))
            .and_then(|f| f.set_modified(SystemTime::now()));
        if let Err(e) = touched {
            tracing::warn!(lock = %self.dir.display(), error = %e, "could not refresh an inbox lock");
        }
    }

    fn is_ours(&self) -> bool {
        matches!(
            crate::fsafe::read_bounded(&self.dir.join(OWNER), 4096),
            Ok(crate::fsafe::Found::Bytes(t)) if t == self.token.as_bytes()
        )
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        if !self.is_ours() {
            tracing::warn!(lock = %self.dir.display(), "our inbox lock was broken as stale by another writer; leaving theirs");
            return;
        }
        let _ = std::fs::remove_file(self.dir.join(OWNER));
        if let Err(e) = std::fs::remove_dir(&self.dir) {
            tracing::warn!(lock = %self.dir.display(), error = %e, "could not release an inbox lock");
        }
    }
}

/// When the lock was last touched: its owner file if it has one, else the lock itself.
fn touched(dir: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(dir.join(OWNER))
        .or_else(|_| std::fs::symlink_metadata(dir))
        .and_then(|m| m.modified())
        .ok()
}

fn older_than(t: Option<SystemTime>, age: Duration) -> bool {
    t.and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|a| a > age)
}

fn is_stale(dir: &Path, stale: Duration) -> bool {
    older_than(touched(dir), stale)
}

/// Breaks a stale lock, one breaker at a time. True when the lock is gone (retry at once).
fn break_stale(dir: &Path, stale: Duration) -> bool {
    let guard = PathBuf::from(format!("{}.break", dir.display()));
    match std::fs::create_dir(&guard) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // A breaker that died leaves its guard behind: stale after `stale` too.
            let guard_time = std::fs::symlink_metadata(&guard)
                .and_then(|m| m.modified())
                .ok();
            if older_than(guard_time, stale) {
                let _ = std::fs::remove_dir(&guard);
            }
            return false;
        }
        Err(_) => return false,
    }
    let broken = if is_stale(dir, stale) {
        let aside = PathBuf::from(format!(
            "{}.stale-{}",
            dir.display(),
            uuid::Uuid::new_v4().simple()
        ));
        match std::fs::rename(dir, &aside) {
            Ok(()) => {
                tracing::warn!(lock = %dir.display(), "broke a stale inbox lock");
                remove_any(&aside);
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => {
                tracing::warn!(lock = %dir.display(), error = %e, "cannot break a stale inbox lock");
                false
            }
        }
    } else {
        // Released or refreshed meanwhile.
        !dir.exists()
    };
    let _ = std::fs::remove_dir(&guard);
    broken
}

/// Removes a file, a link (not what it points to) or a directory tree.
fn remove_any(path: &Path) {
    let result = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        tracing::warn!(path = %path.display(), error = %e, "could not remove a broken inbox lock");
    }
}
