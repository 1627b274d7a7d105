//! The agents' processes: the Claude Code CLI (or `soulgrid-sim`), one per awake agent and one
//! for the lead. The server owns them: it starts them for SUMMON and WAKE, delivers messages on
//! their stdin and turns their stdout into events. Liveness comes from here.

mod lifecycle;
mod mail;
mod permissions;
pub mod process;
pub mod prompts;
pub mod protocol;
mod requests;
mod state_file;
pub mod turn;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::{Seat, LEAD_SEAT};
use tokio_util::sync::CancellationToken;

use crate::mailbox::Mailboxes;
use crate::session::Session;
use crate::store::Store;
pub use permissions::{human_duration, DecideError, PermissionMode};
use process::{Handle, Spec};
use prompts::Names;

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

/// What happened to a message for an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Written to the running process's stdin.
    Delivered,
    /// The lead was not running: it was started with the message.
    Started,
    /// The agent sleeps: the message waits for its wake.
    Queued,
    /// The agent's process cannot be started: the lead was given the message as
    /// `[ROUTE TO AGENT: name]`.
    Relayed,
}

#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    config: RuntimeConfig,
    mailboxes: Mailboxes,
    store: Store,
    session: Arc<Session>,
    agents: Mutex<HashMap<Seat, Handle>>,
    /// Permission requests an answer was claimed for: the first claim answers.
    answered: Mutex<HashSet<String>>,
    /// An inbox changed: the agents' state files may be out of date.
    inboxes_changed: tokio::sync::Notify,
    shutdown: CancellationToken,
}

impl Runtime {
    pub fn new(
        config: RuntimeConfig,
        mailboxes: Mailboxes,
        store: Store,
        session: Arc<Session>,
        shutdown: CancellationToken,
    ) -> Self {
        Runtime {
            inner: Arc::new(Inner {
                config,
                mailboxes,
                store,
                session,
                agents: Mutex::default(),
                answered: Mutex::default(),
                inboxes_changed: tokio::sync::Notify::new(),
                shutdown,
            }),
        }
    }

    pub fn mailboxes(&self) -> &Mailboxes {
        &self.inner.mailboxes
    }

    /// The name an agent's inbox is filed under: the lead's configured name, or the agent's.
    pub fn seat_name(&self, seat: Seat) -> Option<String> {
        if seat == LEAD_SEAT {
            return Some(self.names().lead.clone());
        }
        self.inner
            .store
            .with_docs(|d| identity(d, seat).and_then(|i| i.name.clone()))
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn shutdown_token(&self) -> CancellationToken {
        self.inner.shutdown.clone()
    }

    fn agents(&self) -> std::sync::MutexGuard<'_, HashMap<Seat, Handle>> {
        self.inner.agents.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True for the first caller only: that one answers `request_id`.
    fn claim_answer(&self, request_id: &str) -> bool {
        self.inner
            .answered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request_id.to_string())
    }

    /// Seats with a running process.
    pub fn running(&self) -> Vec<Seat> {
        let mut v: Vec<Seat> = self.agents().keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Appends events in this session; a failure is logged, never a crash of the runtime.
    pub async fn record(&self, events: Vec<EventKind>) {
        if events.is_empty() {
            return;
        }
        if let Err(e) = self
            .inner
            .store
            .append_all(&self.inner.session.id(), events)
            .await
        {
            tracing::error!(error = %e, "recording runtime events failed");
        }
    }

    async fn start(&self, spec: Spec) -> Result<(), String> {
        let seat = spec.seat;
        if self.agents().contains_key(&seat) {
            return Err(format!("seat {seat} already has a running process"));
        }
        let handle = process::spawn(self.clone(), spec).await?;
        self.agents().insert(seat, handle);
        Ok(())
    }

    /// Called by a process's supervisor when it has stopped.
    /// The event first, then the handle goes: whoever waits for the handle to go (`stop`,
    /// `stop_all`) then finds the seat asleep in the documents.
    async fn stopped(&self, seat: Seat, reason: String) {
        self.record(vec![EventKind::AgentProcess {
            seat,
            state: ProcessState::Stopped,
            reason: Some(reason),
            claude_session_id: None,
            context_tokens: None,
            cost_usd: None,
        }])
        .await;
        self.agents().remove(&seat);
    }

    /// Asks one process to stop; returns once it has.
    pub async fn stop(&self, seat: Seat, reason: &str) {
        let stop = self.agents().get(&seat).map(|h| h.stop.clone());
        if let Some(stop) = stop {
            let _ = stop.send(reason.to_string()).await;
            self.wait_stopped(&[seat], Duration::from_secs(10)).await;
        }
    }

    async fn wait_stopped(&self, seats: &[Seat], timeout: Duration) {
        let deadline = tokio::time::Instant::now() + timeout;
        while seats.iter().any(|s| self.agents().contains_key(s))
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Asks the agent's process to stop its current turn (`control_request` interrupt); the
    /// process stays. False if the seat has no process.
    pub async fn interrupt(&self, seat: Seat) -> bool {
        let stdin = self.agents().get(&seat).map(|h| h.stdin.clone());
        let Some(stdin) = stdin else { return false };
        let request_id = format!("interrupt-{}", uuid::Uuid::new_v4().simple());
        self.record(vec![EventKind::AgentProcess {
            seat,
            state: ProcessState::Running,
            reason: Some("interrupting…".into()),
            claude_session_id: None,
            context_tokens: None,
            cost_usd: None,
        }])
        .await;
        stdin.send(protocol::interrupt(&request_id)).await.is_ok()
    }

    /// Stops every process.
    pub async fn stop_all(&self, reason: &str) {
        let stops: Vec<(Seat, tokio::sync::mpsc::Sender<String>)> = self
            .agents()
            .iter()
            .map(|(s, h)| (*s, h.stop.clone()))
            .collect();
        for (_, stop) in &stops {
            let _ = stop.send(reason.to_string()).await;
        }
        let seats: Vec<Seat> = stops.iter().map(|(s, _)| *s).collect();
        self.wait_stopped(&seats, Duration::from_secs(10)).await;
    }

    fn names(&self) -> &Names {
        &self.inner.config.names
    }

    fn lead_spec(&self, first_message: String) -> Spec {
        Spec {
            seat: LEAD_SEAT,
            name: Some(self.names().lead.clone()),
            summoning: false,
            system_prompt: prompts::lead_prompt(&self.inner.config.data_dir, self.names()),
            first_message,
            resume: self.last_claude_session(LEAD_SEAT),
        }
    }

    /// The Claude session the seat's last process ran. The lead's next process resumes it, so
    /// the lead keeps its conversation across session ends and server restarts.
    fn last_claude_session(&self, seat: Seat) -> Option<String> {
        self.inner
            .store
            .with_docs(|d| identity(d, seat).and_then(|i| i.claude_session_id.clone()))
    }

    /// Gives `text` to the agent in `seat`: on its stdin if it runs; the lead is started with
    /// it if it does not; a sleeping agent's message waits.
    pub async fn deliver(&self, seat: Seat, text: &str) -> Delivery {
        let stdin = self.agents().get(&seat).map(|h| h.stdin.clone());
        if let Some(stdin) = stdin {
            for line in protocol::user_messages(text) {
                if stdin.send(line).await.is_err() {
                    return Delivery::Queued;
                }
            }
            return Delivery::Delivered;
        }
        if seat == LEAD_SEAT {
            return match self.start(self.lead_spec(text.to_string())).await {
                Ok(()) => Delivery::Started,
                Err(_) => Delivery::Queued,
            };
        }
        Delivery::Queued
    }
}

/// A 22-character base64url uuid, as the documents' `uuid` field has it.
pub fn uuid22() -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let mut bits: u128 = u128::from_be_bytes(bytes);
    let mut out = [0u8; 22];
    // 22 digits of 6 bits cover 132 bits; the top 4 are zero.
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(bits & 63) as usize];
        bits >>= 6;
    }
    String::from_utf8(out.to_vec()).expect("ASCII")
}
