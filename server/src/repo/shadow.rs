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

    /// Makes the shadow if it is not there (a data directory restored from a backup).
    pub fn ensure(&self, base: &str) -> Result<(), RepoError> {
        match self.dir.join("config").is_file() {
            true => Ok(()),
            false => self.make(base, super::link::formats(&self.common).1),
        }
    }

    /// The server's index for one worktree (its stat cache: a diff rereads only what changed).
    pub fn index_for(&self, name: &str) -> PathBuf {
        self.dir.join("index").join(name)
    }
}
