//! Git as the server runs it on a linked project: always through the project's shadow git
//! directory (`shadow.rs`), which holds the server's own configuration, HEAD and index and
//! reaches the user's objects and refs through links. Nothing of the repository's own
//! configuration is read (an agent's `git config` in its worktree writes there), and the
//! environment leaves out the system's and the user's: no hook, filter, fsmonitor, textconv,
//! external diff, signing program or pager can run. Every call has a time limit and is killed
//! with everything it started when it passes it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use super::RepoError;

/// The most a git call may print before it is stopped (a numstat of a very large change).
const MAX_OUTPUT: u64 = 64 * 1024 * 1024;

/// What every call is given on its command line, after the shadow's configuration: the same
/// again, so that nothing depends on one file alone.
const HARDENED: &[&str] = &[
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "core.sshCommand=false",
    "-c",
    "core.pager=cat",
    // Paths in a patch's headers as they are (a diff page finds each file's part by them).
    "-c",
    "core.quotePath=false",
    "-c",
    "core.editor=false",
    // A file larger than this is named in a diff, not read into it.
    "-c",
    "core.bigFileThreshold=1m",
    "-c",
    "diff.external=",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "tag.gpgSign=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
    "-c",
    "submodule.recurse=false",
    "-c",
    "protocol.allow=never",
    // A repository nested in a worktree (a submodule, a gitlink an agent committed) is never
    // looked into: git would run `git status` in it, with its own configuration (these `-c`
    // settings are handed down to that git, the rest of its configuration is the agent's).
    "-c",
    "diff.ignoreSubmodules=all",
];

/// The empty tree of each object format: attributes are read from it (`attr.tree`), never from
/// a worktree's `.gitattributes`, so no filter a worktree names runs, in it or in a repository
/// nested in it (`git add` still asks a committed gitlink's repository for its status).
const EMPTY_TREE_SHA1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const EMPTY_TREE_SHA256: &str = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";

/// Characters of git's stderr kept (the start of it).
pub const STDERR_KEPT: usize = 600;

/// One way of running git on a project: its shadow, and the work tree and index a call uses.
#[derive(Clone, Debug)]
pub struct Git {
    shadow: PathBuf,
    work_tree: Option<PathBuf>,
    index: Option<PathBuf>,
    limit: Duration,
    /// `attr.tree`: the empty tree of the shadow's object format.
    empty_tree: &'static str,
    /// Environment for the commits the server makes (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`).
    env: Vec<(String, String)>,
}

impl Git {
    pub fn new(shadow: &Path, limit: Duration) -> Self {
        // The shadow's own configuration (the server's) says its object format.
        let sha256 = matches!(
            crate::fsafe::read_bounded(&shadow.join("config"), 64 * 1024),
            Ok(crate::fsafe::Found::Bytes(b)) if String::from_utf8_lossy(&b).contains("objectFormat = sha256")
        );
        Git {
            shadow: shadow.to_path_buf(),
            work_tree: None,
            index: None,
            limit,
            empty_tree: if sha256 {
                EMPTY_TREE_SHA256
            } else {
                EMPTY_TREE_SHA1
            },
            env: Vec::new(),
        }
    }

    /// The same, making commits as `name <email>`.
    pub fn by(&self, name: &str, email: &str) -> Self {
        let mut git = self.clone();
        for who in ["AUTHOR", "COMMITTER"] {
            git.env.push((format!("GIT_{who}_NAME"), name.into()));
            git.env.push((format!("GIT_{who}_EMAIL"), email.into()));
        }
        git
    }

    /// The same, its commits' author `name <email>` at `date` (git's raw form), as a commit
    /// replayed keeps its author.
    pub fn authored(&self, name: &str, email: &str, date: &str) -> Self {
        let mut git = self.clone();
        git.env.push(("GIT_AUTHOR_NAME".into(), name.into()));
        git.env.push(("GIT_AUTHOR_EMAIL".into(), email.into()));
        git.env.push(("GIT_AUTHOR_DATE".into(), date.into()));
        git
    }

    /// The same, with the time limit `limit` (a checkout of a large tree).
    pub fn limited(&self, limit: Duration) -> Self {
        Git {
            limit,
            ..self.clone()
        }
    }

    /// The work tree it runs on, if any.
    pub fn work_tree(&self) -> Option<&Path> {
        self.work_tree.as_deref()
    }

    /// The same, on `work_tree` with the index `index`.
    pub fn on(&self, work_tree: &Path, index: &Path) -> Self {
        Git {
            work_tree: Some(work_tree.to_path_buf()),
            index: Some(index.to_path_buf()),
            ..self.clone()
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::from(self.std_command(args));
        c.kill_on_drop(true);
        c
    }

    /// Runs git with `args` on this thread (for the team export, which runs on a thread of its
    /// own, also from the command line), stopped with its group at the time limit; its stdout
    /// when it succeeds.
    pub fn run_blocking(&self, args: &[&str]) -> Result<Vec<u8>, RepoError> {
        use std::io::Read as _;
        let what = subcommand(args);
        let mut child = self.std_command(args).spawn().map_err(RepoError::Spawn)?;
        // Its output read beside the wait (a full pipe would stop it), both bounded.
        let read = |pipe: Option<Box<dyn std::io::Read + Send>>, most: u64| {
            std::thread::spawn(move || {
                let mut out = Vec::new();
                if let Some(p) = pipe {
                    let _ = p.take(most).read_to_end(&mut out);
                }
                out
            })
        };
        let stdout = read(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
            MAX_OUTPUT,
        );
        let stderr = read(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
            64 * 1024,
        );
        let deadline = std::time::Instant::now() + self.limit;
        let status = loop {
            match child.try_wait().map_err(RepoError::Spawn)? {
                Some(status) => break status,
                None if std::time::Instant::now() >= deadline => {
                    kill_group(Some(child.id()));
                    let _ = child.wait();
                    return Err(RepoError::Timeout {
                        what,
                        after: self.limit,
                    });
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let out = std::process::Output {
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        };
        match out.status.success() {
            true => Ok(out.stdout),
            false => Err(RepoError::Git {
                what: subcommand(args),
                stderr: String::from_utf8_lossy(&out.stderr)
                    .trim()
                    .chars()
                    .take(STDERR_KEPT)
                    .collect(),
            }),
        }
    }

    fn std_command(&self, args: &[&str]) -> std::process::Command {
        #[cfg(unix)]
        use std::os::unix::process::CommandExt as _;
        let mut c = std::process::Command::new(super::program::program());
        let home = self.shadow.join("home");
        c.env_clear()
            .env("PATH", super::program::search_path())
            .env("LC_ALL", "C")
            .env("GIT_DIR", &self.shadow)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_PAGER", "cat")
            .env("GIT_EDITOR", "false")
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .current_dir(self.work_tree.as_deref().unwrap_or(&self.shadow))
            .args(HARDENED)
            .arg("-c")
            .arg(format!("attr.tree={}", self.empty_tree))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(w) = &self.work_tree {
            c.env("GIT_WORK_TREE", w);
        }
        if let Some(i) = &self.index {
            c.env("GIT_INDEX_FILE", i);
        }
        for (k, v) in &self.env {
            c.env(k, v);
        }
        #[cfg(unix)]
        c.process_group(0);
        c
    }

    /// Runs git with `args`; its stdout when it succeeds.
    pub async fn run(&self, args: &[&str]) -> Result<Vec<u8>, RepoError> {
        match self.status(args).await? {
            (true, out, _) => Ok(out),
            (false, _, err) => Err(RepoError::Git {
                what: subcommand(args),
                stderr: err,
            }),
        }
    }

    /// Runs git with `args` and gives its stdout as text, trimmed.
    pub async fn text(&self, args: &[&str]) -> Result<String, RepoError> {
        let out = self.run(args).await?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// Whether git with `args` succeeds (a question such as `rev-parse --verify`).
    pub async fn ok(&self, args: &[&str]) -> Result<bool, RepoError> {
        Ok(self.status(args).await?.0)
    }

    /// Runs git: whether it succeeded, its stdout and (the start of) its stderr.
    pub async fn status(&self, args: &[&str]) -> Result<(bool, Vec<u8>, String), RepoError> {
        let what = subcommand(args);
        let mut child = self.command(args).spawn().map_err(RepoError::Spawn)?;
        let pgid = child.id();
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let work = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let mut stdout = (&mut stdout).take(MAX_OUTPUT);
            let mut stderr = (&mut stderr).take(64 * 1024);
            let (o, e) = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
            o?;
            e?;
            let status = child.wait().await?;
            Ok::<_, std::io::Error>((status, out, err))
        };
        match tokio::time::timeout(self.limit, work).await {
            Ok(Ok((status, out, err))) => Ok((
                status.success(),
                out,
                String::from_utf8_lossy(&err)
                    .trim()
                    .chars()
                    .take(STDERR_KEPT)
                    .collect(),
            )),
            Ok(Err(e)) => Err(RepoError::Spawn(e)),
            Err(_) => {
                kill_group(pgid);
                Err(RepoError::Timeout {
                    what,
                    after: self.limit,
                })
            }
        }
    }
}

/// The git command `args` run, for a message: the first that is not an option
/// (`--literal-pathspecs add …` is `add`).
fn subcommand(args: &[&str]) -> String {
    args.iter()
        .find(|a| !a.starts_with('-'))
        .copied()
        .unwrap_or("")
        .to_string()
}

/// Stops a process group the server started (its leader's pid), with everything in it.
pub fn kill_group(pgid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pgid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: a plain syscall on a process group this server made (`process_group(0)`).
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Given by its full path, git is started with `posix_spawn` (a `vfork`): std falls back to
    /// `fork` for a bare name whose `PATH` the command sets, and a fork copies the server's
    /// page tables on every call (measured: a diff went from 85 to 260 ms p50 beside a large heap).
    #[test]
    fn git_is_started_by_its_full_path() {
        let git = Git::new(Path::new("/nonexistent"), Duration::from_secs(1));
        let c = git.std_command(&["--version"]);
        let program = Path::new(c.get_program());
        assert!(program.is_absolute(), "{program:?}");
        assert!(program.ends_with("git"), "{program:?}");
    }
}
