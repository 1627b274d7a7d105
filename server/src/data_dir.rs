//! One server per data directory: an exclusive OS file lock (`flock`) on
//! `{data_dir}/soulgrid.lock`, taken before anything is read or written and held for the
//! server's life (the kernel releases it when the process ends, however it ends). The file
//! holds the holder's pid, so a second server can say who has the directory.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The lock file's name inside the data directory.
pub const LOCK_FILE: &str = "soulgrid.lock";

#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error(
        "the data directory {} is in use by another soulgrid server (pid {pid}); stop that \
         server, or start this one with another --data-dir",
        dir.display()
    )]
    InUse { dir: PathBuf, pid: String },
    #[error("cannot use the data directory {}: {source}", dir.display())]
    Io {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Holds the data directory for this server.
#[derive(Debug)]
pub struct DataDirLock {
    file: Mutex<Option<std::fs::File>>,
    dir: PathBuf,
}

impl DataDirLock {
    /// Takes the directory (creating it), or says which server has it.
    pub fn take(dir: &Path) -> Result<DataDirLock, DataDirError> {
        Self::take_with(dir, RELEASE_WAIT, || {})
    }

    /// [`DataDirLock::take`], waiting at most `wait` for a gone holder's lock; `waiting` is
    /// called before each wait (tests release the lock there).
    fn take_with(
        dir: &Path,
        wait: std::time::Duration,
        mut waiting: impl FnMut(),
    ) -> Result<DataDirLock, DataDirError> {
        let io = |source| DataDirError::Io {
            dir: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(LOCK_FILE))
            .map_err(io)?;
        // A holder that is gone lets go within moments: the lock can outlive a killed server
        // in a process it was starting (between fork and exec, the child holds a copy of the
        // descriptor until exec closes it). Only a live holder is refused at once.
        let deadline = std::time::Instant::now() + wait;
        while !try_lock(&file).map_err(io)? {
            let pid = holder(&mut file);
            // This very process, recorded but no longer holding it (released, as a restart in
            // one process does): a child it was starting still has the descriptor; waited for.
            let released_here = pid.parse::<u32>().is_ok_and(|p| p == std::process::id())
                && !held_here().contains(dir);
            let gone = released_here || pid.parse::<i32>().is_ok_and(|p| !alive(p));
            if !gone || std::time::Instant::now() >= deadline {
                return Err(DataDirError::InUse {
                    dir: dir.to_path_buf(),
                    pid: if pid.is_empty() {
                        "unknown".into()
                    } else {
                        pid
                    },
                });
            }
            // flock(2) has no timed wait: asked again until the deadline.
            waiting();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        held_here().insert(dir.to_path_buf());
        Ok(DataDirLock {
            file: Mutex::new(Some(file)),
            dir: dir.to_path_buf(),
        })
    }

    /// Gives the directory up (at shutdown; dropping the lock or ending the process does too).
    pub fn release(&self) {
        if self
            .file
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .is_some()
        {
            held_here().remove(&self.dir);
        }
    }
}

impl Drop for DataDirLock {
    fn drop(&mut self) {
        self.release();
    }
}

/// The data directories this process holds now.
fn held_here() -> std::sync::MutexGuard<'static, std::collections::HashSet<PathBuf>> {
    static HELD: std::sync::LazyLock<Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::LazyLock::new(Default::default);
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

/// How long a lock whose recorded holder is gone is waited for.
const RELEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The pid the lock file records (empty when it records none).
fn holder(file: &mut std::fs::File) -> String {
    let mut pid = String::new();
    let _ = file.rewind();
    let _ = file.read_to_string(&mut pid);
    pid.trim().to_string()
}

/// Whether a process with this pid exists (one of another user's counts).
fn alive(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 sends nothing; it only checks the pid.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// `flock(LOCK_EX | LOCK_NB)`: false when another open file holds it.
fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock(2) on a file descriptor this function borrows for the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid_until_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::take(dir.path()).unwrap();
        let err = DataDirLock::take(dir.path()).unwrap_err().to_string();
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        first.release();
        DataDirLock::take(dir.path()).unwrap();
    }

    /// Released here while a child this process was starting still has the descriptor
    /// (between fork and exec, as any test's or the runtime's spawn may be at that moment):
    /// taking it again waits for the child instead of refusing this very process.
    #[test]
    fn released_here_while_a_child_holds_a_copy_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::take(dir.path()).unwrap();
        // SAFETY: the child only sleeps and exits (both async-signal-safe), as a child
        // between fork and exec holds the parent's descriptors.
        let child = unsafe { libc::fork() };
        if child == 0 {
            unsafe {
                libc::usleep(300_000);
                libc::_exit(0);
            }
        }
        assert!(child > 0);
        first.release();
        let again = DataDirLock::take(dir.path());
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        unsafe { libc::waitpid(child, &mut status, 0) };
        again.unwrap();
    }

    /// A killed server's lock, still held for a moment by a process it was starting (its pid in
    /// the file is gone): the next server waits for the release instead of refusing; and
    /// refuses once the wait is over.
    #[test]
    fn a_lock_whose_holder_is_gone_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        // A pid no process has: above Linux's highest (PID_MAX_LIMIT, 2^22). A reaped child's
        // pid would do only until it is reused: with pid_max 32768 and the test suite starting
        // processes all the time, it was reused here once (the holder looked alive).
        let dead: u32 = (1 << 22) + 1;
        // The lock held by another open file, recording the dead pid.
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, format!("{dead}\n")).unwrap();
        let held = std::fs::File::open(&path).unwrap();
        assert!(try_lock(&held).unwrap());
        // No time to wait: refused, naming the recorded holder.
        let err = DataDirLock::take_with(dir.path(), std::time::Duration::ZERO, || {})
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("pid {dead}")), "{err}");
        // Time to wait: the holder lets go while the take waits, and the take succeeds.
        let mut held = Some(held);
        let mut waits = 0;
        let taken = DataDirLock::take_with(dir.path(), RELEASE_WAIT, || {
            waits += 1;
            held.take();
        });
        assert!(taken.is_ok(), "{:?}", taken.err());
        assert_eq!(waits, 1);
    }
}
