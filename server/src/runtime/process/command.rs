//! The command line an agent's process runs with: the protocol flags, its session, prompt and
//! worktrees, Soulgrid's tools with the side door closed, its folders and environment, and
//! (`places`) what it may reach inside its sandbox, with the egress it gets there.

use std::process::Stdio;

use app::domain::Seat;
use tokio::process::Command;

use crate::runtime::folder::agent_fs::agent_dir;

/// How a process is started.
#[derive(Clone, Debug)]
pub struct Spec {
    pub seat: Seat,
    /// The agent's name, if it has one (a newborn does not).
    pub name: Option<String>,
    /// A blank session given the summon letter.
    pub summoning: bool,
    pub system_prompt: String,
    pub first_message: crate::runtime::process::outgoing::Outgoing,
    /// What its first turn answers when the human did not start it (a birth, a waking).
    pub aside: Option<app::domain::events::Aside>,
    /// The Claude session to continue (`--resume`) instead of starting a new one.
    pub resume: Option<String>,
    /// With `resume`: a new session that starts as a copy of it (`--fork-session`): a fork.
    pub fork: bool,
}

/// How every Claude process is started: one JSON line per message each way, and each user
/// message echoed as the CLI takes it (mail is marked read only then).
pub const STREAM_JSON: [&str; 7] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--replay-user-messages",
];

/// Soulgrid's own tools are allowed without asking (in both permission modes; everything else
/// is as the mode says), and the side door is closed: the CLI's built-in cross-session
/// messaging tools are not there and messages from other sessions are refused, so the team talks
/// through `send_message`, recorded. Measured with 2.1.330
/// (`fixtures/claude-cli-2.1.330/side-door-closed.jsonl`). After `--claude-args`: a user's
/// `--allowedTools` adds to ours.
pub const SOULGRID_TOOLS_ONLY: [&str; 6] = [
    "--allowedTools",
    "mcp__soulgrid",
    "--disallowedTools",
    "ListAgents,SendMessage",
    "--settings",
    r#"{"crossSessionInbound":"refuse"}"#,
];

/// The command line a process runs with: the protocol flags, its folder, process group and
/// temp dirs (under the data dir, never the user's own), inside the sandbox when it is on.
pub fn command(
    c: &crate::runtime::config::RuntimeConfig,
    spec: &Spec,
    claude_session: &str,
    ready: &crate::runtime::projects::Ready,
    places: &crate::sandbox::Places,
) -> Command {
    let args = arguments(c, spec, claude_session, ready);
    let work = agent_dir(&c.data_dir, spec.seat);
    let (tmp, run) = own_folders(&c.data_dir, spec.seat);
    for dir in [&work, &tmp, &run] {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut cmd = Command::from(c.sandbox.command(c.cmd.as_os_str(), &args, places));
    // The server's settings and secrets are not the agent's (`--token`, `--notify-url`, a
    // database's URL: every `SOULGRID_*` but the simulated CLI's own), nor are the ways to the
    // human's session bus and ssh agent.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("SOULGRID_") && !k.starts_with("SOULGRID_SIM_") {
            cmd.env_remove(&*k);
        }
    }
    cmd.current_dir(&work)
        .env_remove("CLAUDECODE")
        .env_remove("SOULGRID_TOKEN")
        .env_remove("SOULGRID_NOTIFY_URL")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("SSH_AUTH_SOCK")
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("XDG_RUNTIME_DIR", &run)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own Claude configuration folder (`cli_home`), not the human's.
    if !c.simulated {
        cmd.env(
            "CLAUDE_CONFIG_DIR",
            super::cli_home::dir(&c.data_dir, spec.seat),
        );
    }
    if places.egress.is_some() {
        // Out of the sandbox only through the relay to the egress proxy, the model's API too
        // (on loopback, which a proxy is otherwise skipped for).
        let proxy = format!("http://127.0.0.1:{}", crate::sandbox::PROXY_PORT);
        for var in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
            cmd.env(var, &proxy);
        }
        for var in ["NO_PROXY", "no_proxy"] {
            cmd.env(var, "");
        }
    }
    #[cfg(unix)]
    cmd.process_group(0);
    cmd
}

/// An agent's temp and runtime folders (its own, under the data directory).
pub fn own_folders(
    data_dir: &std::path::Path,
    seat: Seat,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let seat = seat.to_string();
    (
        data_dir.join("tmp").join(&seat),
        data_dir.join("run").join(&seat),
    )
}

/// The CLI's arguments: the protocol, the session, the prompt, the worktrees, the permission
/// prompt, the user's `--claude-args`, then Soulgrid's tools and the side door closed.
fn arguments(
    c: &crate::runtime::config::RuntimeConfig,
    spec: &Spec,
    claude_session: &str,
    ready: &crate::runtime::projects::Ready,
) -> Vec<std::ffi::OsString> {
    let prompt = match &ready.prompt {
        Some(work) => format!("{}\n\n{work}", spec.system_prompt),
        None => spec.system_prompt.clone(),
    };
    let session_flag = match spec.resume.is_some() {
        true => "--resume",
        false => "--session-id",
    };
    let mut args: Vec<std::ffi::OsString> = STREAM_JSON.iter().map(Into::into).collect();
    args.extend(
        [
            session_flag,
            claude_session,
            "--append-system-prompt",
            &prompt,
        ]
        .map(Into::into),
    );
    // The agent's worktrees: it reads and edits there, and in no other part of a project.
    for dir in &ready.dirs {
        args.extend(["--add-dir".into(), dir.clone().into_os_string()]);
    }
    if spec.fork && spec.resume.is_some() {
        args.push("--fork-session".into());
    }
    if c.agents.permissions == crate::runtime::config::PermissionMode::Ui {
        args.extend(["--permission-prompt-tool", "stdio"].map(Into::into));
    }
    args.extend(c.extra_args.iter().map(Into::into));
    args.extend(SOULGRID_TOOLS_ONLY.map(Into::into));
    args
}

/// What the agent in `seat` may reach in its sandbox: its folders, its worktrees, what its git
/// writes in their repositories (the rest of those git folders read-only: the human's git runs
/// their `config`, `hooks` and `commondir`), its own Claude configuration folder with the
/// human's login and settings read-only in it (not for the simulated CLI: it has none), the
/// program itself, and the egress proxy (not for the simulated CLI: it needs no network).
pub fn places(
    c: &crate::runtime::config::RuntimeConfig,
    seat: Seat,
    ready: &crate::runtime::projects::Ready,
) -> crate::sandbox::Places {
    use crate::sandbox::Bind;
    let (tmp, run) = own_folders(&c.data_dir, seat);
    let mut binds: Vec<Bind> = [agent_dir(&c.data_dir, seat), tmp, run.clone()]
        .into_iter()
        .chain(ready.dirs.iter().cloned())
        .map(Bind::Rw)
        .collect();
    for git in &ready.git {
        binds.push(Bind::Ro(git.common.clone()));
        binds.extend(git.writable.iter().cloned().map(Bind::Rw));
    }
    if !c.simulated {
        let own = super::cli_home::dir(&c.data_dir, seat);
        binds.push(Bind::Rw(own.clone()));
        if let Some(human) = super::cli_home::humans() {
            for name in super::cli_home::SHARED {
                binds.push(Bind::RoAt(human.join(name), own.join(name)));
            }
        }
    }
    // The program itself, wherever it is (the sandbox's `/tmp` is its own): the file, and the
    // file a link to it names.
    if let Some(program) = crate::sandbox::program_path(&c.cmd) {
        binds.extend(std::fs::canonicalize(&program).ok().map(Bind::Ro));
        binds.push(Bind::Ro(program));
    }
    crate::sandbox::Places {
        data_dir: c.data_dir.clone(),
        binds,
        egress: (!c.simulated && c.sandbox.is_on()).then(|| run.join("egress.sock")),
    }
}

/// The agent's own Claude folder made ready (`cli_home`), with the session it resumes (or its
/// parent's) in it; nothing for the simulated CLI, which has none.
pub(in crate::runtime) async fn prepare_cli_home(
    c: &crate::runtime::config::RuntimeConfig,
    seat: Seat,
    resume: Option<String>,
) {
    if c.simulated {
        return;
    }
    let (data_dir, linked) = (c.data_dir.clone(), !c.sandbox.is_on());
    let _ = tokio::task::spawn_blocking(move || {
        super::cli_home::prepare(&data_dir, seat, resume.as_deref(), linked)
    })
    .await;
}

/// The agent's way out of its sandbox (the egress proxy on its socket), if `places` gives it
/// one. One that cannot be opened is an error: the agent does not start without it (each of
/// its turns would fail with no word of why).
pub(in crate::runtime) fn open_egress(
    c: &crate::runtime::config::RuntimeConfig,
    seat: Seat,
    places: &crate::sandbox::Places,
) -> std::io::Result<Option<crate::sandbox::egress::Egress>> {
    let Some(socket) = places.egress.as_ref() else {
        return Ok(None);
    };
    crate::sandbox::egress::Egress::start(socket, c.egress.clone(), seat)
        .map(Some)
        .map_err(|e| {
            tracing::warn!(seat, socket = %socket.display(), "the agent's way out of its sandbox could not be opened: {e}");
            std::io::Error::new(
                e.kind(),
                format!("its way out of its sandbox could not be opened: {e}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::config::{AgentSettings, Names, RuntimeConfig};
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        agents: AgentSettings,
    }

    /// Every process is started with Soulgrid's tools allowed and the side door closed, after
    /// the user's `--claude-args` (which add to ours, never undo them).
    #[test]
    fn every_process_has_soulgrids_tools_and_no_side_door() {
        let dir = tempfile::tempdir().unwrap();
        let c = RuntimeConfig {
            cmd: "claude".into(),
            label: String::new(),
            simulated: false,
            extra_args: vec!["--allowedTools".into(), "Bash".into()],
            data_dir: dir.path().to_path_buf(),
            names: Names {
                human: "Marcus".into(),
                lead: "Julian".into(),
            },
            templates: Default::default(),
            agents: Flags::parse_from(["soulgrid"]).agents,
            sandbox: std::sync::Arc::new(crate::sandbox::Sandbox::off("a test")),
            egress: Default::default(),
        };
        let spec = Spec {
            seat: 0,
            name: Some("Lyra".into()),
            summoning: false,
            system_prompt: String::new(),
            first_message: crate::runtime::process::outgoing::Outgoing::text("hi"),
            resume: None,
            fork: false,
            aside: None,
        };
        let ready = crate::runtime::projects::Ready {
            dirs: vec!["/data/worktrees/lyra/web".into()],
            git: Vec::new(),
            prompt: Some("You are at work on web.".into()),
        };
        let cmd = command(&c, &spec, "s-1", &ready, &places(&c, 0, &ready));
        let args: Vec<String> = cmd
            .as_std()
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let ours = SOULGRID_TOOLS_ONLY.map(str::to_owned);
        let at = args
            .windows(ours.len())
            .position(|w| w == ours)
            .expect("the tools and side-door flags, together");
        let user = args.iter().position(|a| a == "Bash").unwrap();
        assert!(user < at, "after --claude-args: {args:?}");
        assert!(args[at..].contains(&r#"{"crossSessionInbound":"refuse"}"#.to_string()));
        // The server's secrets are not the agent's: its token (which lets anything reach the
        // console) and its notification URLs are taken out of the environment it inherits.
        let removed: Vec<String> = cmd
            .as_std()
            .get_envs()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        for secret in ["SOULGRID_TOKEN", "SOULGRID_NOTIFY_URL"] {
            assert!(removed.contains(&secret.to_string()), "{removed:?}");
        }
        let add = args
            .iter()
            .position(|a| a == "--add-dir")
            .expect("the worktree is added");
        assert_eq!(args[add + 1], "/data/worktrees/lyra/web");
        let prompt = args
            .iter()
            .position(|a| a == "--append-system-prompt")
            .unwrap();
        assert!(
            args[prompt + 1].ends_with("You are at work on web."),
            "{args:?}"
        );
    }
}
