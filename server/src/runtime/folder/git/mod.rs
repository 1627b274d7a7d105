//! The work cycle in git, in two repositories per agent folder.
//!
//! - **The server's history** ([`History`]): every validated work-state transition is one
//!   commit of the folder as it is (its `_state.md` with it), kept in a bare repository the
//!   server owns (`{data_dir}/history/agent-{seat}.git`). The server reads the folder itself,
//!   without following links or waiting on FIFOs, and gives git only bytes; git runs in the
//!   server's repository with no system, global or agent configuration and no hooks.
//! - **The agent's own repository** (`.git` in its folder, [`Repo`]): the agent commits there
//!   itself (a subject `@Name: [STATE:x] …` is a state report). The server makes it (without
//!   running git) and reads its commits with [`loose::AgentGit`], which runs nothing and
//!   reads every file bounded and without following links.
//!
//! Why two: the agent's `.git/config` is the agent's. Any git the server ran in that folder
//! read it, and with it `include` (a FIFO made every call wait out its timeout inside the read
//! loop), `log.showSignature` with `gpg.program` (the server's `git log` ran the agent's
//! script outside its containment), and links under `.git` (the server's commit appended to
//! whatever `.git/logs/HEAD` pointed at). `-c` cannot turn `include` off. Reading the agent's
//! commits needs no git at all; writing the server's needs git only in a folder no agent
//! writes.

use std::path::{Path, PathBuf};

mod head;
mod history;
pub mod loose;
#[cfg(test)]
mod tests;

pub use head::FastHead;
pub use history::{History, Snapshot};

/// The trailer that marks the server's commits.
pub const SERVER_TRAILER: &str = "Soulgrid-Commit: server";

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git could not be run: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("git {0} did not finish before the commit's deadline")]
    Timeout(String),
    #[error("git {what} failed: {stderr}")]
    Failed { what: String, stderr: String },
    #[error("{0}")]
    Folder(String),
}

/// The agent's own repository, by its folder.
pub struct Repo {
    dir: PathBuf,
}

/// What a new repository's `.git` holds: enough for git to know it as one.
const NEW_REPO: &[(&str, &str)] = &[
    ("HEAD", "ref: refs/heads/main\n"),
    (
        "config",
        // No automatic gc: the server reads loose objects only (`loose.rs`).
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
         [gc]\n\tauto = 0\n",
    ),
];
const NEW_REPO_FOLDERS: &[&str] = &["objects/info", "objects/pack", "refs/heads", "refs/tags"];

impl Repo {
    pub fn new(dir: &Path) -> Self {
        Repo {
            dir: dir.to_path_buf(),
        }
    }

    /// Makes the folder a repository if it is not one (`.git` must be a real folder), without
    /// running git, and one whose commits leave out the server's half-written files.
    pub async fn ensure(&self) -> Result<(), GitError> {
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || Repo::new(&dir).ensure_now())
            .await
            .map_err(|e| GitError::Folder(e.to_string()))?
    }

    fn ensure_now(&self) -> Result<(), GitError> {
        use crate::runtime::folder::agent_fs::write_file;
        match std::fs::symlink_metadata(self.dir.join(".git")) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(GitError::Folder(format!(
                    "{}/.git is not a folder",
                    self.dir.display()
                )))
            }
            Err(_) => {
                for rel in NEW_REPO_FOLDERS {
                    crate::runtime::folder::agent_fs::real_folder(
                        &self.dir,
                        &Path::new(".git").join(rel),
                    )?;
                }
                for (rel, text) in NEW_REPO {
                    write_file(&self.dir, &format!(".git/{rel}"), text.as_bytes(), 0o644)?;
                }
            }
        }
        self.exclude_half_written();
        Ok(())
    }

    /// The server replaces a file in the folder by writing `.<name>.<id>.tmp` and renaming it
    /// (`agent_fs::write_file`). An agent's own `git add -A` that lists such a file and then
    /// finds it renamed fails ("unable to stat"): git is told to leave them out.
    /// The folder is the agent's: the file is read and replaced without following a link.
    fn exclude_half_written(&self) {
        use crate::fsafe::{read_in, Found};
        use crate::runtime::folder::agent_fs::{write_file, HALF_WRITTEN};
        const EXCLUDE: &str = ".git/info/exclude";
        let had = match read_in(&self.dir, Path::new(EXCLUDE), 64 * 1024) {
            Ok(Found::Bytes(had)) => String::from_utf8_lossy(&had).into_owned(),
            Ok(_) => String::new(),
            Err(e) => {
                tracing::warn!(folder = %self.dir.display(), error = %e, "git's exclude file could not be read");
                return;
            }
        };
        if had.lines().any(|l| l.trim() == HALF_WRITTEN) {
            return;
        }
        let mut text = had;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(HALF_WRITTEN);
        text.push('\n');
        if let Err(e) = write_file(&self.dir, EXCLUDE, text.as_bytes(), 0o644) {
            tracing::warn!(folder = %self.dir.display(), error = %e, "git's exclude file could not be written");
        }
    }

    /// Runs `f` on the agent's repository off the async threads.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&loose::AgentGit) -> Result<T, GitError> + Send + 'static,
    ) -> Result<T, GitError> {
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || f(&loose::AgentGit::new(&dir)))
            .await
            .map_err(|e| GitError::Folder(e.to_string()))?
    }

    /// The commit `HEAD` names, if there is one (and it can be read).
    pub async fn head(&self) -> Option<String> {
        self.read(|g| g.head()).await.ok().flatten()
    }

    /// The commits after `since` up to `HEAD`, oldest first (at most `most`).
    pub async fn log_since(
        &self,
        since: Option<&str>,
        most: usize,
    ) -> Result<Vec<loose::Commit>, GitError> {
        let since = since.map(str::to_owned);
        self.read(move |g| g.log_since(since.as_deref(), most))
            .await
    }

    /// The files `commit` changed from its parent (all of them for a first commit).
    pub async fn changed_by(&self, commit: &str) -> Result<Vec<String>, GitError> {
        let commit = commit.to_string();
        self.read(move |g| g.changed_by(&commit)).await
    }
}
