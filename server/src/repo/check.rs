//! The project's check (`cargo test`), run before a merge in the agent's worktree: the human's
//! own command, through `sh -c`, in its own process group (inside the agents' sandbox: it runs
//! the agent's code), killed with everything it started at its time limit. Its output (stdout and stderr as they come, the last part kept) is handed
//! out as it grows, so the console can show it streaming.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use super::git::kill_group;
use super::RepoError;

/// The output kept: its last this many bytes.
pub const KEPT: usize = 16 * 1024;

/// What a check is given of the server's environment.
const KEPT_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "TERM",
    "TMPDIR",
    "TZ",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "NODE_PATH",
    "NPM_CONFIG_PREFIX",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
];

/// How a check ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub passed: bool,
    /// Its exit status (none when it was killed).
    pub exit: Option<i32>,
    pub output: String,
    pub timed_out: bool,
}

/// Runs `command` in `dir` for at most `limit`; `progress` is given the output so far about
/// once a second while it grows.
///
/// The check runs the agent's code (its build scripts, its tests): inside `sandbox`, like the
/// agent, with its worktree writable and nothing of `data_dir`, no network.
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub async fn run(
    command: &str,
    (dir, data_dir): (&Path, &Path),
    sandbox: &crate::sandbox::Sandbox,
    limit: Duration,
    progress: impl Fn(String) + Send + 'static,
) -> Result<Checked, RepoError> {
    use crate::sandbox::{Bind, Places};
    let places = Places {
        data_dir: data_dir.to_path_buf(),
        binds: vec![Bind::Rw(dir.to_path_buf())],
        egress: None,
    };
    let args = ["-c".into(), command.into()];
    let mut c = Command::from(sandbox.command("sh".as_ref(), &args, &places));
    c.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // The human's command, with what a build or a test runner needs of the environment and
    // nothing else of the server's (its token, its settings).
    c.env_clear();
    for (k, v) in std::env::vars_os() {
        if KEPT_ENV.contains(&&*k.to_string_lossy()) {
            c.env(k, v);
        }
    }
    #[cfg(unix)]
    c.process_group(0);
    let mut child = c.spawn().map_err(RepoError::Spawn)?;
    let pgid = child.id();
    let tail = Arc::new(Mutex::new(String::new()));
    let pump = |mut r: Box<dyn tokio::io::AsyncRead + Unpin + Send>, tail: Arc<Mutex<String>>| async move {
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
            t.push_str(&String::from_utf8_lossy(&buf[..n]));
            if t.len() > 2 * KEPT {
                let cut = t.len() - KEPT;
                let cut = (cut..t.len())
                    .find(|i| t.is_char_boundary(*i))
                    .unwrap_or(t.len());
                t.drain(..cut);
            }
        }
    };
    let out = tokio::spawn(pump(
        Box::new(child.stdout.take().expect("piped")),
        tail.clone(),
    ));
    let err = tokio::spawn(pump(
        Box::new(child.stderr.take().expect("piped")),
        tail.clone(),
    ));
    let shown = tail.clone();
    let ticker = tokio::spawn(async move {
        let mut last = String::new();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            let now = shown.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if now != last {
                progress(last_part(&now));
                last = now;
            }
        }
    });
    let waited = tokio::time::timeout(limit, child.wait()).await;
    ticker.abort();
    let (exit, timed_out) = match waited {
        Ok(Ok(status)) => {
            // What it left running in its group stops with it.
            kill_group(pgid);
            (status.code(), false)
        }
        Ok(Err(e)) => return Err(RepoError::Spawn(e)),
        Err(_) => {
            kill_group(pgid);
            let _ = child.kill().await;
            (None, true)
        }
    };
    // Whatever it printed last (a killed group's pipes close with it).
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = out.await;
        let _ = err.await;
    })
    .await;
    let mut output = last_part(&tail.lock().unwrap_or_else(|p| p.into_inner()));
    if timed_out {
        output.push_str(&format!(
            "\n[Soulgrid: the check did not finish within {} s and was stopped]\n",
            limit.as_secs()
        ));
    }
    Ok(Checked {
        passed: exit == Some(0),
        exit,
        output,
        timed_out,
    })
}

/// The last [`KEPT`] bytes of `s`, cut at a character.
fn last_part(s: &str) -> String {
    let cut = s.len().saturating_sub(KEPT);
    let cut = (cut..=s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    s[cut..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_quick_check_keeps_its_output_and_exit() {
        let dir = tempfile::tempdir().unwrap();
        let off = crate::sandbox::Sandbox::off("a test");
        let c = run(
            "echo out; echo err >&2; exit 4",
            (dir.path(), dir.path()),
            &off,
            Duration::from_secs(10),
            |_| {},
        )
        .await
        .unwrap();
        assert_eq!((c.passed, c.exit, c.timed_out), (false, Some(4), false));
        assert!(
            c.output.contains("out\n") && c.output.contains("err\n"),
            "{:?}",
            c.output
        );
    }

    /// The check runs the agent's code: in the sandbox it writes its worktree and reads nothing
    /// of the data directory (it read the store and the login before, as the server).
    #[tokio::test]
    async fn a_check_runs_in_the_agents_sandbox() {
        let sandbox = crate::sandbox::Sandbox::detect(crate::sandbox::SandboxMode::Auto).unwrap();
        if !sandbox.is_on() {
            eprintln!("skipped: no sandbox here ({})", sandbox.said());
            return;
        }
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        let tree = data.join("worktrees/lyra/web");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(data.join("login-token"), "sgl_secret").unwrap();
        let c = run(
            "cat ../../../login-token || echo hidden; echo built > made.txt",
            (&tree, &data),
            &sandbox,
            Duration::from_secs(20),
            |_| {},
        )
        .await
        .unwrap();
        assert!(c.passed, "{}", c.output);
        assert!(
            c.output.contains("hidden") && !c.output.contains("sgl_secret"),
            "{}",
            c.output
        );
        assert_eq!(
            std::fs::read_to_string(tree.join("made.txt")).unwrap(),
            "built\n"
        );
    }
}
