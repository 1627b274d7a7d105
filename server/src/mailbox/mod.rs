//! Mailboxes: inbox files in Claude Code's format under the data directory
//! (`{data_dir}/teams/{team}/inboxes/{name}.json`, never under `~/.claude/teams`, which Claude
//! deletes). They are the durable, inspectable mailbox on disk; the server delivers what is in
//! them itself.

pub mod file;
pub mod lock;
pub mod watch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use app::domain::mail::InboxMessage;

use file::{Change, Settled, Unread};

#[derive(Debug, thiserror::Error)]
pub enum MailboxError {
    #[error("{0:?} cannot be a mailbox name: use 1-64 characters of a-z, 0-9, _ and -")]
    BadName(String),
    #[error("{}: the inbox stayed locked by another writer", .0.display())]
    Locked(PathBuf),
    #[error("{file}: {error}; moved aside to {aside}")]
    Invalid {
        file: PathBuf,
        aside: PathBuf,
        error: String,
    },
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, std::io::Error),
}

impl MailboxError {
    /// What a client may be told: no paths. `None` for a name that cannot be an inbox (the
    /// client's own mistake, said as it is).
    pub fn for_client(&self) -> Option<String> {
        match self {
            MailboxError::BadName(_) => None,
            MailboxError::Locked(_) => {
                Some("the inbox is locked by another writer; try again".into())
            }
            MailboxError::Invalid { .. } | MailboxError::Io(..) => {
                Some("the inbox could not be written; see the server log".into())
            }
        }
    }
}

/// The file name of an agent's inbox: its name lowercased, only if it is `[a-z0-9_-]{1,64}`.
/// Nothing else ever becomes a path (no `..`, no `/`, no spaces).
pub fn inbox_name(name: &str) -> Result<String, MailboxError> {
    let lower = name.trim().to_lowercase();
    let ok = (1..=64).contains(&lower.len())
        && lower
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if ok {
        Ok(lower)
    } else {
        Err(MailboxError::BadName(name.to_string()))
    }
}

/// The team's inbox directory.
#[derive(Clone, Debug)]
pub struct Mailboxes {
    dir: PathBuf,
    /// Our own writers of one inbox queue here instead of polling its lock directory, which is
    /// for writers in other processes. One per inbox: a held inbox holds up only its own mail.
    local: Arc<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>>,
    /// Inboxes this server left with nothing unread ([`Mailboxes::settled`]).
    settled: Arc<Settled>,
    timing: lock::LockTiming,
    /// Messages are stamped on the server's one clock.
    clock: crate::clock::Clock,
}

impl Mailboxes {
    pub fn new(data_dir: &Path, team: &str) -> Result<Self, MailboxError> {
        let team = inbox_name(team)?;
        Ok(Mailboxes {
            dir: data_dir.join("teams").join(team).join("inboxes"),
            local: Default::default(),
            settled: Default::default(),
            timing: lock::LockTiming::default(),
            clock: crate::clock::Clock::system(),
        })
    }

    /// The same inboxes, stamping messages on `clock` (the server's one clock).
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The same inboxes with other lock timing (tests make stale locks quick to break).
    pub fn with_lock_timing(mut self, timing: lock::LockTiming) -> Self {
        self.timing = timing;
        self
    }

    /// The in-process lock of one inbox file.
    fn local_lock(&self, path: &Path) -> Arc<Mutex<()>> {
        self.local
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(path.to_path_buf())
            .or_default()
            .clone()
    }

    /// [`file::update`] of the inbox at `path`, after this server's other writers of it (one
    /// at a time, without polling its lock directory).
    fn update<R>(
        &self,
        path: &Path,
        unread: Unread,
        f: impl FnOnce(&mut Vec<InboxMessage>) -> (Change, R),
    ) -> Result<R, MailboxError> {
        let local = self.local_lock(path);
        let _local = local.lock().unwrap_or_else(|p| p.into_inner());
        file::update(path, self.timing, (&self.settled, unread), f)
    }

    /// Whether `name`'s inbox still holds what this server last wrote there with nothing in it
    /// for the mail watcher (all read, or its unread mail handed over by whoever filed it):
    /// nobody else wrote since, so there is nothing to act on ([`file::Settled`]).
    pub fn settled(&self, name: &str) -> bool {
        self.path(name).is_ok_and(|path| self.settled.holds(&path))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, name: &str) -> Result<PathBuf, MailboxError> {
        Ok(self.dir.join(format!("{}.json", inbox_name(name)?)))
    }

    /// Appends a message from `from` to `to`'s inbox, unread; returns its id. With `msg_id`,
    /// the message has that id and is appended only if the inbox holds none with it yet (a
    /// retried send files its message once).
    pub fn send(
        &self,
        from: &str,
        to: &str,
        text: &str,
        msg_id: Option<String>,
    ) -> Result<String, MailboxError> {
        Ok(self.filing(from, to, text, msg_id, Unread::Watcher)?.msg_id)
    }

    /// [`Mailboxes::send`], answering also with the inbox's unread mail as the write left it
    /// (tagged as [`Mailboxes::unread_tagged`] tags it): what a delivery right after would
    /// read. The caller hands it over: the mail watcher is not to act on this write.
    pub fn file(
        &self,
        from: &str,
        to: &str,
        text: &str,
        msg_id: Option<String>,
    ) -> Result<Filed, MailboxError> {
        self.filing(from, to, text, msg_id, Unread::Caller)
    }

    fn filing(
        &self,
        from: &str,
        to: &str,
        text: &str,
        msg_id: Option<String>,
        unread: Unread,
    ) -> Result<Filed, MailboxError> {
        let mut message = message(from, text, None, false, self.clock.now_iso());
        if let Some(id) = msg_id {
            message.msg_id = Some(id);
        }
        let msg_id = message.msg_id.clone().unwrap_or_default();
        let path = self.path(to)?;
        let unread = self.update(&path, unread, |m| {
            let filed = m
                .iter()
                .any(|x| x.msg_id.as_deref() == Some(msg_id.as_str()));
            if !filed {
                m.push(message);
            }
            let tagged = tag(m);
            let change = if !filed || tagged {
                Change::Synced
            } else {
                Change::None
            };
            (change, unread_of(m))
        })?;
        Ok(Filed { msg_id, unread })
    }

    /// Files messages `(from, text)` in `to`'s inbox as read, in one write: what agents said,
    /// in the human's inbox (the UI has them from the store).
    pub fn file_read(&self, to: &str, messages: &[(String, String)]) -> Result<(), MailboxError> {
        let all = messages
            .iter()
            .map(|(from, text)| message(from, text, None, true, self.clock.now_iso()))
            .collect();
        self.append_all(to, all)
    }

    fn append_all(&self, to: &str, messages: Vec<InboxMessage>) -> Result<(), MailboxError> {
        let path = self.path(to)?;
        self.update(&path, Unread::Watcher, |m| {
            m.extend(messages);
            (Change::Cached, ())
        })
    }

    /// The unread mail of `name`'s inbox, oldest first, without marking it. A message some
    /// other program wrote without a `msg_id` is given one (written back under the lock), so
    /// that it can be recorded once and marked read later; mail that has its ids is read
    /// without the lock (its writers never hold up a reader).
    pub fn unread_tagged(&self, name: &str) -> Result<Vec<InboxMessage>, MailboxError> {
        let path = self.path(name)?;
        if !path.exists() {
            return Ok(Vec::new());
        }
        if let Some(messages) = file::snapshot(&path)? {
            if !messages.iter().any(|m| !m.read && m.msg_id.is_none()) {
                return Ok(messages.into_iter().filter(|m| !m.read).collect());
            }
        }
        self.update(&path, Unread::Watcher, |m| {
            let change = if tag(m) { Change::Synced } else { Change::None };
            (change, unread_of(m))
        })
    }

    /// Takes the message `msg_id` back out of `name`'s inbox if it is still unread: one filed
    /// for an event that could not be recorded.
    pub fn unfile(&self, name: &str, msg_id: &str) -> Result<(), MailboxError> {
        let path = self.path(name)?;
        self.update(&path, Unread::Watcher, |m| {
            let before = m.len();
            m.retain(|x| x.read || x.msg_id.as_deref() != Some(msg_id));
            let change = if m.len() < before {
                Change::Synced
            } else {
                Change::None
            };
            (change, ())
        })
    }

    /// Marks the messages with these ids read (their reader took them).
    pub fn mark_read(&self, name: &str, msg_ids: &[String]) -> Result<(), MailboxError> {
        let path = self.path(name)?;
        self.update(&path, Unread::Watcher, |m| {
            let mut changed = false;
            for msg in m
                .iter_mut()
                .filter(|m| !m.read && m.msg_id.as_ref().is_some_and(|id| msg_ids.contains(id)))
            {
                msg.read = true;
                changed = true;
            }
            // Lost to a power cut, the mail is handed over again (at least once).
            (
                if changed {
                    Change::Cached
                } else {
                    Change::None
                },
                (),
            )
        })
    }

    /// Inboxes that were not valid JSON and were moved aside (`{name}.json.invalid-{ms}`) at or
    /// after `since_ms`, oldest first: the inbox name and the file they are kept in.
    pub fn moved_aside_since(&self, since_ms: i64) -> Vec<(String, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<(i64, String, PathBuf)> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|path| {
                let file = path.file_name()?.to_str()?.to_string();
                let (inbox, ms) = file.split_once(".json.invalid-")?;
                let ms: i64 = ms.parse().ok()?;
                (ms >= since_ms).then(|| (ms, inbox.to_string(), path))
            })
            .collect();
        found.sort();
        found
            .into_iter()
            .map(|(_, name, path)| (name, path))
            .collect()
    }

    /// Every message of `name`'s inbox, read and unread.
    pub fn all(&self, name: &str) -> Result<Vec<InboxMessage>, MailboxError> {
        let path = self.path(name)?;
        if !path.exists() {
            return Ok(Vec::new());
        }
        file::all(&path, self.timing)
    }

    pub fn unread(&self, name: &str) -> Result<Vec<InboxMessage>, MailboxError> {
        let path = self.path(name)?;
        if !path.exists() {
            return Ok(Vec::new());
        }
        file::unread(&path, self.timing)
    }
}

/// A message filed ([`Mailboxes::file`]).
#[derive(Clone, Debug)]
pub struct Filed {
    pub msg_id: String,
    /// The inbox's unread mail after the write, oldest first, every message with its id.
    pub unread: Vec<InboxMessage>,
}

/// Gives each unread message some other program wrote without a `msg_id` one, so that it can
/// be recorded once and marked read later; true if there was any.
fn tag(messages: &mut [InboxMessage]) -> bool {
    let mut tagged = false;
    for msg in messages
        .iter_mut()
        .filter(|m| !m.read && m.msg_id.is_none())
    {
        msg.msg_id = Some(format!("ext-{}", uuid::Uuid::new_v4().simple()));
        tagged = true;
    }
    tagged
}

/// A message as Soulgrid writes it: its own `msg_id` and `type`.
fn message(
    from: &str,
    text: &str,
    summary: Option<String>,
    read: bool,
    timestamp: String,
) -> InboxMessage {
    let mut extra = serde_json::Map::new();
    extra.insert("type".into(), "message".into());
    InboxMessage {
        from: from.to_string(),
        text: text.to_string(),
        summary,
        timestamp,
        read,
        msg_id: Some(format!("soulgrid-{}", uuid::Uuid::new_v4().simple())),
        extra,
    }
}

/// The unread messages of an inbox, oldest first.
fn unread_of(messages: &[InboxMessage]) -> Vec<InboxMessage> {
    messages.iter().filter(|m| !m.read).cloned().collect()
}
