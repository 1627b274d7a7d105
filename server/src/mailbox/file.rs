//! One inbox file, written the way Claude Code writes it: take the lock (a directory
//! `{file}.lock`), write `{file}.tmp.{hex}`, rename it over the file, remove the lock. Readers
//! never see half a file; a file that is not valid JSON is moved aside, never overwritten.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use app::domain::mail::InboxMessage;

use super::MailboxError;

/// A lock older than this is left over from a writer that died: it is broken.
const STALE_LOCK: Duration = Duration::from_secs(10);
/// How long a writer waits for the lock before giving up.
const LOCK_TIMEOUT: Duration = Duration::from_secs(15);

/// Holds `{file}.lock`; removes it when dropped.
struct Lock(PathBuf);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn lock(file: &Path) -> Result<Lock, MailboxError> {
    let lock = PathBuf::from(format!("{}.lock", file.display()));
    let start = Instant::now();
    let mut backoff = Duration::from_millis(1);
    loop {
        match std::fs::create_dir(&lock) {
            Ok(()) => return Ok(Lock(lock)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let age = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok());
                if age.is_some_and(|a| a > STALE_LOCK) {
                    tracing::warn!(lock = %lock.display(), "breaking a stale inbox lock");
                    let _ = std::fs::remove_dir(&lock);
                    continue;
                }
                if start.elapsed() > LOCK_TIMEOUT {
                    return Err(MailboxError::Locked(file.to_path_buf()));
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_millis(50));
            }
            Err(e) => return Err(MailboxError::Io(lock, e)),
        }
    }
}

/// Reads an inbox. A missing file is an empty inbox; an unreadable one is moved aside.
fn read_unlocked(file: &Path) -> Result<Vec<InboxMessage>, MailboxError> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MailboxError::Io(file.to_path_buf(), e)),
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match serde_json::from_str(&text) {
        Ok(messages) => Ok(messages),
        Err(e) => {
            let aside = PathBuf::from(format!(
                "{}.invalid-{}",
                file.display(),
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis())
            ));
            std::fs::rename(file, &aside).map_err(|e| MailboxError::Io(file.to_path_buf(), e))?;
            tracing::error!(file = %file.display(), aside = %aside.display(), error = %e, "an inbox was not valid JSON; moved it aside");
            Err(MailboxError::Invalid {
                file: file.to_path_buf(),
                aside,
                error: e.to_string(),
            })
        }
    }
}

fn write_unlocked(file: &Path, messages: &[InboxMessage]) -> Result<(), MailboxError> {
    let tmp = PathBuf::from(format!(
        "{}.tmp.{}",
        file.display(),
        uuid::Uuid::new_v4().simple()
    ));
    let body = serde_json::to_vec(messages).expect("inbox messages serialize");
    let io = |e| MailboxError::Io(file.to_path_buf(), e);
    std::fs::write(&tmp, body).map_err(io)?;
    std::fs::rename(&tmp, file).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// Reads the inbox under the lock, lets `f` change it, and writes it back if `f` says so.
/// An invalid file is moved aside and `f` sees an empty inbox.
pub fn update<R>(
    file: &Path,
    f: impl FnOnce(&mut Vec<InboxMessage>) -> (bool, R),
) -> Result<R, MailboxError> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| MailboxError::Io(dir.to_path_buf(), e))?;
    }
    let _lock = lock(file)?;
    let mut messages = match read_unlocked(file) {
        Ok(m) => m,
        Err(MailboxError::Invalid { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let (changed, result) = f(&mut messages);
    if changed {
        write_unlocked(file, &messages)?;
    }
    Ok(result)
}

/// Appends one message.
pub fn append(file: &Path, message: InboxMessage) -> Result<(), MailboxError> {
    update(file, |m| {
        m.push(message);
        (true, ())
    })
}

/// Marks every unread message read (never removes one) and returns them, oldest first.
pub fn take_unread(file: &Path) -> Result<Vec<InboxMessage>, MailboxError> {
    if !file.exists() {
        return Ok(Vec::new());
    }
    update(file, |m| {
        let mut taken = Vec::new();
        for msg in m.iter_mut().filter(|m| !m.read) {
            msg.read = true;
            taken.push(msg.clone());
        }
        (!taken.is_empty(), taken)
    })
}

/// The unread messages, without marking them.
pub fn unread(file: &Path) -> Result<Vec<InboxMessage>, MailboxError> {
    let _lock = lock(file)?;
    Ok(read_unlocked(file)?
        .into_iter()
        .filter(|m| !m.read)
        .collect())
}
