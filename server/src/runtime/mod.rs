//! The agents' processes: the Claude Code CLI (or `soulgrid-sim`), one per awake agent and one
//! for the lead. The server owns them: it starts them for SUMMON and WAKE, delivers messages on
//! their stdin and turns their stdout into events. Liveness comes from here.

// The rooms: each holds one concern; the rules between them are in docs/ARCHITECTURE.md and
// checked by `scripts/rooms.sh`.
mod background;
mod config;
mod error;
mod folder;
mod ids;
mod mail;
pub mod process;
pub mod prompts;
pub mod quest;
mod record;
mod team;

// The runtime's public modules, where the rest of the server reads them.
pub use process::{contain, lines, outgoing, protocol, turn};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::{Seat, LEAD_SEAT};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::mailbox::Mailboxes;
use crate::session::Session;
use crate::store::Store;
pub use config::{AgentSettings, RuntimeConfig};
pub use folder::knowledge::EditError;
pub use mail::postman::TellError;
pub use process::outgoing::{Mail, Outgoing};
use process::spawn::Spec;
use process::table::Table;
use prompts::Names;
pub use quest::watch::QuestEditError;
pub use quest::QuestStartError;
pub use team::fork::ForkError;
pub use team::hall::HallError;
pub use team::permissions::{human_duration, DecideError, PermissionMode};

pub use app::contract::Delivery;
pub use error::RuntimeError;
pub use ids::uuid22;
use process::pipes::STDIN_SEND_TIMEOUT;
pub use record::Recorder;

/// How long a message waits for a process that is starting.
const START_WAIT: Duration = Duration::from_secs(15);

#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    config: RuntimeConfig,
    mailboxes: Mailboxes,
    store: Store,
    session: Arc<Session>,
    recorder: Recorder,
    table: Table,
    /// One mail delivery per seat at a time.
    delivering: Vec<tokio::sync::Mutex<()>>,
    /// Newborns choose names one at a time: a name is checked and recorded before the next
    /// newborn's is checked, so two cannot both take one name.
    naming: Arc<tokio::sync::Mutex<()>>,
    /// The human's answers to permission requests.
    permissions: team::permissions::Permissions,
    /// An inbox changed: the agents' state files may be out of date.
    inboxes_changed: Arc<tokio::sync::Notify>,
    /// The projections' file work (the human's inbox, `_state.md`), at the lowest priority.
    background: background::Background,
    /// Seats summoned for a quest stage, until their newcomer has a name.
    joining: Mutex<std::collections::HashMap<Seat, quest::watch::Joining>>,
    /// Quest and job markers, carried out one at a time in the order they were written (by
    /// the task `watch_quests` starts, which takes the receiver).
    quest_queue: tokio::sync::mpsc::UnboundedSender<quest::QuestRequest>,
    quest_requests: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<quest::QuestRequest>>>,
    shutdown: CancellationToken,
    /// Where agents' processes are kept, so a stop stops all they started.
    containment: contain::Containment,
}

impl Runtime {
    pub fn new(
        config: RuntimeConfig,
        mailboxes: Mailboxes,
        store: Store,
        session: Arc<Session>,
        shutdown: CancellationToken,
        clock: Clock,
    ) -> Self {
        let recorder = Recorder {
            store: store.clone(),
            session: session.clone(),
            deadline: config.agents.record_deadline,
            clock,
        };
        let (quest_queue, quest_requests) = tokio::sync::mpsc::unbounded_channel();
        let table = Table::default();
        let permissions = team::permissions::Permissions {
            store: store.clone(),
            recorder: recorder.clone(),
            table: table.clone(),
            timeout: config.agents.permission_timeout,
            shutdown: shutdown.clone(),
            answered: Default::default(),
        };
        let config_containment = config.agents.containment;
        Runtime {
            inner: Arc::new(Inner {
                naming: Default::default(),
                config,
                mailboxes,
                recorder,
                store,
                session,
                table,
                delivering: (0..app::domain::SEATS)
                    .map(|_| Default::default())
                    .collect(),
                permissions,
                inboxes_changed: Default::default(),
                background: background::Background::start(),
                joining: Mutex::default(),
                quest_queue,
                quest_requests: Mutex::new(Some(quest_requests)),
                shutdown,
                containment: contain::Containment::new(config_containment),
            }),
        }
    }

    pub fn mailboxes(&self) -> &Mailboxes {
        &self.inner.mailboxes
    }

    /// The display name of the agent in `seat` (the lead's configured name for the lead).
    pub fn seat_name(&self, seat: Seat) -> Option<String> {
        if seat == LEAD_SEAT {
            return Some(self.names().lead.clone());
        }
        self.inner
            .store
            .with_docs(|d| identity(d, seat).and_then(|i| i.name.clone()))
    }

    /// The inbox name of the agent in `seat`: derived from its name when it registered (the
    /// lead's from its configured name); never the display name itself.
    pub fn seat_inbox(&self, seat: Seat) -> Option<String> {
        if seat == LEAD_SEAT {
            return Some(app::domain::names::slug(&self.names().lead));
        }
        self.inner
            .store
            .with_docs(|d| identity(d, seat).and_then(|i| i.inbox()))
    }

    /// The seat whose inbox is `inbox`.
    pub fn seat_of_inbox(&self, inbox: &str) -> Option<Seat> {
        if app::domain::names::slug(&self.names().lead) == inbox {
            return Some(LEAD_SEAT);
        }
        self.inner.store.with_docs(|d| {
            app::domain::docs::identities(d)
                .filter(|i| i.status().is_visible())
                .find(|i| i.inbox().as_deref() == Some(inbox))
                .map(|i| i.grid_position)
        })
    }

    /// The human's inbox name, derived from the human's name (`first.last` → `first-last`).
    pub fn human_inbox(&self) -> String {
        app::domain::names::slug(&self.names().human)
    }

    /// Whether agents' processes are kept in cgroups (else found by a scan at each stop).
    pub fn contained_by_cgroups(&self) -> bool {
        self.inner.containment.uses_cgroups()
    }

    pub(crate) fn containment(&self) -> &contain::Containment {
        &self.inner.containment
    }

    /// The server's one clock: ages (eggs, stalled stages, stale jobs) are read on it.
    pub fn clock(&self) -> &Clock {
        self.inner.recorder.clock()
    }

    /// Starts the task that keeps every agent's `_state.md` current; it ends with the server.
    pub fn keep_state_files(&self) {
        folder::state_file::StateFiles {
            store: self.store().clone(),
            mailboxes: self.mailboxes().clone(),
            data_dir: self.config().data_dir.clone(),
            context_window: self.config().agents.context_window,
            inboxes_changed: self.inner.inboxes_changed.clone(),
            background: self.inner.background.clone(),
            shutdown: self.shutdown_token(),
        }
        .start();
    }

    /// Starts the task that files agents' words in the human's inbox; it ends with the server.
    pub fn file_replies(&self) {
        mail::replies::Replies {
            store: self.store().clone(),
            mailboxes: self.mailboxes().clone(),
            human: self.human_inbox(),
            background: self.inner.background.clone(),
            shutdown: self.shutdown_token(),
        }
        .start();
    }

    /// Gives a running process a user message (one turn): one line on its stdin, bounded.
    pub(crate) async fn send_to(
        &self,
        seat: Seat,
        live: &process::table::Live,
        message: Outgoing,
    ) -> Result<(), RuntimeError> {
        process::outgoing::send_to(&self.config().data_dir, seat, live, message).await
    }

    /// Who runs where (the process room's table).
    pub(crate) fn table(&self) -> &Table {
        &self.inner.table
    }

    /// Holds `seat` for a new process; fails if it has one or one is starting.
    pub(crate) fn reserve(&self, seat: Seat) -> Result<process::table::Reservation, RuntimeError> {
        self.table().reserve(seat)
    }

    /// Seats with a running process.
    pub fn running(&self) -> Vec<Seat> {
        self.table().running()
    }

    /// Asks the seat's process to stop (or not to start) at once; returns once it has stopped
    /// and its `stopped` event is recorded (`Table::stop`).
    pub async fn stop(&self, seat: Seat, reason: &str) {
        self.table().stop(seat, reason).await
    }

    /// Puts the seat's agent to sleep: its distil turn, its knowledge captured, then the stop.
    pub async fn sleep(&self, seat: Seat, reason: &str) {
        self.table().sleep(seat, reason).await
    }

    /// Puts every agent to sleep, all at once (each distils in parallel).
    pub async fn stop_all(&self, reason: &str) {
        self.table().stop_all(reason).await
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

    pub(crate) fn naming(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.inner.naming.clone()
    }

    pub(crate) fn recorder(&self) -> &Recorder {
        &self.inner.recorder
    }

    /// Permission answers being written now (claims are let go once the request is settled).
    pub fn answers_in_progress(&self) -> usize {
        self.inner.permissions.answers_in_progress()
    }

    /// Answers a pending permission request (`team::permissions::Permissions::decide`).
    pub async fn decide(
        &self,
        request_id: &str,
        decision: app::domain::permissions::Decision,
        message: Option<String>,
        by: app::domain::permissions::Decider,
        suggestion: Option<usize>,
    ) -> Result<app::domain::permissions::PermissionState, DecideError> {
        self.inner
            .permissions
            .decide(request_id, decision, message, by, suggestion)
            .await
    }

    pub(crate) fn permissions(&self) -> &team::permissions::Permissions {
        &self.inner.permissions
    }

    /// Appends events in this session (tried again until the deadline); a failure is logged,
    /// never a crash of the runtime.
    pub async fn record(&self, events: Vec<EventKind>) {
        let _ = self.inner.recorder.record(events).await;
    }

    /// Asks the agent's process to stop its current turn (`control_request` interrupt); the
    /// process stays. An agent between turns is left as it is: nothing would end the
    /// "interrupting" (no `result` comes).
    pub async fn interrupt(&self, seat: Seat) -> Result<(), RuntimeError> {
        let live = self
            .table()
            .live(seat)
            .ok_or(RuntimeError::NotRunning(seat))?;
        if !live.is_busy() {
            return Err(RuntimeError::NotWorking(seat));
        }
        let request_id = format!("interrupt-{}", uuid::Uuid::new_v4().simple());
        self.record(vec![process::spawn::process_event(
            seat,
            ProcessState::Running,
            Some("interrupting…".into()),
            None,
        )])
        .await;
        live.stdin
            .send_timeout(protocol::interrupt(&request_id), STDIN_SEND_TIMEOUT)
            .await
            .map_err(|_| RuntimeError::NotTakingInput(seat, "its input is full or closed".into()))
    }

    pub fn names(&self) -> &Names {
        &self.inner.config.names
    }

    fn lead_spec(&self, first_message: Outgoing) -> Spec {
        Spec {
            seat: LEAD_SEAT,
            name: Some(self.names().lead.clone()),
            summoning: false,
            system_prompt: prompts::lead_prompt(&self.inner.config.data_dir, self.names()),
            first_message,
            resume: self.last_claude_session(LEAD_SEAT),
            fork: false,
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
    pub async fn deliver(&self, seat: Seat, message: Outgoing) -> Delivery {
        if seat == LEAD_SEAT && !self.table().is_taken(seat) {
            match self.start(self.lead_spec(message.clone())).await {
                Ok(()) => return Delivery::Started,
                // Another start won the seat meanwhile: the message goes to that process.
                Err(RuntimeError::SeatTaken(_)) => {}
                Err(_) => return Delivery::Queued,
            }
        }
        // A process that is starting is waited for: the text is not dropped meanwhile.
        match self.table().live_soon(seat, START_WAIT).await {
            Some(live) => match self.send_to(seat, &live, message).await {
                Ok(()) => Delivery::Delivered,
                Err(_) => Delivery::Queued,
            },
            None => Delivery::Queued,
        }
    }
}
