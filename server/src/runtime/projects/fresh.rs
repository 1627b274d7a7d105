//! Whether the server's index of a worktree already holds the worktree's set of files (its new
//! files marked as intended, its removed ones gone), so that a diff need not bring it up again:
//! bringing it up reads every folder of the worktree (25 ms of a 90 ms diff on a 10,000-file
//! repository here). Trusted only while the file watcher runs and has not failed
//! ([`crate::repo::watch::Seen`]): it counts every change it sees in any worktree (the poll
//! and an overflow count too), and an index brought up at one count is current until the count
//! moves. A diff always reads the files themselves: what this saves is the listing of the
//! folders, never the content. What the radar records and a merge checks always lists them.
//!
//! Not covered: a file written into a folder made a moment before, in the instant before the
//! watcher has added that folder (notify adds it after telling of it): such a file is listed by
//! the radar's look at the folder (150 ms later), or at the latest by the 20 s poll.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::repo::watch::Seen;

/// (project, identity) of a worktree.
type Key = (String, String);

#[derive(Default)]
pub struct Fresh {
    /// The watcher's count of changes, once it runs.
    changes: OnceLock<Seen>,
    /// The count at which each index was last brought up.
    at: Mutex<HashMap<Key, u64>>,
}

impl Fresh {
    /// The watcher runs and counts its changes in `changes`.
    pub fn follow(&self, changes: Seen) {
        let _ = self.changes.set(changes);
    }

    /// The count now, to give [`Fresh::brought_up`] once the index is brought up (read before
    /// it starts: a change during it leaves the index behind). `None` without a watcher, or
    /// once it is blind.
    pub fn now(&self) -> Option<u64> {
        self.changes.get().and_then(Seen::now)
    }

    /// Whether the index of `key` holds the worktree's files as they are now.
    pub fn is_current(&self, key: &Key) -> bool {
        let Some(now) = self.now() else { return false };
        self.at.lock().unwrap_or_else(|p| p.into_inner()).get(key) == Some(&now)
    }

    /// The index of `key` was brought up to the worktree as it was at `count`.
    pub fn brought_up(&self, key: Key, count: Option<u64>) {
        let mut at = self.at.lock().unwrap_or_else(|p| p.into_inner());
        match count {
            Some(c) => at.insert(key, c),
            None => at.remove(&key),
        };
    }

    /// The index of `key` is not to be trusted (made again, or its worktree moved).
    pub fn forget(&self, key: &Key) {
        self.at
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(who: &str) -> Key {
        ("p1".into(), who.into())
    }

    #[test]
    fn without_a_watcher_no_index_is_current() {
        let fresh = Fresh::default();
        fresh.brought_up(key("a"), fresh.now());
        assert!(!fresh.is_current(&key("a")));
    }

    #[test]
    fn an_index_is_current_until_the_watcher_sees_a_change() {
        let fresh = Fresh::default();
        let changes = Seen::default();
        fresh.follow(changes.clone());
        assert!(!fresh.is_current(&key("a")), "never brought up");
        fresh.brought_up(key("a"), fresh.now());
        assert!(fresh.is_current(&key("a")));
        assert!(!fresh.is_current(&key("b")), "another worktree's index");
        changes.bump();
        assert!(!fresh.is_current(&key("a")), "a change seen");
        fresh.brought_up(key("a"), fresh.now());
        assert!(fresh.is_current(&key("a")));
        fresh.forget(&key("a"));
        assert!(!fresh.is_current(&key("a")));
        fresh.brought_up(key("a"), fresh.now());
        changes.go_blind();
        assert!(!fresh.is_current(&key("a")), "a watcher that failed");
    }

    #[test]
    fn a_change_while_the_index_is_brought_up_leaves_it_behind() {
        let fresh = Fresh::default();
        let changes = Seen::default();
        fresh.follow(changes.clone());
        let before = fresh.now();
        changes.bump(); // a write during `git add`
        fresh.brought_up(key("a"), before);
        assert!(!fresh.is_current(&key("a")));
    }
}
