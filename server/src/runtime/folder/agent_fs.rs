//! Files in an agent's folder, which the agent can write to: nothing here follows a link the
//! agent made. Folders are real folders (checked part by part, never followed), files are
//! written to a fresh temp name created exclusively with `O_NOFOLLOW` and renamed over the
//! target (a link there is replaced, not followed), and files are read only when they are
//! regular files opened with `O_NOFOLLOW`.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use app::domain::docs::KnowledgeFiles;
use app::domain::knowledge::{self, MAX_FILE_BYTES};

fn not_a_folder(p: &Path) -> std::io::Error {
    std::io::Error::other(format!("{} is not a folder", p.display()))
}

/// `dir/rel`'s folder, made if missing, every part a real folder inside `dir` (a link is an
/// error, never followed). `rel` is a relative path of plain parts.
pub fn real_folder(dir: &Path, rel: &Path) -> std::io::Result<PathBuf> {
    if !std::fs::symlink_metadata(dir)?.is_dir() {
        return Err(not_a_folder(dir));
    }
    let mut at = dir.to_path_buf();
    for part in rel.components() {
        let Component::Normal(part) = part else {
            return Err(std::io::Error::other(format!(
                "{} is not a plain relative path",
                rel.display()
            )));
        };
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(not_a_folder(&at)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&at)?,
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// What [`write_file`]'s files are while being written, as a git pattern: `.<name>.<id>.tmp`.
pub const HALF_WRITTEN: &str = ".*.tmp";

/// Replaces `dir/rel` with `bytes` (file mode `mode`) in one rename; its folders are made as
/// real folders inside `dir`.
pub fn write_file(dir: &Path, rel: &str, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let rel = Path::new(rel);
    let name = rel
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    let folder = real_folder(dir, rel.parent().unwrap_or(Path::new("")))?;
    crate::fsafe::replace(&folder, name, bytes, mode)
}

/// Appends `line` to `dir/name` (made if missing), never through a link, never waiting on a
/// FIFO or a device placed there: it must be a regular file.
pub fn append_line(dir: &Path, name: &str, line: &str) -> std::io::Result<()> {
    if !std::fs::symlink_metadata(dir)?.is_dir() {
        return Err(not_a_folder(dir));
    }
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(dir.join(name))
        .map_err(|e| match e.raw_os_error() {
            // A FIFO nobody reads (ENXIO), a link (ELOOP).
            Some(libc::ENXIO) | Some(libc::ELOOP) => std::io::Error::other(format!(
                "{} is not a regular file",
                dir.join(name).display()
            )),
            _ => e,
        })?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file",
            dir.join(name).display()
        )));
    }
    writeln!(f, "{line}")
}

pub use crate::fsafe::read_regular;

/// What a vault folder held that was not kept as it was.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Not a vault path, not UTF-8, or not a regular file: (path, why).
    pub files: Vec<(String, String)>,
}

/// The files of `dir/knowledge/` (one folder deep at most), as the agent left them; a missing
/// folder is an empty vault. Sizes are not checked here (see `knowledge::within_limits`), except
/// that a file is read no further than a byte past the largest a vault keeps.
pub fn read_knowledge(dir: &Path) -> std::io::Result<(KnowledgeFiles, Skipped)> {
    let root = dir.join(knowledge::DIR);
    let mut files = KnowledgeFiles::new();
    let mut skipped = Skipped::default();
    match std::fs::symlink_metadata(&root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            skipped
                .files
                .push((knowledge::DIR.into(), "it is not a folder".into()));
            return Ok((files, skipped));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((files, skipped)),
        Err(e) => return Err(e),
    }
    let mut stack = vec![(root.clone(), String::new(), 0)];
    while let Some((folder, prefix, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            let kind = entry.file_type()?;
            if kind.is_dir() && depth == 0 && !name.starts_with('.') {
                stack.push((entry.path(), format!("{rel}/"), depth + 1));
                continue;
            }
            if name.starts_with('.') {
                continue;
            }
            if !kind.is_file() || !knowledge::valid_path(&rel) {
                skipped
                    .files
                    .push((rel, "not a vault file (a .md or .txt file)".into()));
                continue;
            }
            let size = entry.metadata()?.len();
            if size > MAX_FILE_BYTES as u64 {
                skipped.files.push((
                    rel,
                    format!("{size} bytes; a vault file may have {MAX_FILE_BYTES}"),
                ));
                continue;
            }
            // As listed: every folder on the way opened without following a link (one
            // swapped for a link since the listing is not read through).
            let found =
                crate::fsafe::read_in(dir, &Path::new(knowledge::DIR).join(&rel), MAX_FILE_BYTES)?;
            match found {
                crate::fsafe::Found::Bytes(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => {
                        files.insert(rel, text);
                    }
                    Err(_) => skipped.files.push((rel, "not UTF-8 text".into())),
                },
                crate::fsafe::Found::Missing => {}
                crate::fsafe::Found::Unfit(why) => skipped.files.push((rel, why)),
            }
        }
    }
    Ok((files, skipped))
}

/// Makes `dir/knowledge/` hold exactly `files`: each written (never through a link), every
/// other file there removed (the store holds whatever was captured of it).
pub fn restore_knowledge(dir: &Path, files: &KnowledgeFiles) -> std::io::Result<()> {
    let root = real_folder(dir, Path::new(knowledge::DIR))?;
    let (present, _) = read_knowledge(dir)?;
    for path in present.keys().filter(|p| !files.contains_key(*p)) {
        let _ = crate::fsafe::remove_in(&root, Path::new(path));
    }
    for (path, text) in files {
        if knowledge::valid_path(path) && present.get(path) != Some(text) {
            write_file(&root, path, text.as_bytes(), 0o644)?;
        }
    }
    Ok(())
}

/// The agent's own folder: its working directory, where `_state.md` is kept.
pub fn agent_dir(data_dir: &std::path::Path, seat: app::domain::Seat) -> std::path::PathBuf {
    data_dir.join("agents").join(seat.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `logout.log` made a FIFO (or a link) by the agent: the append at its sleep said so at
    /// once instead of waiting for a reader for ever (every stop and the shutdown with it).
    #[test]
    fn an_append_never_waits_on_a_fifo_nor_follows_a_link() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("logout.log");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(append_line(&d, "logout.log", "bye").is_err());
        });
        let refused = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the append answered");
        assert!(refused, "a FIFO is not a file to append to");
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("precious");
        std::fs::write(&target, "mine\n").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("linked.log")).unwrap();
        assert!(append_line(dir.path(), "linked.log", "bye").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
        append_line(dir.path(), "plain.log", "bye").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("plain.log")).unwrap(),
            "bye\n"
        );
    }
}
