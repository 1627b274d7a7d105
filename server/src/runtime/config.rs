//! How agents are run: the runtime's settings, and which CLI it starts.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::parse_duration;

/// How agents are run: what the runtime was started with (the settings, as the flags give
/// them, and what the server worked out at startup).
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    pub cmd: PathBuf,
    /// Shown in the UI and `/healthz`: which CLI runs the team.
    pub label: String,
    pub simulated: bool,
    pub extra_args: Vec<String>,
    pub data_dir: PathBuf,
    pub names: Names,
    /// The process templates quests are planned from (read and checked at startup).
    pub templates: Arc<Vec<app::domain::quest::template::ProcessTemplate>>,
    pub agents: AgentSettings,
    /// Whether agents run in a sandbox (detected at startup), and where they may connect.
    pub sandbox: Arc<crate::sandbox::Sandbox>,
    pub egress: Arc<crate::sandbox::egress::Allow>,
}

/// The runtime's settings, declared once: these are the server's flags (flattened into
/// `Config`) and what the runtime reads.
#[derive(clap::Args, Clone, Debug)]
pub struct AgentSettings {
    /// An idle agent is put to sleep after this long without a turn (e.g. `900`, `15m`, `1h`).
    #[arg(long, env = "SOULGRID_IDLE_TIMEOUT", default_value = "15m", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// A turn with no output for this long is reported as stuck.
    #[arg(long, env = "SOULGRID_STUCK_AFTER", default_value = "10m", value_parser = parse_duration)]
    pub stuck_after: Duration,

    /// How agents' tool calls are approved: `auto` (the CLI's rules from --claude-args decide)
    /// or `ui` (whatever the rules do not allow is asked in the browser: Approve / Deny).
    #[arg(long, env = "SOULGRID_PERMISSIONS", value_enum, default_value = "auto")]
    pub permissions: PermissionMode,

    /// With `--permissions ui`: a request nobody answers is denied after this long.
    #[arg(long, env = "SOULGRID_PERMISSION_TIMEOUT", default_value = "5m", value_parser = parse_duration)]
    pub permission_timeout: Duration,

    /// With `--permissions ui`, who answers first: `human` (every request waits for the human)
    /// or `lead-first` (the lead decides with `decide_permission`; what it does not answer in
    /// `--lead-approval-timeout`, the lead's own requests, and calls outside an agent's folder
    /// and worktrees, on the network or removing files go to the human).
    #[arg(long, env = "SOULGRID_APPROVALS", value_enum, default_value = "human")]
    pub approvals: ApprovalMode,

    /// With `--approvals lead-first`: a request the lead has not answered in this long goes to
    /// the human.
    #[arg(long, env = "SOULGRID_LEAD_APPROVAL_TIMEOUT", default_value = "2m", value_parser = parse_duration)]
    pub lead_approval_timeout: Duration,

    /// A stopped agent gets this long after `SIGTERM` before its whole process group is killed.
    #[arg(long, env = "SOULGRID_STOP_GRACE", default_value = "5s", value_parser = parse_duration)]
    pub stop_grace: Duration,

    /// How everything an agent starts (in any session or process group) is stopped with it:
    /// `auto`, a cgroup per agent process where the machine has a writable cgroup v2
    /// hierarchy, else a scan of `/proc` at each stop; `scan`, the scan only.
    #[arg(long, env = "SOULGRID_CONTAINMENT", value_enum, default_value = "auto")]
    pub containment: ContainmentMode,

    /// An event the runtime cannot store is tried again for this long; then the agent whose
    /// output it was is stopped and its seat says so.
    #[arg(long, env = "SOULGRID_RECORD_DEADLINE", default_value = "30s", value_parser = parse_duration)]
    pub record_deadline: Duration,

    /// An agent put to sleep (dismissed, the session ended, idle, the server stopping) first
    /// gets one turn of at most this long to update its knowledge vault; `0s` skips it.
    #[arg(long, env = "SOULGRID_DISTILL_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub distill_timeout: Duration,

    /// A project's check before a merge (`cargo test`) is stopped after this long, and the
    /// merge refused.
    #[arg(long, env = "SOULGRID_CHECK_TIMEOUT", default_value = "10m", value_parser = parse_duration)]
    pub check_timeout: Duration,

    /// The model's context window in tokens: `_state.md` shows the context used against it.
    #[arg(long, env = "SOULGRID_CONTEXT_WINDOW", default_value_t = 200_000)]
    pub context_window: u64,

    /// Agents run in a sandbox (bubblewrap): `auto`, where the kernel allows it, else off (said
    /// at start and in the header); `on`, or no server starts; `off`, with the server's reach.
    #[arg(long, env = "SOULGRID_SANDBOX", value_enum, default_value = "auto")]
    pub sandbox: crate::sandbox::SandboxMode,

    /// A host an agent's sandbox may connect to besides the model's API, `HOST[:PORT]` (443
    /// when no port is given; repeatable). The console itself, never.
    #[arg(
        long = "agent-net-allow",
        env = "SOULGRID_AGENT_NET_ALLOW",
        value_delimiter = ','
    )]
    pub agent_net_allow: Vec<String>,

    /// A folder a quest may let its agents read (repeatable; none: quests take no folder).
    #[arg(long = "allow-dir", env = "SOULGRID_ALLOW_DIR", value_delimiter = ',')]
    pub allow_dir: Vec<PathBuf>,

    /// A quest stage with no finding or agent done for this long is ended, and the lead told.
    #[arg(long, env = "SOULGRID_STAGE_TIMEOUT", default_value = "20m", value_parser = parse_duration)]
    pub stage_timeout: Duration,

    /// A job nobody claimed for this long is offered again to each agent that wakes.
    #[arg(long, env = "SOULGRID_JOB_TIMEOUT", default_value = "30m", value_parser = parse_duration)]
    pub job_timeout: Duration,

    /// A job is offered to this many awake agents at a time (the idle ones first), not to
    /// everyone at once: each offer begins a turn.
    #[arg(long, env = "SOULGRID_JOB_OFFER", default_value_t = 3)]
    pub job_offer: usize,

    /// A job nobody claimed after this long is offered to the next `--job-offer` agents.
    #[arg(long, env = "SOULGRID_JOB_ROUND", default_value = "60s", value_parser = parse_duration)]
    pub job_round: Duration,

    /// An external agent's turn not answered within this long ends with a recorded wait (its
    /// mail comes again with its next turn).
    #[arg(long, env = "SOULGRID_EXTERNAL_TURN_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub external_turn_timeout: Duration,

    /// An external agent's connection that answers no ping for this long is closed.
    #[arg(long, env = "SOULGRID_EXTERNAL_PING_TIMEOUT", default_value = "20s", value_parser = parse_duration)]
    pub external_ping_timeout: Duration,
}

impl RuntimeConfig {
    /// `--claude-cmd`, else `claude` on PATH, else `soulgrid-sim` next to this executable.
    pub fn resolve_cmd(configured: Option<&str>) -> (PathBuf, String, bool) {
        if let Some(cmd) = configured.filter(|c| !c.trim().is_empty()) {
            let simulated = Path::new(cmd)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("soulgrid-sim"));
            let label = if simulated {
                format!("simulated ({cmd})")
            } else {
                cmd.to_string()
            };
            return (PathBuf::from(cmd), label, simulated);
        }
        if let Some(claude) = which("claude") {
            let label = format!("claude ({})", claude.display());
            return (claude, label, false);
        }
        let sim = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|d| d.join("soulgrid-sim")))
            .unwrap_or_else(|| PathBuf::from("soulgrid-sim"));
        (sim, "simulated (soulgrid-sim)".to_string(), true)
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}

/// The names a prompt is filled with.
#[derive(Clone, Debug)]
pub struct Names {
    pub human: String,
    pub lead: String,
}

/// How agents' tool calls are approved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PermissionMode {
    /// The CLI's own rules decide (`--claude-args`, e.g. `--permission-mode acceptEdits`);
    /// what they do not allow is refused without asking anyone.
    #[default]
    Auto,
    /// Whatever the rules do not allow is asked in the UI.
    Ui,
}

/// Who answers a permission request first (`--approvals`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ApprovalMode {
    /// The human, always.
    #[default]
    Human,
    /// The lead, unless the human keeps the call (or the lead asks, or does not answer).
    LeadFirst,
}

/// How agent processes are contained (`--containment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ContainmentMode {
    /// A cgroup where the machine has a writable cgroup v2 hierarchy, else the scan.
    Auto,
    /// The scan only.
    Scan,
}
