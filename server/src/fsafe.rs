//! Files in places another program can write (an agent's folder, the team's inboxes): read and
//! removed so that what is there cannot steer the server. A read opens without following a
//! link and without blocking (a FIFO answers at once), takes only a regular file, and reads no
//! more than a bound; a removal walks from a folder opened without following links and removes
//! the last part relative to it (a linked folder in the path is refused, never deleted
//! through).

use std::ffi::CString;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path};

/// What is at a path, as a bounded read found it.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing there.
    Missing,
    /// Something that is not a regular file of at most the bound: why.
    Unfit(String),
    /// A regular file's bytes, all of them.
    Bytes(Vec<u8>),
}

/// Opens `path` for reading if it is a regular file: never through a link, never waiting on a
/// FIFO or a device. `Err(found)` says what is there instead.
fn open_regular(path: &Path) -> std::io::Result<Result<std::fs::File, Found>> {
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(Err(Found::Unfit("it is a link".into())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Err(Found::Missing)),
        // A socket, or a device with nothing behind it: not a file to read.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
            return Ok(Err(Found::Unfit("it is not a regular file".into())))
        }
        Err(e) => return Err(e),
    };
    if !f.metadata()?.is_file() {
        return Ok(Err(Found::Unfit("it is not a regular file".into())));
    }
    Ok(Ok(f))
}

/// Reads `path` if it is a regular file of at most `limit` bytes (never through a link, never
/// waiting on a FIFO or a device).
pub fn read_bounded(path: &Path, limit: usize) -> std::io::Result<Found> {
    let f = match open_regular(path)? {
        Ok(f) => f,
        Err(found) => return Ok(found),
    };
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Ok(Found::Unfit(format!("it is larger than {limit} bytes")));
    }
    Ok(Found::Bytes(bytes))
}

/// Reads `path` if it is a regular file (never through a link), at most `limit + 1` bytes of
/// it (so a caller sees that it was longer): `Ok(None)` for anything else.
pub fn read_regular(path: &Path, limit: usize) -> std::io::Result<Option<Vec<u8>>> {
    let f = match open_regular(path)? {
        Ok(f) => f,
        Err(_) => return Ok(None),
    };
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

fn c_name(part: &std::ffi::OsStr) -> std::io::Result<CString> {
    CString::new(part.as_bytes()).map_err(|_| std::io::Error::other("a name with a NUL byte"))
}

/// Opens `dir` (itself not followed if it is a link) as a folder.
fn open_folder(dir: &Path) -> std::io::Result<OwnedFd> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)?;
    Ok(OwnedFd::from(f))
}

/// Opens the folder `name` inside the open folder `at`, never through a link.
fn open_sub(at: &OwnedFd, name: &std::ffi::OsStr) -> std::io::Result<OwnedFd> {
    let c = c_name(name)?;
    // SAFETY: openat(2) with a valid folder descriptor and a NUL-terminated name; the new
    // descriptor is owned by the OwnedFd at once.
    let fd = unsafe {
        libc::openat(
            at.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by openat and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Reads the file `dir/rel` as [`read_bounded`] does, every folder on the way opened without
/// following a link: a part swapped for a link after `rel` was listed carries nothing from
/// outside `dir`.
pub fn read_in(dir: &Path, rel: &Path, limit: usize) -> std::io::Result<Found> {
    let (folders, name) = plain_parts(rel)?;
    let mut at = match open_folder(dir) {
        Ok(fd) => fd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) => return Err(e),
    };
    for part in folders {
        at = match open_sub(&at, part) {
            Ok(fd) => fd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                return Ok(Found::Unfit(format!(
                    "{} is not a folder",
                    part.to_string_lossy()
                )))
            }
            Err(e) => return Err(e),
        };
    }
    let c = c_name(name)?;
    // SAFETY: openat(2) with a valid folder descriptor and a NUL-terminated name; the new
    // descriptor is owned by the File at once.
    let fd = unsafe {
        libc::openat(
            at.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOENT) => Ok(Found::Missing),
            Some(libc::ELOOP) => Ok(Found::Unfit("it is a link".into())),
            Some(libc::ENXIO) => Ok(Found::Unfit("it is not a regular file".into())),
            _ => Err(e),
        };
    }
    // SAFETY: `fd` was just returned by openat and is owned by nobody else.
    let f = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    if !f.metadata()?.is_file() {
        return Ok(Found::Unfit("it is not a regular file".into()));
    }
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Ok(Found::Unfit(format!("it is larger than {limit} bytes")));
    }
    Ok(Found::Bytes(bytes))
}

/// `rel`'s folders and its last part; an error unless every part is a plain name.
fn plain_parts(rel: &Path) -> std::io::Result<(Vec<&std::ffi::OsStr>, &std::ffi::OsStr)> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p),
            _ => {
                return Err(std::io::Error::other(format!(
                    "{} is not a plain relative path",
                    rel.display()
                )))
            }
        }
    }
    let name = parts
        .pop()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    Ok((parts, name))
}

/// Replaces `folder/name` with `bytes` (file mode `mode`) in one rename: written to a fresh
/// temp name created exclusively without following a link, so a link at `name` is replaced,
/// never written through. `folder` itself is the caller's to have checked.
pub fn replace(
    folder: &Path,
    name: &std::ffi::OsStr,
    bytes: &[u8],
    mode: u32,
) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = folder.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        uuid::Uuid::new_v4().simple()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes));
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, folder.join(name))) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// Removes the file `dir/rel` (`rel` of plain parts): each folder on the way is opened without
/// following a link, and the file is unlinked relative to the last one, so a link anywhere in
/// the path removes nothing outside `dir`. A missing file is no error.
pub fn remove_in(dir: &Path, rel: &Path) -> std::io::Result<()> {
    let (folders, name) = plain_parts(rel)?;
    let mut at = open_folder(dir)?;
    for part in folders {
        at = match open_sub(&at, part) {
            Ok(fd) => fd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
    }
    let c = c_name(name)?;
    // SAFETY: unlinkat(2) with a valid folder descriptor and a NUL-terminated name; a link
    // named so is removed itself, never what it points to.
    let r = unsafe { libc::unlinkat(at.as_raw_fd(), c.as_ptr(), 0) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::NotFound {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(path: &Path) {
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_bounded_read_takes_only_a_regular_file_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        std::fs::write(p("small"), "hello").unwrap();
        std::fs::write(p("big"), "x".repeat(100)).unwrap();
        std::os::unix::fs::symlink(p("small"), p("link")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", p("zero")).unwrap();
        fifo(&p("fifo"));
        assert_eq!(
            read_bounded(&p("small"), 10).unwrap(),
            Found::Bytes(b"hello".to_vec())
        );
        assert_eq!(read_bounded(&p("none"), 10).unwrap(), Found::Missing);
        for unfit in ["big", "link", "zero", "fifo"] {
            // A FIFO with no writer would block a plain open for ever; /dev/zero never ends.
            assert!(
                matches!(read_bounded(&p(unfit), 10).unwrap(), Found::Unfit(_)),
                "{unfit}"
            );
        }
        assert_eq!(
            read_bounded(&dir.path().join("small"), 5).unwrap(),
            Found::Bytes(b"hello".to_vec())
        );
    }

    #[test]
    fn a_read_inside_a_folder_never_goes_through_a_link_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("secret"), "the server's").unwrap();
        std::fs::create_dir_all(dir.path().join("agents/1")).unwrap();
        std::fs::write(dir.path().join("agents/1/notes.md"), "mine").unwrap();
        let read = |rel: &str| read_in(dir.path(), Path::new(rel), 100).unwrap();
        assert_eq!(read("agents/1/notes.md"), Found::Bytes(b"mine".to_vec()));
        assert_eq!(read("agents/1/none.md"), Found::Missing);
        // Swapped after a listing: a folder on the way, then the file itself.
        std::fs::rename(dir.path().join("agents/1"), dir.path().join("agents/1-was")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("agents/1")).unwrap();
        assert!(matches!(read("agents/1/secret"), Found::Unfit(_)));
        std::os::unix::fs::symlink(
            elsewhere.path().join("secret"),
            dir.path().join("agents/1-was/secret"),
        )
        .unwrap();
        assert!(matches!(read("agents/1-was/secret"), Found::Unfit(_)));
        fifo(&dir.path().join("agents/1-was/fifo"));
        assert!(matches!(read("agents/1-was/fifo"), Found::Unfit(_)));
    }

    #[test]
    fn a_removal_never_goes_through_a_linked_folder() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("precious.md"), "mine").unwrap();
        std::fs::create_dir(dir.path().join("knowledge")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("knowledge/sub")).unwrap();
        assert!(remove_in(dir.path(), Path::new("knowledge/sub/precious.md")).is_err());
        assert!(elsewhere.path().join("precious.md").exists());
        // A link as the file itself: the link goes, not its target.
        std::os::unix::fs::symlink(
            elsewhere.path().join("precious.md"),
            dir.path().join("knowledge/notes.md"),
        )
        .unwrap();
        remove_in(dir.path(), Path::new("knowledge/notes.md")).unwrap();
        assert!(std::fs::symlink_metadata(dir.path().join("knowledge/notes.md")).is_err());
        assert!(elsewhere.path().join("precious.md").exists());
        // A plain file goes; a missing one is no error; a path that climbs is refused.
        std::fs::write(dir.path().join("knowledge/a.md"), "x").unwrap();
        remove_in(dir.path(), Path::new("knowledge/a.md")).unwrap();
        assert!(!dir.path().join("knowledge/a.md").exists());
        remove_in(dir.path(), Path::new("knowledge/a.md")).unwrap();
        assert!(remove_in(dir.path(), Path::new("../x")).is_err());
    }
}
