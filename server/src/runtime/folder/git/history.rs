//! The server's own history of an agent's folder: a bare repository the server owns
//! (`{data_dir}/history/agent-{seat}.git`), with the folder as its work tree only in name. The
//! server reads the folder itself ([`Snapshot`]: no link followed, no FIFO waited on, every
//! file bounded) and hands git the bytes through `git fast-import`; git runs with its current
//! directory and `GIT_DIR` in the server's repository, no system or global configuration, no
//! hooks. No git process the server runs reads anything from a folder an agent can write, and
//! no server write goes there.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use tokio::time::Instant;

use super::{GitError, SERVER_TRAILER};
use crate::fsafe::{read_in, Found};

/// Files larger than this are not committed by the server (the agent may commit them itself).
pub const MAX_COMMITTED_FILE: usize = 1024 * 1024;
/// The most files one server commit holds.
pub const MAX_COMMITTED_FILES: usize = 2000;
/// The most bytes one server commit holds.
pub const MAX_COMMITTED_BYTES: usize = 64 * 1024 * 1024;
/// The branch of the server's history.
const BRANCH: &str = "refs/heads/main";

/// The folder's files as the server read them for one commit: `(path, bytes)`, in path order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: Vec<(String, Vec<u8>)>,
    /// What was left out, and why (said in the log).
    pub left_out: Vec<(String, String)>,
}

impl Snapshot {
    /// Reads the regular files of `folder` (outside its `.git`, none being written), each
    /// through [`read_in`], within the bounds above. Blocking: call it off the async threads.
    pub fn read(folder: &Path) -> Snapshot {
        let mut found = Vec::new();
        let mut stack = vec![(folder.to_path_buf(), String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let rel = format!("{prefix}{name}");
                if kind.is_dir() && !(prefix.is_empty() && name == ".git") {
                    stack.push((entry.path(), format!("{rel}/")));
                } else if kind.is_file()
                    && !rel.contains('\n')
                    // Being written (`agent_fs::HALF_WRITTEN`).
                    && !name.ends_with(".tmp")
                {
                    found.push(rel);
                }
            }
        }
        found.sort();
        let mut snap = Snapshot::default();
        let mut total = 0usize;
        for rel in found {
            if snap.files.len() >= MAX_COMMITTED_FILES {
                snap.left_out
                    .push((rel, format!("past {MAX_COMMITTED_FILES} files")));
                continue;
            }
            match read_in(folder, Path::new(&rel), MAX_COMMITTED_FILE) {
                Ok(Found::Bytes(b)) if total + b.len() <= MAX_COMMITTED_BYTES => {
                    total += b.len();
                    snap.files.push((rel, b));
                }
                Ok(Found::Bytes(_)) => snap
                    .left_out
                    .push((rel, format!("past {MAX_COMMITTED_BYTES} bytes in all"))),
                Ok(Found::Missing) => {}
                Ok(Found::Unfit(why)) => snap.left_out.push((rel, why)),
                Err(e) => snap.left_out.push((rel, e.to_string())),
            }
        }
        snap
    }
}

/// The server's repository for one agent folder.
#[derive(Clone, Debug)]
pub struct History {
    git_dir: PathBuf,
}

/// `path` as fast-import reads a quoted path: C-style, every byte that needs it escaped.
fn quoted(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\{:03o}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl History {
    /// The history of the folder of `seat`, in `data_dir`.
    pub fn new(data_dir: &Path, seat: app::domain::Seat) -> Self {
        History {
            git_dir: data_dir.join("history").join(format!("agent-{seat}.git")),
        }
    }

    #[cfg(test)]
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    fn command(&self) -> Command {
        let mut c = Command::new("git");
        c.current_dir(&self.git_dir)
            .arg("--git-dir")
            .arg(&self.git_dir)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "gc.auto=0",
                "-c",
                "maintenance.auto=false",
            ])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("HOME", &self.git_dir)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_CONFIG")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .env_remove("GIT_CONFIG_COUNT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// Runs git with `args` (and `input` on stdin) before `deadline`; its stdout.
    async fn run(
        &self,
        args: &[&str],
        input: Option<Vec<u8>>,
        deadline: Instant,
    ) -> Result<String, GitError> {
        let mut c = self.command();
        c.args(args);
        if input.is_some() {
            c.stdin(Stdio::piped());
        }
        let what = args.first().copied().unwrap_or("").to_string();
        let run = async {
            let mut child = c.spawn()?;
            let feed = async {
                if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
                    stdin.write_all(&input).await?;
                }
                Ok::<(), std::io::Error>(())
            };
            feed.await?;
            child.wait_with_output().await
        };
        let out = tokio::time::timeout_at(deadline, run)
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

    /// Makes the repository if it is not there.
    async fn ensure(&self, deadline: Instant) -> Result<(), GitError> {
        if self.git_dir.join("HEAD").is_file() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.git_dir)?;
        self.run(
            &["init", "-q", "--bare", "--initial-branch=main"],
            None,
            deadline,
        )
        .await
        .map(drop)
    }

    /// The history's last commit, if it has one.
    pub async fn head(&self, deadline: Instant) -> Option<String> {
        self.run(
            &["rev-parse", "-q", "--verify", "refs/heads/main^{commit}"],
            None,
            deadline,
        )
        .await
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
    }

    /// One commit of `snapshot` by `author` with `subject`, on top of the history's last, all
    /// before `deadline`. Returns the commit and the files it changed.
    pub async fn commit(
        &self,
        snapshot: &Snapshot,
        subject: &str,
        (author, email): (&str, &str),
        (now, deadline): (&crate::clock::Clock, Instant),
    ) -> Result<(String, Vec<String>), GitError> {
        self.ensure(deadline).await?;
        let parent = self.head(deadline).await;
        let now = now.now_ms() / 1000;
        let mut stream: Vec<u8> = Vec::new();
        for (i, (_, bytes)) in snapshot.files.iter().enumerate() {
            stream.extend(format!("blob\nmark :{}\ndata {}\n", i + 1, bytes.len()).bytes());
            stream.extend(bytes);
            stream.push(b'\n');
        }
        let clean = |s: &str| {
            let s = s.replace(['<', '>', '\n'], " ");
            match s.trim().is_empty() {
                true => "Soulgrid".to_string(),
                false => s.trim().to_string(),
            }
        };
        let message = format!("{subject}\n\n{SERVER_TRAILER}\n");
        let mark = snapshot.files.len() + 1;
        stream.extend(
            format!(
                "commit {BRANCH}\nmark :{mark}\nauthor {} <{}> {now} +0000\n\
                 committer Soulgrid <soulgrid@localhost> {now} +0000\ndata {}\n{message}\n",
                clean(author),
                clean(email),
                message.len()
            )
            .bytes(),
        );
        if let Some(p) = &parent {
            stream.extend(format!("from {p}\n").bytes());
        }
        stream.extend(b"deleteall\n");
        for (i, (path, _)) in snapshot.files.iter().enumerate() {
            stream.extend(format!("M 100644 :{} {}\n", i + 1, quoted(path)).bytes());
        }
        stream.extend(format!("\nget-mark :{mark}\ndone\n").bytes());
        let out = self
            .run(
                &["fast-import", "--quiet", "--done"],
                Some(stream),
                deadline,
            )
            .await?;
        let commit = out.trim().to_string();
        if commit.len() < 40 {
            return Err(GitError::Failed {
                what: "fast-import".into(),
                stderr: format!("no commit named: {out:.200}"),
            });
        }
        let changed = self
            .run(
                &[
                    "diff-tree",
                    "--no-commit-id",
                    "--name-only",
                    "-r",
                    "-z",
                    "--root",
                    "--no-renames",
                    &commit,
                ],
                None,
                deadline,
            )
            .await
            .map(|o| {
                o.split('\0')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Ok((commit, changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_as_fast_import_reads_them() {
        assert_eq!(quoted("a b/c.md"), "\"a b/c.md\"");
        assert_eq!(quoted("\"x\\y"), "\"\\\"x\\\\y\"");
        assert_eq!(quoted("tab\there"), "\"tab\\011here\"");
        assert_eq!(quoted("é.md"), "\"é.md\"");
    }
}
