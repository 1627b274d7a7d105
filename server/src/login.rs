//! The human's login: one secret the browser holds (an HttpOnly cookie) and the agents never
//! get. Given with `--token` (`SOULGRID_TOKEN`), or made at the first start and kept in the
//! data directory (`login-token`, readable by its user only), where `soulgrid token` prints the
//! login link again and `soulgrid token --rotate` makes a new one: every session with the old
//! one ends, on a running server too (it looks at the file's identity before each check).

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file in the data directory that keeps a made login.
pub const TOKEN_FILE: &str = "login-token";

/// The prefix of a made login (so one seen in a log or a shell history is recognised).
pub const PREFIX: &str = "sgl_";

/// A login could not be read or kept.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("the login in {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the login in {0} is empty: remove it, or run `soulgrid token --rotate`")]
    Empty(PathBuf),
    #[error("{0} is not a plain file: the login is kept only in one")]
    NotAFile(PathBuf),
}

/// Where the human's login comes from, and its value of the moment.
#[derive(Debug)]
pub enum Login {
    /// `--token`: fixed for the server's life.
    Given(Arc<str>, CancellationToken),
    /// The data directory's file, read again whenever it was replaced.
    File { path: PathBuf, seen: Mutex<Seen> },
}

/// The login file as last read: its stamp, its login, and what ends the sessions opened with
/// it (cancelled once it is replaced).
#[derive(Debug)]
pub struct Seen {
    stamp: Stamp,
    token: Arc<str>,
    ended: CancellationToken,
}

use tokio_util::sync::CancellationToken;

/// What tells one version of the file from another without reading it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    ino: u64,
    mtime_ns: i128,
    len: u64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            ino: meta.ino(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            len: meta.len(),
        }
    }
}

impl Login {
    /// `given` (non-blank) or the data directory's login, made now if there is none.
    pub fn open(data_dir: &Path, given: Option<&str>) -> Result<Login, LoginError> {
        if let Some(t) = given.map(str::trim).filter(|t| !t.is_empty()) {
            return Ok(Login::Given(t.into(), CancellationToken::new()));
        }
        let path = data_dir.join(TOKEN_FILE);
        let (stamp, token) = match read(&path) {
            Err(LoginError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                make(&path, false)?;
                read(&path)?
            }
            other => other?,
        };
        Ok(Login::File {
            path,
            seen: Mutex::new(Seen {
                stamp,
                token,
                ended: CancellationToken::new(),
            }),
        })
    }

    /// The login of the moment: a replaced file (rotated) is read again, and the sessions
    /// opened with the old one are ended; one that cannot be read keeps the last one read
    /// (said in the log).
    pub fn current(&self) -> Arc<str> {
        self.seen(|s| s.token.clone())
    }

    /// Cancelled once the login of the moment is replaced: a stream opened with it ends.
    pub fn ended(&self) -> CancellationToken {
        self.seen(|s| s.ended.clone())
    }

    fn seen<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        let (path, seen) = match self {
            Login::Given(t, ended) => {
                let given = Seen {
                    stamp: Stamp::default(),
                    token: t.clone(),
                    ended: ended.clone(),
                };
                return f(&given);
            }
            Login::File { path, seen } => (path, seen),
        };
        let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
        match std::fs::metadata(path).map(|m| Stamp::of(&m)) {
            Ok(now) if now == seen.stamp => {}
            Ok(_) => match read(path) {
                Ok((stamp, token)) => {
                    tracing::info!("the login was rotated: sessions with the old one end");
                    seen.ended.cancel();
                    *seen = Seen {
                        stamp,
                        token,
                        ended: CancellationToken::new(),
                    };
                }
                Err(e) => tracing::warn!("{e}; the login read before stays"),
            },
            Err(e) => tracing::warn!("the login in {}: {e}", path.display()),
        }
        f(&seen)
    }
}

/// The login link for a server at `addr`.
pub fn link(addr: std::net::SocketAddr, token: &str) -> String {
    let host = match addr.ip() {
        ip if ip.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    format!("http://{host}:{}/?token={token}", addr.port())
}

/// Makes a new login in `path`: a new file (`replace`: in place of the old, atomically).
pub fn make(path: &Path, replace: bool) -> Result<String, LoginError> {
    let io = |source| LoginError::Io {
        path: path.to_owned(),
        source,
    };
    let token = crate::secret::new_token(PREFIX);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let write = |to: &Path| -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(to)?;
        f.write_all(format!("{token}\n").as_bytes())?;
        f.sync_all()
    };
    if replace {
        let tmp = dir.join(format!(".{TOKEN_FILE}.{}", uuid::Uuid::new_v4().simple()));
        let done = write(&tmp).and_then(|_| std::fs::rename(&tmp, path));
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        done.map_err(io)?;
    } else {
        write(path).map_err(io)?;
    }
    Ok(token)
}

/// The login kept in `path` and its file's stamp. Only a plain file, not a link, is read, and
/// one others may read is made the user's alone.
fn read(path: &Path) -> Result<(Stamp, Arc<str>), LoginError> {
    let io = |source| LoginError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(LoginError::NotAFile(path.to_owned()));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let token = text.trim();
    if token.is_empty() {
        return Err(LoginError::Empty(path.to_owned()));
    }
    Ok((Stamp::of(&meta), token.into()))
}

/// `soulgrid token [--rotate]`: the login link, printed for a person (and a new login first
/// with `rotate`). A login given with `--token` is the human's to change.
pub fn cli(config: &crate::config::Config, rotate: bool) -> Result<String, String> {
    if config
        .token
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
    {
        return match rotate {
            true => Err("the login is given with --token (SOULGRID_TOKEN): change it there".into()),
            false => Ok(link(
                config.addr,
                config.token.as_deref().unwrap_or("").trim(),
            )),
        };
    }
    let path = config.data_dir.join(TOKEN_FILE);
    let token = match rotate {
        true => make(&path, true).map_err(|e| e.to_string())?,
        false => Login::open(&config.data_dir, None)
            .map_err(|e| e.to_string())?
            .current()
            .to_string(),
    };
    Ok(link(config.addr, &token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_login_is_kept_for_its_user_alone_and_read_again_once_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let login = Login::open(dir.path(), None).unwrap();
        let first = login.current();
        assert!(first.starts_with(PREFIX), "{first}");
        let meta = std::fs::metadata(dir.path().join(TOKEN_FILE)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        // Opened again: the same login.
        assert_eq!(Login::open(dir.path(), None).unwrap().current(), first);
        let ended = login.ended();
        let rotated = make(&dir.path().join(TOKEN_FILE), true).unwrap();
        assert!(!ended.is_cancelled());
        assert_ne!(&*first, rotated.as_str());
        assert_eq!(&*login.current(), rotated.as_str());
        assert!(
            ended.is_cancelled(),
            "the sessions opened with the old one end"
        );
        assert!(!login.ended().is_cancelled());
    }

    #[test]
    fn a_given_login_wins_and_a_link_is_never_read_through() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            &*Login::open(dir.path(), Some(" t ")).unwrap().current(),
            "t"
        );
        assert!(!dir.path().join(TOKEN_FILE).exists());
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join(TOKEN_FILE)).unwrap();
        assert!(matches!(
            Login::open(dir.path(), None),
            Err(LoginError::NotAFile(_))
        ));
    }

    #[test]
    fn the_link_names_a_loopback_host_a_browser_can_open() {
        let t = "sgl_x";
        assert_eq!(
            link("0.0.0.0:3000".parse().unwrap(), t),
            "http://127.0.0.1:3000/?token=sgl_x"
        );
        assert_eq!(
            link("[::1]:80".parse().unwrap(), t),
            "http://[::1]:80/?token=sgl_x"
        );
    }
}
