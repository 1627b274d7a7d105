//! Each agent's own Claude configuration folder (`CLAUDE_CONFIG_DIR`, `{data-dir}/claude/N`):
//! its sessions, its `.claude.json`, its backups, where no other agent reads or changes them,
//! and nothing the human's own `claude` reads (its settings, its MCP servers). The human's
//! login and settings are shown in it read-only (a link without the sandbox, a read-only bind
//! in one). A session it is to resume, or its parent's for a fork, is copied in from wherever
//! the CLI left it (another seat's folder, or the human's own from before there were these).

use std::path::{Path, PathBuf};

use app::domain::Seat;

/// What of the human's Claude folder an agent's shows, read-only: its login and settings.
pub const SHARED: [&str; 2] = [".credentials.json", "settings.json"];

/// The largest session file copied for a resume or a fork.
const MAX_SESSION: usize = 256 * 1024 * 1024;

/// The agent in `seat`'s own folder.
pub fn dir(data_dir: &Path, seat: Seat) -> PathBuf {
    data_dir.join("claude").join(seat.to_string())
}

/// The human's own Claude folder: the server's `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn humans() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".claude"))
}

/// Makes `seat`'s folder ready for a start that resumes `session` (if any): the folder made,
/// the human's shared files shown in it (`linked`: as links, without the sandbox; else as
/// files the sandbox binds over), and the session copied in when it is not there yet.
pub fn prepare(data_dir: &Path, seat: Seat, session: Option<&str>, linked: bool) -> PathBuf {
    let own = dir(data_dir, seat);
    let _ = std::fs::create_dir_all(&own);
    if let Some(human) = humans() {
        for name in SHARED {
            show(&human.join(name), &own.join(name), linked);
        }
    }
    if let Some(session) = session {
        if let Err(e) = bring_session(data_dir, &own, session) {
            tracing::warn!(
                seat,
                session,
                "the session to resume could not be brought in: {e}"
            );
        }
    }
    own
}

/// `at` shows `shared`: a link to it, or (for a bind) a plain file to bind over; nothing when
/// the human has no such file.
fn show(shared: &Path, at: &Path, linked: bool) {
    let there = std::fs::symlink_metadata(at).ok();
    if !shared.is_file() {
        if there.is_some_and(|m| m.file_type().is_symlink()) {
            let _ = std::fs::remove_file(at);
        }
        return;
    }
    match (linked, there.map(|m| m.file_type().is_symlink())) {
        (true, Some(true)) | (false, Some(false)) => {}
        (true, _) => {
            let _ = std::fs::remove_file(at);
            let _ = std::os::unix::fs::symlink(shared, at);
        }
        (false, _) => {
            let _ = std::fs::remove_file(at);
            let _ = std::fs::write(at, "");
        }
    }
}

/// `session`'s file into `own` (under the same project folder name), from another seat's
/// folder or the human's, unless `own` has it. Read without following a link and bounded:
/// another agent's folder is that agent's to write.
fn bring_session(data_dir: &Path, own: &Path, session: &str) -> std::io::Result<()> {
    let file = format!("{session}.jsonl");
    if find(own, &file).is_some() {
        return Ok(());
    }
    let seats = std::fs::read_dir(data_dir.join("claude"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != own);
    let Some((project, found)) = seats.chain(humans()).find_map(|d| find(&d, &file)) else {
        return Ok(());
    };
    let bytes = match crate::fsafe::read_bounded(&found, MAX_SESSION)? {
        crate::fsafe::Found::Bytes(b) => b,
        other => {
            return Err(std::io::Error::other(format!(
                "{}: {other:?}",
                found.display()
            )))
        }
    };
    let into = own.join("projects").join(project);
    std::fs::create_dir_all(&into)?;
    crate::fsafe::replace(&into, file.as_ref(), &bytes, 0o600)
}

/// The project folder name and path of `file` in `config`'s `projects/`, if it is there.
fn find(config: &Path, file: &str) -> Option<(std::ffi::OsString, PathBuf)> {
    std::fs::read_dir(config.join("projects"))
        .ok()?
        .flatten()
        .map(|e| (e.file_name(), e.path().join(file)))
        .find(|(_, p)| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_brought_from_another_seat_and_the_shared_files_shown() {
        let data = tempfile::tempdir().unwrap();
        let other = dir(data.path(), 0).join("projects/-x-agents-0");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("s1.jsonl"), "{\"a\":1}\n").unwrap();
        let own = prepare(data.path(), 2, Some("s1"), false);
        assert_eq!(
            std::fs::read_to_string(own.join("projects/-x-agents-0/s1.jsonl")).unwrap(),
            "{\"a\":1}\n"
        );
        // A link in another seat's folder is not read through.
        std::os::unix::fs::symlink("/etc/hostname", other.join("s2.jsonl")).unwrap();
        prepare(data.path(), 3, Some("s2"), false);
        assert!(find(&dir(data.path(), 3), "s2.jsonl").is_none());
    }
}
