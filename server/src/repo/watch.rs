//! Notices changes in the agents' worktrees: `notify` on `{data-dir}/worktrees` (every
//! worktree, recursively) and on each worktree's git folder in the user's repository (its
//! index and HEAD: a commit), handing out which paths changed; a slow poll says "look at
//! everything" (a base moved, events lost). Reading a file is not a change (the server's own
//! diffs read every file). It also counts the changes as they arrive, with the paths of each
//! ([`Seen`]): a diff leaves the server's index of a worktree as it is while the count has not
//! moved, takes in only the paths seen since when it has, and trusts it no more once the
//! watcher has failed or stopped.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What changed since the last look.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The poll: look at every worktree.
    pub all: bool,
    pub paths: HashSet<PathBuf>,
}

/// The watcher: what changed, as it changes, and more folders to watch as worktrees appear.
pub struct TreeWatch {
    wake: mpsc::Receiver<()>,
    pending: Arc<Mutex<Changes>>,
    watcher: Option<Arc<Mutex<notify::RecommendedWatcher>>>,
    watched: HashSet<PathBuf>,
    /// Every change seen (and every poll), counted as it is seen, before any look.
    seen: Seen,
}

/// The changes a watcher has seen, counted as they arrive on its own thread, with the paths of
/// the last few thousand; `blind` once it has failed (an error, a watch it could not add) or
/// stopped: then nothing may be taken as unchanged.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    count: Arc<AtomicU64>,
    blind: Arc<AtomicBool>,
    journal: Arc<Mutex<Journal>>,
    /// Woken at every change counted, and when it goes blind.
    moved: Arc<tokio::sync::Notify>,
}

/// The paths seen, each with the count it was seen at, oldest first.
#[derive(Debug, Default)]
struct Journal {
    paths: VecDeque<(u64, PathBuf)>,
    /// What was seen at this count or before is not known path by path (a poll, a rescan, or
    /// paths that no longer fit).
    floor: u64,
}

/// Paths kept: more, and the oldest are forgotten (what was seen then is "anything").
const JOURNAL: usize = 4096;

impl Seen {
    /// The count now, or `None` once the watcher is blind.
    pub fn now(&self) -> Option<u64> {
        let count = self.count.load(Ordering::Acquire);
        (!self.blind.load(Ordering::Acquire)).then_some(count)
    }

    /// One change seen, anywhere (the poll, a rescan, an error).
    pub(crate) fn bump(&self) {
        self.saw(&[]);
    }

    /// One change seen at `paths` (none: anything may have changed). The paths are kept before
    /// the count moves: whoever reads a count can read every path seen up to it.
    pub(crate) fn saw(&self, paths: &[PathBuf]) {
        let mut journal = self.journal.lock().unwrap_or_else(|p| p.into_inner());
        let count = self.count.load(Ordering::Acquire) + 1;
        if paths.is_empty() {
            journal.paths.clear();
            journal.floor = count;
        }
        journal
            .paths
            .extend(paths.iter().map(|p| (count, p.clone())));
        while journal.paths.len() > JOURNAL {
            if let Some((forgotten, _)) = journal.paths.pop_front() {
                journal.floor = journal.floor.max(forgotten);
            }
        }
        self.count.store(count, Ordering::Release);
        drop(journal);
        self.moved.notify_waiters();
    }

    /// Waits until the count is past `after` (or the watcher is blind).
    pub async fn moved_past(&self, after: u64) {
        loop {
            let moved = self.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            if self.now().is_none_or(|now| now > after) {
                return;
            }
            moved.await;
        }
    }

    /// The count now and the paths seen after count `after` (each as often as seen); `None`
    /// when they are not all known (a poll or a rescan since, too many, or the watcher blind).
    pub fn since(&self, after: u64) -> Option<(u64, Vec<PathBuf>)> {
        let journal = self.journal.lock().unwrap_or_else(|p| p.into_inner());
        let count = self.now()?;
        if journal.floor > after {
            return None;
        }
        let paths = journal.paths.iter().filter(|(c, _)| *c > after);
        Some((count, paths.map(|(_, p)| p.clone()).collect()))
    }

    pub(crate) fn go_blind(&self) {
        self.blind.store(true, Ordering::Release);
        self.moved.notify_waiters();
    }
}

impl Drop for TreeWatch {
    fn drop(&mut self) {
        self.seen.go_blind();
    }
}

impl TreeWatch {
    /// Waits for changes; `None` once the watcher has stopped.
    pub async fn next(&mut self) -> Option<Changes> {
        self.wake.recv().await?;
        Some(std::mem::take(
            &mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()),
        ))
    }

    /// The changes seen, bumped by the watcher's own thread as each arrives (before the radar's
    /// look); `None` when there is no watcher (polling only): then nothing may be taken as
    /// unchanged.
    pub fn seen(&self) -> Option<Seen> {
        self.watcher.as_ref().map(|_| self.seen.clone())
    }

    /// Also watches `dir` (a worktree's git folder), once.
    pub fn add(&mut self, dir: &Path) {
        let (Some(w), true) = (&self.watcher, self.watched.insert(dir.to_path_buf())) else {
            return;
        };
        let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = w.watch(dir, RecursiveMode::NonRecursive) {
            tracing::debug!(dir = %dir.display(), error = %e, "a worktree's git folder cannot be watched");
            self.watched.remove(dir);
            self.seen.go_blind();
        }
    }
}

/// Watches `root` (made if missing) until `stop`; the poll says "everything" every `poll`.
pub fn watch(
    root: &Path,
    poll: Duration,
    (stop, tasks): (CancellationToken, &crate::tasks::Tasks),
) -> TreeWatch {
    let (tx, wake) = mpsc::channel(1);
    let pending = Arc::new(Mutex::new(Changes::default()));
    let _ = std::fs::create_dir_all(root);
    let seen = Seen::default();
    let (notify_tx, notify_pending, notify_seen) = (tx.clone(), pending.clone(), seen.clone());
    let made = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
        let mut changes = notify_pending.lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(e) if e.need_rescan() => {
                changes.all = true;
                notify_seen.bump();
            }
            Ok(e) if matches!(e.kind, EventKind::Access(a) if a != AccessKind::Close(AccessMode::Write)) => {
                return
            }
            Ok(e) => {
                notify_seen.saw(&e.paths);
                changes.paths.extend(e.paths);
            }
            Err(_) => {
                // A watch lost (the limit of watches reached, a folder gone): what it covered
                // is no longer seen.
                changes.all = true;
                notify_seen.go_blind();
                notify_seen.bump();
            }
        }
        drop(changes);
        let _ = notify_tx.try_send(());
    });
    let watcher = match made {
        Ok(mut w) => match w.watch(root, RecursiveMode::Recursive) {
            Ok(()) => Some(Arc::new(Mutex::new(w))),
            Err(e) => {
                tracing::warn!(dir = %root.display(), error = %e, "cannot watch the worktrees; polling only");
                None
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "no file watcher; polling the worktrees only");
            None
        }
    };
    let every = match watcher {
        Some(_) => poll,
        None => Duration::from_secs(1),
    };
    let (poll_pending, poll_seen) = (pending.clone(), seen.clone());
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tick.tick() => {
                    poll_pending.lock().unwrap_or_else(|p| p.into_inner()).all = true;
                    poll_seen.bump();
                    let _ = tx.try_send(());
                }
            }
        }
    });
    TreeWatch {
        wake,
        pending,
        watcher,
        watched: HashSet::new(),
        seen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_change_is_counted_as_it_arrives_and_a_stopped_watcher_is_blind() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        let tw = watch(
            dir.path(),
            Duration::from_secs(3600),
            (stop.clone(), &Default::default()),
        );
        let seen = tw.seen().expect("a watcher on this machine");
        let before = seen.now().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        // The watcher's own thread counts it: awaited, with a limit.
        tokio::time::timeout(Duration::from_secs(20), seen.moved_past(before))
            .await
            .expect("the write was not counted");
        assert!(seen.now().unwrap() > before);
        drop(tw);
        assert_eq!(seen.now(), None, "a watcher that stopped sees nothing");
        stop.cancel();
    }

    #[test]
    fn the_paths_seen_since_a_count_are_known_until_a_change_anywhere() {
        let seen = Seen::default();
        let p = |s: &str| PathBuf::from(s);
        let start = seen.now().unwrap();
        seen.saw(&[p("/w/a"), p("/w/b")]);
        let middle = seen.now().unwrap();
        seen.saw(&[p("/w/c")]);
        assert_eq!(
            seen.since(start),
            Some((start + 2, vec![p("/w/a"), p("/w/b"), p("/w/c")]))
        );
        assert_eq!(seen.since(middle), Some((start + 2, vec![p("/w/c")])));
        assert_eq!(seen.since(start + 2), Some((start + 2, vec![])));
        seen.bump(); // the poll: anything may have changed
        let polled = seen.now().unwrap();
        assert_eq!(seen.since(middle), None);
        seen.saw(&[p("/w/d")]);
        assert_eq!(seen.since(polled), Some((polled + 1, vec![p("/w/d")])));
        let many: Vec<PathBuf> = (0..=JOURNAL).map(|i| p(&format!("/w/{i}"))).collect();
        seen.saw(&many);
        assert_eq!(seen.since(polled + 1), None, "more than it keeps");
        seen.go_blind();
        assert_eq!(seen.since(seen.count.load(Ordering::Acquire)), None);
    }
}
