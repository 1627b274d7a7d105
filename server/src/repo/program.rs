//! Which `git` the server runs: found once by its full path on the absolute entries of the
//! server's own `PATH` (never in the folder a call runs in), so that std starts it with
//! `posix_spawn` rather than a fork of the whole server.

use std::path::{Path, PathBuf};

/// git by its full path, found once on the server's `PATH` (its absolute entries only). By its
/// full path, std starts it with `posix_spawn`, which does not copy the server's memory map:
/// with a bare name and a `PATH` of the command's own, std forks, and a fork of a process with a
/// large heap costs more than the git call it starts. Not found: the bare name, looked up on
/// [`search_path`] when it is run (and failing as it would have).
pub fn program() -> &'static std::ffi::OsStr {
    static GIT: std::sync::OnceLock<std::ffi::OsString> = std::sync::OnceLock::new();
    GIT.get_or_init(|| {
        find_git(search_path()).map_or_else(|| "git".into(), PathBuf::into_os_string)
    })
}

/// The server's `PATH` without its relative and empty entries (a `git` in the folder a call
/// runs in, an agent's worktree, is never the one run), as git and what it runs are given it.
pub fn search_path() -> &'static std::ffi::OsStr {
    static PATH: std::sync::OnceLock<std::ffi::OsString> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::env::split_paths(&path).filter(|d| d.is_absolute());
        std::env::join_paths(dirs).unwrap_or_default()
    })
}

/// The first `git` on `path` that this process may run.
fn find_git(path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file()) && may_run(f))
}

#[cfg(unix)]
fn may_run(file: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(c) = std::ffi::CString::new(file.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path, read only.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(not(unix))]
fn may_run(_file: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative and empty entries are never searched (a `git` in the folder a call runs in), nor
    /// a file this process may not run.
    #[test]
    fn only_absolute_entries_are_searched_for_a_git_that_may_run() {
        let dir = tempfile::tempdir().unwrap();
        let (here, no_exec, ok) = (
            dir.path().join("here"),
            dir.path().join("no"),
            dir.path().join("ok"),
        );
        for d in [&here, &no_exec, &ok] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(here.join("git"), "#!/bin/sh\n").unwrap();
        std::fs::write(no_exec.join("git"), "#!/bin/sh\n").unwrap();
        std::fs::write(ok.join("git"), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        for (f, mode) in [
            (here.join("git"), 0o755),
            (no_exec.join("git"), 0o644),
            (ok.join("git"), 0o755),
        ] {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let path =
            std::ffi::OsString::from(format!("::here:.:{}:{}", no_exec.display(), ok.display()));
        assert_eq!(find_git(&path), Some(ok.join("git")));
        assert_eq!(find_git(std::ffi::OsStr::new("relative:.:")), None);
    }
}
