//! How agents are run: the runtime's settings, and which CLI it starts.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::permissions::PermissionMode;
use super::prompts::Names;

/// How agents are run.
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    pub cmd: PathBuf,
    /// Shown in the UI and `/healthz`: which CLI runs the team.
    pub label: String,
    pub simulated: bool,
    pub extra_args: Vec<String>,
    pub data_dir: PathBuf,
    pub names: Names,
    pub idle_timeout: Duration,
    pub stuck_after: Duration,
    pub permissions: PermissionMode,
    /// A permission request nobody answers is denied after this long.
    pub permission_timeout: Duration,
    /// A process asked to stop gets this long after `SIGTERM` before its group is killed.
    pub stop_grace: Duration,
    /// An event the runtime cannot store is tried again for this long.
    pub record_deadline: Duration,
    /// An agent put to sleep first gets one turn of at most this long to distil its knowledge.
    pub distill_timeout: Duration,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// The process templates quests are planned from (read and checked at startup).
    pub templates: Arc<Vec<app::domain::quest::template::ProcessTemplate>>,
    /// Folders a quest may let its agents read.
    pub allow_dirs: Vec<PathBuf>,
    /// A quest stage without progress for this long is ended.
    pub stage_timeout: Duration,
    /// A job unclaimed for this long is offered again at each wake.
    pub job_timeout: Duration,
    /// How everything an agent starts is found and stopped with it.
    pub containment: super::contain::Mode,
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
