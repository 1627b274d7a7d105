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
}

impl DataDirLock {
    /// Takes the directory (creating it), or says which server has it.
    pub fn take(dir: &Path) -> Result<DataDirLock, DataDirError> {
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
        if !try_lock(&file).map_err(io)? {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = pid.trim();
            return Err(DataDirError::InUse {
                dir: dir.to_path_buf(),
                pid: if pid.is_empty() {
                    "unknown".into()
                } else {
                    pid.into()
                },
            });
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(DataDirLock {
            file: Mutex::new(Some(file)),
        })
    }

    /// Gives the directory up (at shutdown; dropping the lock or ending the process does too).
    pub fn release(&self) {
        self.file.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
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
}
