//! The work cycle in git: each agent folder is a git repository, and every validated work-state
//! transition is one commit of the folder as it is (its `_state.md` with it).
//!
//! We run the `git` program (it is on every machine this runs on, the agent uses the same one
//! in the same folder, and no second implementation of git's index and locking is built into
//! the server). The folder is the agent's, and so is its `.git/config`, so the server commits
//! with plumbing that runs nothing from it: blobs are hashed without filters
//! (`hash-object --no-filters`), a temporary index is built from them, and `commit-tree` never
//! runs hooks; the system and global configuration are not read, hooks and fsmonitor are off,
//! and every command is bounded in time. `HEAD` moves by compare-and-swap, so a commit of the
//! agent's own at the same moment is never lost.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

mod head;
#[cfg(test)]
mod tests;

pub use head::FastHead;

/// The longest one git command may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(20);
/// Files larger than this are not committed by the server (the agent may commit them itself).
const MAX_COMMITTED_FILE: u64 = 1024 * 1024;
/// The most files one server commit holds.
const MAX_COMMITTED_FILES: usize = 2000;
/// The trailer that marks the server's commits (the agent's own have none).
pub const SERVER_TRAILER: &str = "Soulgrid-Commit: server";

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git could not be run: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("git {0} took longer than {GIT_TIMEOUT:?}")]
    Timeout(String),
    #[error("git {what} failed: {stderr}")]
    Failed { what: String, stderr: String },
    #[error("{0}")]
    Folder(String),
}

/// A commit as the log shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub sha: String,
    pub author: String,
    pub time_ms: i64,
    pub subject: String,
    /// Made by the server (it carries [`SERVER_TRAILER`]).
    pub by_server: bool,
}

/// One agent folder's repository.
pub struct Repo {
    dir: PathBuf,
}

impl Repo {
    pub fn new(dir: &Path) -> Self {
        Repo {
            dir: dir.to_path_buf(),
        }
    }

    fn command(&self) -> Command {
        let mut c = Command::new("git");
        c.current_dir(&self.dir)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.untrackedCache=false",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "gc.auto=0",
                "-c",
                "maintenance.auto=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// Runs git with `args` (and `input` on stdin); its stdout.
    async fn run(
        &self,
        args: &[&str],
        envs: &[(&str, &str)],
        input: Option<&[u8]>,
    ) -> Result<String, GitError> {
        let mut c = self.command();
        c.args(args).envs(envs.iter().copied());
        if input.is_some() {
            c.stdin(Stdio::piped());
        }
        let what = args.first().copied().unwrap_or("").to_string();
        let run = async {
            let mut child = c.spawn()?;
            if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
                stdin.write_all(input).await?;
                drop(stdin);
            }
            child.wait_with_output().await
        };
        let out = tokio::time::timeout(GIT_TIMEOUT, run)
            .await
            .map_err(|_| GitError::Timeout(what.clone()))??;
        if !out.status.success() {
            return Err(GitError::Failed {
                what,
                stderr: String::from_utf8_lossy(&out.stderr)
                    .trim()
                    .chars()
                    .take(300)
                    .collect(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Makes the folder a repository if it is not one (`.git` must be a real folder), and one
    /// whose commits leave out the server's half-written files (below).
    pub async fn ensure(&self) -> Result<(), GitError> {
        match std::fs::symlink_metadata(self.dir.join(".git")) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(GitError::Folder(format!(
                    "{}/.git is not a folder",
                    self.dir.display()
                )))
            }
            Err(_) => self.run(&["init", "-q"], &[], None).await.map(drop)?,
        }
        self.exclude_half_written();
        Ok(())
    }

    /// The server replaces a file in the folder by writing `.<name>.<id>.tmp` and renaming it
    /// (`agent_fs::write_file`). An agent's own `git add -A` that lists such a file and then
    /// finds it renamed fails ("unable to stat"): git is told to leave them out.
    /// The folder is the agent's: the file is read and replaced without following a link.
    fn exclude_half_written(&self) {
        use super::agent_fs::{read_regular, write_file, HALF_WRITTEN};
        const EXCLUDE: &str = ".git/info/exclude";
        let had = match read_regular(&self.dir.join(EXCLUDE), 64 * 1024) {
            Ok(had) => String::from_utf8_lossy(&had.unwrap_or_default()).into_owned(),
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

    /// The commit `HEAD` names, if there is one.
    pub async fn head(&self) -> Option<String> {
        self.run(&["rev-parse", "-q", "--verify", "HEAD^{commit}"], &[], None)
            .await
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// The regular files of the folder, outside `.git`, small enough to commit.
    fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(self.dir.clone(), String::new())];
        while let Some((folder, prefix)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let rel = format!("{prefix}{name}");
                if kind.is_dir() && name != ".git" {
                    stack.push((entry.path(), format!("{rel}/")));
                } else if kind.is_file()
                    && entry
                        .metadata()
                        .is_ok_and(|m| m.len() <= MAX_COMMITTED_FILE)
                    && !rel.contains('\n')
                    // Being written (`agent_fs::HALF_WRITTEN`).
                    && !name.ends_with(".tmp")
                {
                    out.push(rel);
                }
            }
        }
        out.sort();
        out.truncate(MAX_COMMITTED_FILES);
        out
    }

    /// One commit of the folder as it is now, by `author`, with `subject`; `HEAD` moves to it
    /// unless someone moved it meanwhile (then it is tried once more on top). Returns the
    /// commit and the files it changed.
    pub async fn commit_all(
        &self,
        subject: &str,
        author: &str,
        email: &str,
    ) -> Result<(String, Vec<String>), GitError> {
        self.ensure().await?;
        let mut last = None;
        for _ in 0..2 {
            match self.try_commit(subject, author, email).await {
                Ok(done) => return Ok(done),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("tried"))
    }

    async fn try_commit(
        &self,
        subject: &str,
        author: &str,
        email: &str,
    ) -> Result<(String, Vec<String>), GitError> {
        let parent = self.head().await;
        let files = self.files();
        let paths: String = files.iter().map(|f| format!("{f}\n")).collect();
        let shas = self
            .run(
                &["hash-object", "-w", "--no-filters", "--stdin-paths"],
                &[],
                Some(paths.as_bytes()),
            )
            .await?;
        let index_info: String = files
            .iter()
            .zip(shas.lines())
            .map(|(path, sha)| format!("100644 {sha}\t{path}\0"))
            .collect();
        let index = self
            .dir
            .join(".git")
            .join(format!("soulgrid-index-{}", uuid::Uuid::new_v4().simple()));
        let index_env = index.to_string_lossy().into_owned();
        let env = [("GIT_INDEX_FILE", index_env.as_str())];
        let tree = async {
            self.run(
                &["update-index", "--add", "-z", "--index-info"],
                &env,
                Some(index_info.as_bytes()),
            )
            .await?;
            self.run(&["write-tree"], &env, None).await
        }
        .await;
        let _ = std::fs::remove_file(&index);
        let tree = tree?.trim().to_string();
        let message = format!("{subject}\n\n{SERVER_TRAILER}\n");
        let ident = [
            ("GIT_AUTHOR_NAME", author),
            ("GIT_AUTHOR_EMAIL", email),
            ("GIT_COMMITTER_NAME", "Soulgrid"),
            ("GIT_COMMITTER_EMAIL", "soulgrid@localhost"),
        ];
        let mut args = vec!["commit-tree", tree.as_str()];
        if let Some(p) = &parent {
            args.extend(["-p", p.as_str()]);
        }
        let commit = self
            .run(&args, &ident, Some(message.as_bytes()))
            .await?
            .trim()
            .to_string();
        // Compare-and-swap: only from the parent we built on ("" when there was none).
        let old = parent.clone().unwrap_or_default();
        self.run(&["update-ref", "HEAD", &commit, &old], &[], None)
            .await?;
        let changed = self.changed_by(&commit).await.unwrap_or_default();
        Ok((commit, changed))
    }

    /// The files `commit` changed from its parent (all of them for a first commit).
    pub async fn changed_by(&self, commit: &str) -> Result<Vec<String>, GitError> {
        let out = self
            .run(
                &[
                    "diff-tree",
                    "--no-commit-id",
                    "--name-only",
                    "-r",
                    "--root",
                    "--no-renames",
                    commit,
                ],
                &[],
                None,
            )
            .await?;
        Ok(out.lines().map(str::to_owned).collect())
    }

    /// The commits after `since` up to `HEAD`, oldest first (at most `most`).
    pub async fn log_since(
        &self,
        since: Option<&str>,
        most: usize,
    ) -> Result<Vec<LogEntry>, GitError> {
        let Some(_) = self.head().await else {
            return Ok(Vec::new());
        };
        let range = match since {
            Some(s) => format!("{s}..HEAD"),
            None => "HEAD".to_string(),
        };
        let max = format!("--max-count={most}");
        let out = self
            .run(
                &[
                    "log",
                    "--no-color",
                    &max,
                    "--format=%H%x1f%an%x1f%ct%x1f%s%x1f%b%x1e",
                    &range,
                ],
                &[],
                None,
            )
            .await?;
        let mut entries: Vec<LogEntry> = out
            .split('\x1e')
            .filter_map(|record| {
                let mut f = record.trim_start_matches('\n').split('\x1f');
                let sha = f.next()?.trim().to_string();
                let author = f.next()?.to_string();
                let time: i64 = f.next()?.trim().parse().ok()?;
                let subject = f.next()?.to_string();
                let body = f.next().unwrap_or("");
                (!sha.is_empty()).then(|| LogEntry {
                    sha,
                    author,
                    time_ms: time * 1000,
                    subject,
                    by_server: body.lines().any(|l| l.trim() == SERVER_TRAILER),
                })
            })
            .collect();
        entries.reverse();
        Ok(entries)
    }
}
