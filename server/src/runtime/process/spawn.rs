//! One Claude process: the command it runs with (the protocol flags, its own folder, process
//! group and temp dirs) and its start. Its supervision is [`crate::runtime::process::supervisor`].

use std::process::Stdio;

use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::Seat;
use tokio::process::Command;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::runtime::context::Context;
use crate::runtime::error::RuntimeError;
use crate::runtime::folder::knowledge::Folders;
use crate::runtime::process::contain::Containment;
use crate::runtime::process::group::Group;
use crate::runtime::process::lines::LineCodec;
use crate::runtime::process::protocol;
use crate::runtime::process::supervisor::{self, Exit, Report, Supervisor, Timing};
use crate::runtime::process::table::{Live, StopSignal};
use crate::runtime::process::turn::Translator;

/// The longest stdout line we read (a tool result can be large); a longer one is skipped.
pub const MAX_LINE: usize = 32 * 1024 * 1024;

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

pub use crate::runtime::folder::agent_fs::agent_dir;

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
) -> Command {
    let args = arguments(c, spec, claude_session, ready);
    let work = agent_dir(&c.data_dir, spec.seat);
    let (tmp, run) = own_folders(&c.data_dir, spec.seat);
    for dir in [&work, &tmp, &run] {
        let _ = std::fs::create_dir_all(dir);
    }
    let places = places(c, spec.seat, ready);
    let mut cmd = Command::from(c.sandbox.command(c.cmd.as_os_str(), &args, &places));
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

/// A process that runs, and what it takes to supervise it.
pub struct Started {
    pub live: Live,
    /// Runs it to its end: a Claude process's supervisor, or an external agent's connection.
    pub run: std::pin::Pin<Box<dyn std::future::Future<Output = Exit> + Send>>,
    pub reports: mpsc::UnboundedReceiver<Report>,
}

/// What starts a process: the settings, the folder room that readies its folder, where its
/// processes are kept, and the lock newborns choose their names under.
#[derive(Clone)]
pub struct Spawner {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) folders: Folders,
    /// Where agents' processes are kept, so a stop stops all they started.
    pub(in crate::runtime) containment: std::sync::Arc<Containment>,
    /// Newborns choose names one at a time: a name is checked and recorded before the next
    /// newborn's is checked, so two cannot both take one name.
    pub(in crate::runtime) naming: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Spawner {
    /// Records `starting`, spawns the process and sends it its first message. A process that
    /// cannot be spawned is recorded as stopped, with why.
    pub(in crate::runtime) async fn spawn(
        &self,
        spec: &Spec,
        stop: StopSignal,
    ) -> Result<Started, RuntimeError> {
        let rt = &self.ctx;
        let seat = spec.seat;
        // Its folder as the store says it should be: the identity's vault, a git repository.
        let folder = self
            .folders
            .prepare(seat, &agent_dir(&rt.config().data_dir, seat))
            .await;
        let claude_session = spec
            .resume
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        rt.record(vec![process_event(
            seat,
            ProcessState::Starting,
            None,
            Some(claude_session.clone()),
        )])
        .await;
        // In a sandbox the program is started by bubblewrap: one that is not there is said
        // here, as a spawn of it would say it.
        if rt.config().sandbox.is_on() && crate::sandbox::program_path(&rt.config().cmd).is_none() {
            let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such program");
            return Err(self.not_started(seat, source).await);
        }
        if !rt.config().simulated {
            // Its own Claude folder, with the session it resumes (or its parent's) in it.
            let (data_dir, resume) = (rt.config().data_dir.clone(), spec.resume.clone());
            let linked = !rt.config().sandbox.is_on();
            let _ = tokio::task::spawn_blocking(move || {
                super::cli_home::prepare(&data_dir, seat, resume.as_deref(), linked)
            })
            .await;
        }
        let place = self.containment.place(seat);
        let ready = crate::runtime::projects::ready(rt, seat).await;
        let mut cmd = command(rt.config(), spec, &claude_session, &ready);
        // Its way out of the sandbox, for as long as it runs.
        let egress = match places(rt.config(), seat, &ready).egress {
            Some(socket) => match crate::sandbox::egress::Egress::start(
                &socket,
                rt.config().egress.clone(),
                seat,
            ) {
                Ok(e) => Some(e),
                Err(e) => {
                    tracing::warn!(seat, socket = %socket.display(), "the agent's way out of its sandbox could not be opened: {e}");
                    None
                }
            },
            None => None,
        };
        place.prepare(&mut cmd);
        let child = match cmd.spawn() {
            Ok(child) => child,
            Err(source) => return Err(self.not_started(seat, source).await),
        };
        tracing::info!(seat, pid = child.id(), session = %claude_session, "agent process started");
        // Where the agent's rules read relative paths: where it runs, then its worktrees, as
        // the file system resolves them (a relative `--data-dir` included).
        let roots = std::iter::once(agent_dir(&rt.config().data_dir, seat))
            .chain(ready.dirs.iter().cloned())
            .map(|d| {
                std::fs::canonicalize(&d)
                    .or_else(|_| std::path::absolute(&d))
                    .unwrap_or(d)
                    .display()
                    .to_string()
            })
            .collect();
        let (live, supervisor, reports) =
            self.supervisor(spec, child, stop, (folder, place), roots);
        // The control protocol, and the `soulgrid` MCP server in it, for every process.
        let _ = live.stdin.send(protocol::initialize("soulgrid-init")).await;
        // A process that does not take its first message is stopped by its supervisor's stop or
        // watchdogs; the send itself never waits long (the channel is empty).
        if let Err(e) = crate::runtime::process::outgoing::send_to(
            &rt.config().data_dir,
            seat,
            &live,
            spec.first_message.clone(),
        )
        .await
        {
            tracing::warn!(seat, error = %e, "the first message could not be written");
        }
        Ok(Started {
            live,
            run: Box::pin(async move {
                let _egress = egress;
                supervisor.run().await
            }),
            reports,
        })
    }

    /// A process that could not be started: recorded as stopped, with why.
    async fn not_started(&self, seat: Seat, source: std::io::Error) -> RuntimeError {
        let rt = &self.ctx;
        let err = RuntimeError::Spawn {
            cmd: rt.config().cmd.display().to_string(),
            source,
        };
        let reason = err.to_string();
        rt.record(vec![
            process_event(seat, ProcessState::Stopped, Some(reason.clone()), None),
            EventKind::RuntimeError {
                seat: Some(seat),
                message: reason,
            },
        ])
        .await;
        err
    }

    /// The tasks around a spawned child (stdin writer, stderr drain) and its supervisor.
    fn supervisor(
        &self,
        spec: &Spec,
        mut child: tokio::process::Child,
        stop: StopSignal,
        (folder, place): (
            crate::runtime::folder::knowledge::Folder,
            crate::runtime::process::contain::Place,
        ),
        roots: Vec<String>,
    ) -> (Live, Supervisor, mpsc::UnboundedReceiver<Report>) {
        let rt = &self.ctx;
        let seat = spec.seat;
        let group = Group::of(&child);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (stdin_tx, stdin_rx) = mpsc::channel::<String>(256);
        tokio::spawn(crate::runtime::process::pipes::write_stdin(
            seat, stdin, stdin_rx,
        ));
        let live = Live {
            stdin: stdin_tx,
            busy: Default::default(),
            in_flight: Default::default(),
        };
        let (reports_tx, reports) = mpsc::unbounded_channel();
        let supervisor = Supervisor {
            seat,
            child,
            group,
            lines: FramedRead::new(stdout, LineCodec::new(MAX_LINE)),
            stderr: tokio::spawn(crate::runtime::process::pipes::drain_stderr(seat, stderr)),
            live: live.clone(),
            stop,
            shutdown: rt.shutdown_token(),
            translator: {
                let mut t = Translator::new(seat, spec.name.clone(), spec.summoning)
                    .with_team_names(&rt.names().lead, &rt.names().human)
                    .with_roots(roots)
                    .with_lead_first(
                        rt.config().agents.approvals
                            == crate::runtime::config::ApprovalMode::LeadFirst,
                    );
                t.set_aside(spec.aside);
                t
            },
            naming: self.naming.clone(),
            stop_asked: None,
            pending: Vec::new(),
            taken: Vec::new(),
            recorder: rt.recorder().clone(),
            reports: reports_tx,
            resuming: spec.resume.is_some(),
            timing: Timing {
                stuck_after: rt.config().agents.stuck_after,
                idle_timeout: rt.config().agents.idle_timeout,
                stop_grace: rt.config().agents.stop_grace,
                distill_timeout: rt.config().agents.distill_timeout,
            },
            unrecorded: None,
            workdir: agent_dir(&rt.config().data_dir, seat),
            folder,
            letters: supervisor::Letters {
                data_dir: rt.config().data_dir.clone(),
                names: rt.names().clone(),
            },
            committer: crate::runtime::folder::commits::Committer::start(
                seat,
                crate::runtime::folder::git::History::new(&rt.config().data_dir, seat),
                rt.recorder().clone(),
            ),
            commits_in_turn: 0,
            place: Some(place),
        };
        (live, supervisor, reports)
    }
}

/// A change of a seat's process state, with nothing else to report.
pub(in crate::runtime) fn process_event(
    seat: Seat,
    state: ProcessState,
    reason: Option<String>,
    claude_session_id: Option<String>,
) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state,
        reason,
        claude_session_id,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    }
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
        let cmd = command(&c, &spec, "s-1", &ready);
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
