//! One inbox file, written the way Claude Code writes it: take the lock (a directory
//! `{file}.lock`, see [`super::lock`]), write `{file}.tmp.{hex}`, rename it over the file,
//! remove the lock; a write that files mail also waits until it is on the disk ([`Change`]),
//! which Claude Code does not. Readers never see half a file, so they take no lock ([`snapshot`]); a file
//! that is not valid JSON is moved aside (under the lock), never overwritten; a file keeps
//! every unread message and the newest read ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use std::os::unix::fs::OpenOptionsExt;

use app::domain::mail::InboxMessage;

use crate::fsafe::Found;

use super::lock::{Lock, LockTiming};
use super::MailboxError;

/// Read messages an inbox keeps (the newest), besides every unread one. The store is the
/// record; Claude Code itself removes what it has delivered.
pub const READ_TAIL: usize = 50;

/// Drops all but the newest [`READ_TAIL`] read messages; true if it dropped any.
fn prune(messages: &mut Vec<InboxMessage>) -> bool {
    let read = messages.iter().filter(|m| m.read).count();
    let mut drop = read.saturating_sub(READ_TAIL);
    if drop == 0 {
        return false;
    }
    messages.retain(|m| {
        let gone = m.read && drop > 0;
        drop -= usize::from(gone);
        !gone
    });
    true
}

/// The most an inbox file may hold: every unread message and [`READ_TAIL`] read ones. A larger
/// file is not read (moved aside, as an invalid one).
pub const MAX_INBOX_BYTES: usize = 8 * 1024 * 1024;

/// An inbox's text (a missing file is an empty one), or why it is not an inbox: not a regular
/// file (a link, a FIFO: another program may place either), larger than [`MAX_INBOX_BYTES`],
/// or not UTF-8. Read without following a link or waiting on a FIFO.
fn text(file: &Path) -> Result<Result<String, String>, MailboxError> {
    match crate::fsafe::read_bounded(file, MAX_INBOX_BYTES) {
        Ok(Found::Missing) => Ok(Ok(String::new())),
        Ok(Found::Unfit(why)) => Ok(Err(why)),
        Ok(Found::Bytes(b)) => Ok(String::from_utf8(b).map_err(|_| "it is not UTF-8 text".into())),
        Err(e) => Err(MailboxError::Io(file.to_path_buf(), e)),
    }
}

/// Reads an inbox without its lock: writers replace it by rename, so this is one whole
/// version of it. `None` if it is not valid JSON, which only a writer that writes in place
/// half way (or a broken file) leaves: the caller reads it again under the lock, which waits
/// for such a writer and moves a file that is still invalid aside.
pub fn snapshot(file: &Path) -> Result<Option<Vec<InboxMessage>>, MailboxError> {
    let Ok(text) = text(file)? else {
        return Ok(None);
    };
    if text.trim().is_empty() {
        return Ok(Some(Vec::new()));
    }
    Ok(serde_json::from_str(&text).ok())
}

/// Reads an inbox under its lock. A missing file is an empty inbox; an unreadable one is moved
/// aside.
fn read_held(file: &Path) -> Result<Vec<InboxMessage>, MailboxError> {
    let read = text(file)?.and_then(|text| match text.trim().is_empty() {
        true => Ok(Vec::new()),
        false => serde_json::from_str(&text).map_err(|e| format!("not valid JSON ({e})")),
    });
    match read {
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
            // A rename moves a link or a FIFO itself, never what a link points to.
            tracing::error!(file = %file.display(), aside = %aside.display(), error = %e, "an inbox was not valid; moved it aside");
            Err(MailboxError::Invalid {
                file: file.to_path_buf(),
                aside,
                error: e,
            })
        }
    }
}

/// Whether an update writes the inbox back, and whether it waits until the write is on the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing changed: nothing is written.
    None,
    /// Written and renamed into place; the kernel puts it on the disk in its own time. For what
    /// can be lost to a power cut (a mark of mail read: the mail is handed over again).
    Cached,
    /// As `Cached`, and on the disk before the update returns (the file synced before its
    /// rename, the folder after it): for mail filed, which something durable follows.
    Synced,
}

fn write_held(
    file: &Path,
    messages: &[InboxMessage],
    change: Change,
    (settled, unread): (&Settled, Unread),
) -> Result<(), MailboxError> {
    let tmp = PathBuf::from(format!(
        "{}.tmp.{}",
        file.display(),
        uuid::Uuid::new_v4().simple()
    ));
    let body = serde_json::to_vec(messages).expect("inbox messages serialize");
    let io = |e| MailboxError::Io(file.to_path_buf(), e);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, &body)?;
            if change == Change::Synced {
                f.sync_all()?;
            }
            // Noted before the rename, so that a watcher that sees the rename finds it noted.
            settled.note(file, &body, messages, unread);
            std::fs::rename(&tmp, file)
        });
    if let Err(e) = written {
        settled.forget(file);
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    if change == Change::Synced {
        // The rename itself, in the folder.
        if let Some(dir) = file.parent() {
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| MailboxError::Io(dir.to_path_buf(), e))?;
        }
    }
    Ok(())
}

/// Who acts on the unread mail an update leaves in the inbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// Whoever watches the inbox (the mail watcher hands it over or collects it).
    Watcher,
    /// The caller, at once: it hands over all of it (a message filed, then handed over).
    Caller,
}

/// Inbox files as this process last wrote them when no mail in them was left for a watcher
/// ([`Unread`]), by a hash of their bytes. While a file still holds those bytes, a change a
/// watcher sees is only that write, with nothing in it to hand over or collect; any other
/// writer's write (by rename or in place, even of the same length within the same tick of the
/// file system's clock) changes them.
#[derive(Debug, Default)]
pub struct Settled(Mutex<HashMap<PathBuf, u64>>);

impl Settled {
    /// Whether `file` still holds what this process wrote with nothing left for a watcher.
    /// (One read of a small file, no parsing.)
    pub fn holds(&self, file: &Path) -> bool {
        let Some(written) = self.written().get(file).copied() else {
            return false;
        };
        matches!(crate::fsafe::read_bounded(file, MAX_INBOX_BYTES), Ok(Found::Bytes(bytes)) if hash(&bytes) == written)
    }

    /// `file` is about to hold `body`, which is `messages`.
    fn note(&self, file: &Path, body: &[u8], messages: &[InboxMessage], unread: Unread) {
        match unread == Unread::Caller || messages.iter().all(|m| m.read) {
            true => self.written().insert(file.to_path_buf(), hash(body)),
            false => self.written().remove(file),
        };
    }

    fn forget(&self, file: &Path) {
        self.written().remove(file);
    }

    fn written(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, u64>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A hash of a file's bytes (keyed at random per process: nothing outside can aim at it).
fn hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
    KEYS.get_or_init(std::hash::RandomState::new)
        .hash_one(bytes)
}

/// Reads the inbox under the lock, lets `f` change it, and writes it back (pruned of old read
/// mail) as `f` says ([`Change`]), noting in `settled` whether it left mail for a watcher
/// (`unread` says who acts on what is unread). An invalid file is moved aside and `f` sees an
/// empty inbox.
pub fn update<R>(
    file: &Path,
    timing: LockTiming,
    settled: (&Settled, Unread),
    f: impl FnOnce(&mut Vec<InboxMessage>) -> (Change, R),
) -> Result<R, MailboxError> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| MailboxError::Io(dir.to_path_buf(), e))?;
    }
    let mut lock = Lock::take(file, timing)?;
    let mut messages = match read_held(file) {
        Ok(m) => m,
        Err(MailboxError::Invalid { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let (change, result) = f(&mut messages);
    if change != Change::None {
        prune(&mut messages);
        lock.keep_fresh();
        write_held(file, &messages, change, settled)?;
    }
    Ok(result)
}

/// Every message of the inbox, read and unread: without the lock, unless the file is not
/// whole JSON.
pub fn all(file: &Path, timing: LockTiming) -> Result<Vec<InboxMessage>, MailboxError> {
    if let Some(messages) = snapshot(file)? {
        return Ok(messages);
    }
    let _lock = Lock::take(file, timing)?;
    read_held(file)
}

/// The unread messages, without marking them.
pub fn unread(file: &Path, timing: LockTiming) -> Result<Vec<InboxMessage>, MailboxError> {
    Ok(all(file, timing)?.into_iter().filter(|m| !m.read).collect())
}
