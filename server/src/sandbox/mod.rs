//! The agents' sandbox: every agent process (the Claude CLI, or `soulgrid-sim`, and all it
//! starts) runs inside bubblewrap (`bwrap`, Debian's `bubblewrap`), which the server starts it
//! with. Inside, the whole file system is read-only; the data directory is an empty folder but
//! for what the agent may write (its own folder, its temp and runtime folders, its worktrees and
//! their repositories' git folders, the CLI's own session files); `/tmp` is its own; it has no
//! network but a relay to the server's egress proxy ([`egress`]), which reaches only the model's
//! API and the hosts the human allowed (`--agent-net-allow`), never the console; its processes
//! are in a PID namespace of their own, so none outlives it; it holds no capability and cannot
//! make a user namespace to win one back.
//!
//! Why bubblewrap itself and not `@anthropic-ai/sandbox-runtime` (which wraps it): measured
//! here, `bwrap` starts a process in ~5 ms where `srt` first starts Node and its proxies
//! (docs/SECURITY.md, `make bench` B1), and the server has one egress proxy of its own for every
//! agent instead of one Node process per agent.

pub mod egress;
pub mod relay;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--sandbox`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxMode {
    /// On where the kernel allows it, else off (said at start and in the header).
    Auto,
    /// On, or no agent starts.
    On,
    /// Off: agents run with the server's reach (said in the header, in warning colours).
    Off,
}

/// The port the relay inside a sandbox listens on (its own network namespace: no clash).
pub const PROXY_PORT: u16 = 3128;

/// Whether agents run in a sandbox, and with what.
#[derive(Clone, Debug)]
pub struct Sandbox {
    bwrap: Option<PathBuf>,
    /// "on (bubblewrap 0.8.0)", or why it is off.
    said: String,
    /// The human's secrets, not there inside ([`SECRETS`] in the server's home folder).
    hidden: Vec<PathBuf>,
}

/// What of the home folder a sandbox leaves out: keys, tokens and passwords of the usual tools,
/// and the human's own Claude sessions (each agent has its own Claude folder).
pub const SECRETS: [&str; 20] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".password-store",
    ".local/share/keyrings",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".claude",
    ".claude.json",
];

/// A path bound into a sandbox, in the order given: a later bind over an earlier one wins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bind {
    /// Read and written through.
    Rw(PathBuf),
    /// Read only (also over part of a writable bind, or to show what is hidden).
    Ro(PathBuf),
    /// The first, read only, shown at the second.
    RoAt(PathBuf, PathBuf),
}

/// What an agent may reach in its sandbox.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// Hidden but for what is bound below (the store, the login, other agents' folders).
    pub data_dir: PathBuf,
    /// Bound in this order (each only if it exists).
    pub binds: Vec<Bind>,
    /// The egress proxy's socket for this agent, relayed to [`PROXY_PORT`] inside; none: no
    /// network at all.
    pub egress: Option<PathBuf>,
}

impl Sandbox {
    /// Agents run with the server's reach.
    pub fn off(why: &str) -> Sandbox {
        Sandbox {
            bwrap: None,
            said: format!("off: {why}"),
            hidden: Vec::new(),
        }
    }

    /// What `mode` gives on this machine: `Err` only for `on` where no sandbox can be made.
    pub fn detect(mode: SandboxMode) -> Result<Sandbox, String> {
        Sandbox::detect_with(mode, program_path(Path::new("bwrap")))
    }

    /// As [`detect`](Sandbox::detect), with `bwrap` (none: not installed).
    fn detect_with(mode: SandboxMode, bwrap: Option<PathBuf>) -> Result<Sandbox, String> {
        if mode == SandboxMode::Off {
            return Ok(Sandbox::off("--sandbox off"));
        }
        match probe(bwrap) {
            Ok((bwrap, version)) => {
                let on = Sandbox {
                    bwrap: Some(bwrap),
                    said: format!("on ({version})"),
                    hidden: Vec::new(),
                };
                Ok(match std::env::var_os("HOME") {
                    Some(home) if !home.is_empty() => on.hiding(Path::new(&home)),
                    _ => on,
                })
            }
            Err(why) if mode == SandboxMode::On => Err(format!(
                "--sandbox on: agents cannot run in a sandbox here: {why}"
            )),
            Err(why) => Ok(Sandbox::off(&why)),
        }
    }

    /// This sandbox, leaving out the [`SECRETS`] of `home`.
    pub fn hiding(mut self, home: &Path) -> Sandbox {
        self.hidden = SECRETS.iter().map(|s| home.join(s)).collect();
        self
    }

    pub fn is_on(&self) -> bool {
        self.bwrap.is_some()
    }

    /// "on (bubblewrap 0.8.0)", or "off: why".
    pub fn said(&self) -> &str {
        &self.said
    }

    /// The command that runs `program` with `args` for an agent whose places are `places`:
    /// inside the sandbox when it is on, else as it is.
    pub fn command(
        &self,
        program: &OsStr,
        args: &[OsString],
        places: &Places,
    ) -> std::process::Command {
        let Some(bwrap) = &self.bwrap else {
            let mut c = std::process::Command::new(program);
            c.args(args);
            return c;
        };
        let mut c = std::process::Command::new(bwrap);
        c.args(walls())
            .args(self.hiding_args())
            .args(places.binds());
        if let Some(socket) = &places.egress {
            c.arg("--").arg(relay_program()).args(["relay", "--listen"]);
            c.arg(format!("127.0.0.1:{PROXY_PORT}"))
                .arg("--unix")
                .arg(socket);
        }
        c.arg("--").arg(program).args(args);
        c
    }
}

/// What every sandbox is: no capability, no user namespace to win one, its own PID, IPC, UTS,
/// network and cgroup namespaces, gone with the server; the file system read-only, with its own
/// `/dev`, `/proc`, `/tmp` and `/run` (no host socket there is reached: the session's D-Bus,
/// an ssh agent, a database's, a container engine's).
fn walls() -> [&'static str; 22] {
    [
        "--die-with-parent",
        "--unshare-user",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/run",
        "--new-session",
    ]
}

impl Sandbox {
    /// A hidden folder is an empty read-only one, a hidden file an empty file (each only if it
    /// exists).
    fn hiding_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = Vec::new();
        for path in &self.hidden {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => out.extend([
                    "--tmpfs".into(),
                    path.into(),
                    "--remount-ro".into(),
                    path.into(),
                ]),
                Ok(_) => out.extend(["--ro-bind".into(), "/dev/null".into(), path.into()]),
                Err(_) => {}
            }
        }
        out
    }
}

impl Places {
    /// bubblewrap's arguments for these places, in order: the data directory emptied, then the
    /// binds as given, then the emptied folder read-only.
    fn binds(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec!["--tmpfs".into(), self.data_dir.clone().into()];
        for bind in &self.binds {
            let (how, from, to) = match bind {
                Bind::Rw(p) => ("--bind", p, p),
                Bind::Ro(p) => ("--ro-bind", p, p),
                Bind::RoAt(from, to) => ("--ro-bind", from, to),
            };
            if std::fs::symlink_metadata(from).is_ok() {
                out.extend([how.into(), from.into(), to.into()]);
            }
        }
        // What is left of the data directory is an empty, read-only folder.
        out.extend(["--remount-ro".into(), self.data_dir.clone().into()]);
        out
    }
}

/// The program `cmd` names, as the sandbox starts it: a path, or found on the server's `PATH`;
/// none when it is not there.
pub fn program_path(cmd: &Path) -> Option<PathBuf> {
    if cmd.components().count() > 1 {
        return cmd
            .is_file()
            .then(|| std::path::absolute(cmd).unwrap_or(cmd.into()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(cmd))
        .find(|f| f.is_file())
}

/// The `soulgrid` binary, whose `relay` runs inside a sandbox: this program, or (a test's or
/// the bench's program running a server) the one built beside it.
fn relay_program() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|_| "soulgrid".into());
    if exe.file_name().is_some_and(|n| n == "soulgrid") {
        return exe;
    }
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    [dir.join("soulgrid"), dir.join("../soulgrid")]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or(exe)
}

/// bubblewrap, and a sandbox made with it once (it fails where the
/// kernel allows no user namespace, or no mount in one).
fn probe(bwrap: Option<PathBuf>) -> Result<(PathBuf, String), String> {
    let bwrap =
        bwrap.ok_or("bubblewrap (`bwrap`) is not installed: `apt-get install bubblewrap`")?;
    let version = std::process::Command::new(&bwrap)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "bubblewrap".into());
    let mut child = std::process::Command::new(&bwrap)
        .args(walls())
        .args(["--", "/bin/sh", "-c", "exit 0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{} cannot be run: {e}", bwrap.display()))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                return Err("a sandbox took over 10 s to start".into());
            }
        }
    };
    if status.success() {
        return Ok((bwrap, version));
    }
    let mut said = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = (&mut e).take(2048).read_to_string(&mut said);
    }
    Err(format!(
        "this kernel refuses a sandbox ({}): {}",
        status,
        said.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No bubblewrap, or one the kernel refuses (here a program that fails): `auto` runs
    /// agents without a sandbox and says why; `on` refuses, saying why.
    #[test]
    fn without_a_sandbox_auto_says_why_and_on_refuses() {
        let missing = Sandbox::detect_with(SandboxMode::Auto, None).unwrap();
        assert!(
            !missing.is_on() && missing.said().contains("not installed"),
            "{}",
            missing.said()
        );
        let e = Sandbox::detect_with(SandboxMode::On, None).unwrap_err();
        assert!(
            e.starts_with("--sandbox on") && e.contains("not installed"),
            "{e}"
        );
        let refused = Some(PathBuf::from("/bin/false"));
        let off = Sandbox::detect_with(SandboxMode::Auto, refused.clone()).unwrap();
        assert!(off.said().contains("refuses a sandbox"), "{}", off.said());
        assert!(Sandbox::detect_with(SandboxMode::On, refused).is_err());
        let chosen = Sandbox::detect_with(SandboxMode::Off, None).unwrap();
        assert_eq!(chosen.said(), "off: --sandbox off");
    }
}

#[cfg(test)]
mod hidden {
    use super::*;

    /// The human's secrets in their home folder (keys, tokens, the human's own Claude
    /// sessions) are not there inside a sandbox; the rest of the home folder is, read only.
    #[test]
    fn the_humans_secrets_are_not_in_a_sandbox() {
        let sandbox = match Sandbox::detect(SandboxMode::Auto) {
            Ok(s) if s.is_on() => s,
            _ => return eprintln!("skipped: no sandbox on this machine"),
        };
        // Not under `/tmp`, which is the sandbox's own.
        let home = tempfile::tempdir_in("/var/tmp").unwrap();
        let h = home.path();
        for (file, text) in [
            (".ssh/id_ed25519", "ssh-key"),
            (".aws/credentials", "aws-key"),
            (".claude/projects/x.jsonl", "human-session"),
            (".netrc", "netrc-password"),
            ("notes.txt", "plain-notes"),
        ] {
            std::fs::create_dir_all(h.join(file).parent().unwrap()).unwrap();
            std::fs::write(h.join(file), text).unwrap();
        }
        let data = tempfile::tempdir().unwrap();
        let places = Places {
            data_dir: data.path().into(),
            ..Places::default()
        };
        let script = "cat .ssh/id_ed25519 .aws/credentials .claude/projects/x.jsonl .netrc \
                      notes.txt 2>/dev/null; ls -a .ssh; touch .ssh/planted && echo planted";
        let out = sandbox
            .hiding(h)
            .command(
                OsStr::new("/bin/sh"),
                &["-c".into(), script.into()],
                &places,
            )
            .current_dir(h)
            .output()
            .unwrap();
        let seen = String::from_utf8_lossy(&out.stdout);
        for secret in ["ssh-key", "aws-key", "human-session", "netrc-password"] {
            assert!(!seen.contains(secret), "{secret} in {seen}");
        }
        assert!(seen.contains("plain-notes"), "{seen}");
        assert!(!seen.contains("planted"), "{seen}");
    }
}
