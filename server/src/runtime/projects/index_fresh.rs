//! How much of a worktree the server's index must take in again before a diff (its new files
//! marked as intended, its removed ones gone), so that it lists the worktree's files as they
//! are: every folder (25 ms of a 90 ms diff on a 10,000-file repository here), only the paths
//! the file watcher saw change in that worktree since the index was last brought up, or
//! nothing. Trusted only while the file watcher runs and has not failed
//! ([`crate::repo::watch::Seen`]): it counts every change it sees in any worktree with its
//! paths (the poll and an overflow count as "anything"), and an index brought up at one count
//! holds every change seen up to it. A diff always reads the files themselves: what this saves
//! is the listing of the folders, never the content. What the radar records and a merge checks
//! always lists them all.
//!
//! A look first waits for the watcher to have told of every change made before it
//! ([`Fresh::caught_up`]): on a loaded machine its thread may read the kernel's queue a while
//! after a write, and a file written just before a diff was missing from it (a CI run beside
//! two busy loops met it).
//!
//! Not covered: a file written into a folder made a moment before, in the instant before the
//! watcher has added that folder (notify adds it after telling of it): the folder is taken in
//! whole when its making is seen, so such a file is missed only if the folder was taken in
//! before the file was written; the radar's look at the folder (150 ms later) or at the latest
//! the 20 s poll lists it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::repo::bring_up::BringUp;
use crate::repo::watch::Seen;

/// A look's mark at the root, removed when dropped.
struct Mark<'a>(&'a Path);

impl Drop for Mark<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

/// (project, identity) of a worktree.
type Key = (String, String);

/// More paths seen in one worktree than this, and every folder is listed.
const MAX_PATHS: usize = crate::repo::bring_up::MAX_PATHS;

#[derive(Default)]
pub struct Fresh {
    /// The watcher's count of changes, once it runs, and the folder it watches (each worktree
    /// at `{root}/{identity}/{project}`).
    changes: OnceLock<(Seen, PathBuf)>,
    /// The count at which each index was last brought up.
    at: Mutex<HashMap<Key, u64>>,
}

impl Fresh {
    /// The watcher runs on `root` and counts its changes in `changes`.
    pub fn follow(&self, changes: Seen, root: PathBuf) {
        let _ = self.changes.set((changes, root));
    }

    /// The count now. `None` without a watcher, or once it is blind.
    pub fn now(&self) -> Option<u64> {
        self.changes.get().and_then(|(seen, _)| seen.now())
    }

    /// Waits until the count is past `after` (at once without a watcher).
    pub async fn moved_past(&self, after: u64) {
        if let Some((seen, _)) = self.changes.get() {
            seen.moved_past(after).await;
        }
    }

    /// Waits until the watcher has told of every change made before now: it makes a file of
    /// its own at the root (outside every worktree: [`Fresh::to_bring`] and the radar pass it
    /// by) and waits to hear of it, the kernel's queue being read in order. False without a
    /// watcher, or when it did not hear of it within a second: then every folder is listed.
    pub async fn caught_up(&self) -> bool {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let Some((seen, root)) = self.changes.get() else {
            return false;
        };
        let Some(start) = seen.now() else {
            return false;
        };
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mark = root.join(format!(".soulgrid-look-{}-{n}", std::process::id()));
        if let Err(e) = std::fs::write(&mark, b"") {
            tracing::debug!(error = %e, "no mark at the worktrees' root: every folder is listed");
            return false;
        }
        // Removed however the look ends (a client gone midway drops it).
        let _mark = Mark(&mark);
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
        let heard = loop {
            let Some(at) = seen.now() else { break false };
            match seen.since(start) {
                Some((_, paths)) if paths.contains(&mark) => break true,
                // Too much since (a poll, a rescan): every folder is listed anyway.
                None => break true,
                Some(_) => {}
            }
            if tokio::time::timeout_at(deadline, seen.moved_past(at))
                .await
                .is_err()
            {
                break false;
            }
        };
        heard
    }

    /// What the index of `key` (its worktree at `tree`) must take in to hold the worktree's
    /// files as they are, and the count to give [`Fresh::brought_up`] once it has (read with
    /// the paths: a change during the bring-up leaves the index behind).
    pub fn to_bring(&self, key: &Key, tree: &Path) -> (BringUp, Option<u64>) {
        let Some((seen, root)) = self.changes.get() else {
            return (BringUp::All, None);
        };
        let now = seen.now();
        let at = self
            .at
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .copied();
        // A worktree somewhere else than the watcher places it: its paths cannot be told.
        let watched = tree == root.join(&key.1).join(&key.0);
        let Some((now, paths)) = at.filter(|_| watched).and_then(|at| seen.since(at)) else {
            return (BringUp::All, now);
        };
        let mut mine = BTreeSet::new();
        for path in paths {
            match path.strip_prefix(tree) {
                Ok(rest) if rest.as_os_str().is_empty() => return (BringUp::All, Some(now)),
                Ok(rest) => {
                    mine.insert(rest.to_path_buf());
                }
                // The worktree's own folder or one above it made, moved or removed.
                Err(_) if tree.starts_with(&path) => return (BringUp::All, Some(now)),
                // Another worktree (its own folder under the root), or git's own files (a
                // worktree's folder in the user's repository).
                Err(_) if path.starts_with(root) => {}
                Err(_) if path.components().any(|c| c.as_os_str() == ".git") => {}
                // A path that cannot be placed: anything may have changed.
                Err(_) => return (BringUp::All, Some(now)),
            }
            if mine.len() > MAX_PATHS {
                return (BringUp::All, Some(now));
            }
        }
        let how = match mine.is_empty() {
            true => BringUp::No,
            false => BringUp::Paths(mine.into_iter().collect()),
        };
        (how, Some(now))
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

    fn tree(who: &str) -> PathBuf {
        PathBuf::from("/data/worktrees").join(who).join("p1")
    }

    fn following() -> (Fresh, Seen) {
        let (fresh, changes) = (Fresh::default(), Seen::default());
        fresh.follow(changes.clone(), "/data/worktrees".into());
        (fresh, changes)
    }

    /// Brings `who`'s index up as the diff does, and says how.
    fn bring(fresh: &Fresh, who: &str) -> BringUp {
        bring_at(fresh, who, &tree(who))
    }

    /// The same, its worktree at `at`.
    fn bring_at(fresh: &Fresh, who: &str, at: &Path) -> BringUp {
        let (how, count) = fresh.to_bring(&key(who), at);
        fresh.brought_up(key(who), count);
        how
    }

    #[test]
    fn without_a_watcher_every_folder_is_listed_each_time() {
        let fresh = Fresh::default();
        assert_eq!(bring(&fresh, "a"), BringUp::All);
        assert_eq!(bring(&fresh, "a"), BringUp::All);
    }

    #[test]
    fn only_the_paths_seen_in_a_worktree_since_are_taken_in() {
        let (fresh, changes) = following();
        assert_eq!(bring(&fresh, "a"), BringUp::All, "never brought up");
        assert_eq!(bring(&fresh, "a"), BringUp::No);
        changes.saw(&[tree("a").join("src/new.rs"), tree("b").join("x")]);
        changes.saw(&[tree("a").join("docs")]);
        assert_eq!(
            bring(&fresh, "a"),
            BringUp::Paths(vec!["docs".into(), "src/new.rs".into()])
        );
        assert_eq!(bring(&fresh, "a"), BringUp::No);
        assert_eq!(bring(&fresh, "b"), BringUp::All, "b never brought up");
        changes.saw(&[tree("b").join("y")]);
        assert_eq!(
            bring(&fresh, "a"),
            BringUp::No,
            "a change in another worktree"
        );
        changes.saw(&["/elsewhere/.git/worktrees/a/index".into()]);
        assert_eq!(bring(&fresh, "a"), BringUp::No, "git's own files");
        changes.saw(&["/moved/data/worktrees/a/p1/x".into()]);
        assert_eq!(
            bring(&fresh, "a"),
            BringUp::All,
            "a path that cannot be placed"
        );
        changes.saw(&[tree("a").join("same"), tree("a").join("same")]);
        assert_eq!(
            bring(&fresh, "a"),
            BringUp::Paths(vec!["same".into()]),
            "once"
        );
        let many: Vec<PathBuf> = (0..=MAX_PATHS)
            .map(|i| tree("a").join(format!("f{i}")))
            .collect();
        changes.saw(&many);
        assert_eq!(bring(&fresh, "a"), BringUp::All, "too many");
        changes.saw(&[tree("a")]);
        assert_eq!(
            bring(&fresh, "a"),
            BringUp::All,
            "the worktree's own folder"
        );
        changes.saw(&["/data/worktrees/a".into()]);
        assert_eq!(bring(&fresh, "a"), BringUp::All, "a folder above it");
        changes.bump();
        assert_eq!(bring(&fresh, "a"), BringUp::All, "the poll: anything");
        fresh.forget(&key("a"));
        assert_eq!(bring(&fresh, "a"), BringUp::All, "forgotten");
        changes.go_blind();
        assert_eq!(bring(&fresh, "a"), BringUp::All, "a watcher that failed");
        assert_eq!(bring(&fresh, "a"), BringUp::All);
    }

    #[test]
    fn a_worktree_elsewhere_is_listed_whole() {
        let (fresh, _changes) = following();
        let elsewhere = Path::new("/moved/a/p1");
        assert_eq!(bring_at(&fresh, "a", elsewhere), BringUp::All);
        assert_eq!(bring_at(&fresh, "a", elsewhere), BringUp::All);
    }

    #[test]
    fn a_change_while_the_index_is_brought_up_leaves_it_behind() {
        let (fresh, changes) = following();
        bring(&fresh, "a");
        let (_, count) = fresh.to_bring(&key("a"), &tree("a"));
        changes.saw(&[tree("a").join("during")]); // a write during `git add`
        fresh.brought_up(key("a"), count);
        assert_eq!(bring(&fresh, "a"), BringUp::Paths(vec!["during".into()]));
    }

    /// A file written just before a look, told of by the watcher only after the look began:
    /// the look waits for it (its own mark comes after it in the kernel's queue) and takes it
    /// in. Without the wait the index was brought up without it.
    #[tokio::test]
    async fn a_look_waits_until_the_watcher_told_of_what_came_before_it() {
        let root = tempfile::tempdir().unwrap();
        let (fresh, seen) = (Fresh::default(), Seen::default());
        fresh.follow(seen.clone(), root.path().to_path_buf());
        let tree = root.path().join("ada").join("p1");
        let key = ("p1".to_string(), "ada".to_string());
        fresh.brought_up(key.clone(), seen.now());
        // The watcher, late: it tells of the file, then of the look's mark, once the mark is
        // there.
        let watcher = tokio::spawn({
            let (seen, root, tree) = (seen.clone(), root.path().to_path_buf(), tree.clone());
            async move {
                let mark = loop {
                    let found = std::fs::read_dir(&root).unwrap().flatten().find(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .starts_with(".soulgrid-look-")
                    });
                    match found {
                        Some(e) => break e.path(),
                        None => tokio::task::yield_now().await,
                    }
                };
                seen.saw(&[tree.join("logo.png")]);
                seen.saw(&[mark]);
            }
        });
        assert!(fresh.caught_up().await);
        let (how, _) = fresh.to_bring(&key, &tree);
        assert_eq!(how, BringUp::Paths(vec!["logo.png".into()]));
        watcher.await.unwrap();
        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "the mark is removed: {left:?}");
    }

    #[tokio::test]
    async fn without_a_watcher_a_look_lists_every_folder() {
        assert!(!Fresh::default().caught_up().await);
    }
}
