//! A project's shadow git directory, `{data-dir}/projects/{id}/git`: the server's own `config`
//! (no include, no filter, no hook), `HEAD`, `info/` and index files; the user's `objects`,
//! `refs` and `packed-refs` reached through links. Git run with it as `GIT_DIR` reads and
//! writes the user's objects and branches and never the repository's configuration, which is
//! within an agent's reach (its `git config` in its worktree writes it).

use std::path::{Path, PathBuf};

use super::RepoError;

/// What a shadow holds of its own.
fn config(sha256: bool) -> String {
    let mut c = String::from(
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tlogAllRefUpdates = false\n\
         \thooksPath = /dev/null\n\tfsmonitor = false\n\tsymlinks = true\n\tautocrlf = false\n\
         [gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n",
    );
    if sha256 {
        c.push_str("[extensions]\n\tobjectFormat = sha256\n");
    }
    c
}

/// The shadow of a repository whose git directory is `common`.
#[derive(Clone, Debug)]
pub struct Shadow {
    pub dir: PathBuf,
    pub common: PathBuf,
}

impl Shadow {
    pub fn at(dir: &Path, common: &Path) -> Self {
        Shadow {
            dir: dir.to_path_buf(),
            common: common.to_path_buf(),
        }
    }

    /// Makes (or mends) the shadow: its own files written, its links pointing at the
    /// repository. `base` is the branch its HEAD names.
    pub fn make(&self, base: &str, sha256: bool) -> Result<(), RepoError> {
        let io = |e: std::io::Error| RepoError::Io(format!("{}: {e}", self.dir.display()));
        std::fs::create_dir_all(self.dir.join("info")).map_err(io)?;
        std::fs::create_dir_all(self.dir.join("home")).map_err(io)?;
        std::fs::create_dir_all(self.dir.join("index")).map_err(io)?;
        std::fs::write(self.dir.join("config"), config(sha256)).map_err(io)?;
        std::fs::write(self.dir.join("HEAD"), format!("ref: refs/heads/{base}\n")).map_err(io)?;
        std::fs::write(self.dir.join("info/exclude"), "").map_err(io)?;
        for part in ["objects", "refs", "packed-refs"] {
            let link = self.dir.join(part);
            let target = self.common.join(part);
            match std::fs::read_link(&link) {
                Ok(t) if t == target => continue,
                Ok(_) => std::fs::remove_file(&link).map_err(io)?,
                Err(_) => {}
            }
            std::os::unix::fs::symlink(&target, &link).map_err(io)?;
        }
        Ok(())
    }

    /// Makes the shadow if it is not there (a data directory restored from a backup), and
    /// mends it if anything wrote into it: its configuration is exactly the server's, it has no
    /// attributes file, its links point at the repository. Called before every use.
    pub fn ensure(&self, base: &str) -> Result<(), RepoError> {
        let sha256 = super::link::formats(&self.common).1;
        let ours = config(sha256);
        let config_ok = matches!(
            crate::fsafe::read_bounded(&self.dir.join("config"), 64 * 1024),
            Ok(crate::fsafe::Found::Bytes(b)) if b == ours.as_bytes()
        );
        let links_ok = ["objects", "refs", "packed-refs"]
            .iter()
            .all(|p| std::fs::read_link(self.dir.join(p)).is_ok_and(|t| t == self.common.join(p)));
        let attributes = std::fs::symlink_metadata(self.dir.join("info/attributes")).is_ok();
        if config_ok && links_ok && !attributes {
            return Ok(());
        }
        if self.dir.join("config").exists() {
            tracing::warn!(shadow = %self.dir.display(), "a project's shadow git directory was changed by someone else: made again");
        }
        let _ = std::fs::remove_file(self.dir.join("info/attributes"));
        self.make(base, sha256)
    }

    /// The server's index for one worktree (its stat cache: a diff rereads only what changed).
    pub fn index_for(&self, name: &str) -> PathBuf {
        self.dir.join("index").join(name)
    }
}
