//! The agents' processes: the Claude Code CLI (or `soulgrid-sim`), one per awake agent and one
//! for the lead. The server owns them: it starts them for SUMMON and WAKE, delivers messages on
//! their stdin and turns their stdout into events. Liveness comes from here.

// The rooms: each holds one concern; the rules between them are in docs/ARCHITECTURE.md and
// checked by `server/tests/it/rooms.rs`.
mod background;
mod budgets;
mod config;
mod context;
mod doors;
mod error;
pub mod external;
mod folder;
mod ids;
mod mail;
mod on_code;
pub mod process;
pub mod projects;
pub mod prompts;
pub mod quest;
mod record;
mod switchboard;
mod team;

// The runtime's public modules, where the rest of the server reads them.
pub use process::{contain, lines, outgoing, protocol, turn};

use std::sync::Arc;

use app::domain::Seat;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::mailbox::Mailboxes;
use crate::session::Session;
use crate::store::Store;
pub use budgets::{BudgetError, Change as BudgetChange};
pub use config::{AgentSettings, ApprovalMode, RuntimeConfig};
use context::Context;
use folder::knowledge::Folders;
pub use folder::knowledge::{CaptureError, EditError};
pub use mail::channel::{PostError, Posted};
use mail::postman::Postman;
pub use mail::tell::TellError;
pub use process::outgoing::{Mail, Outgoing};
use process::owner::Processes;
use prompts::Names;
pub use quest::keeper::QuestEditError;
pub use quest::QuestStartError;
use quest::Quests;
pub use team::fork::ForkError;
pub use team::hall::{HallError, Seated};
use team::permissions::Permissions;
pub use team::permissions::{human_duration, DecideError, PermissionMode};
pub use team::rules::{Kept, RuleChangeError};
use team::Team;

pub use app::contract::Delivery;
pub use error::RuntimeError;
pub use ids::uuid22;
pub use record::Recorder;

/// The façade: it holds the rooms' owners and answers the rest of the server; each call goes
/// to the room it belongs to. Cheap to clone.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    ctx: Context,
    processes: Processes,
    folders: Folders,
    postman: Postman,
    team: Team,
    quests: Quests,
    /// The human's answers to permission requests.
    permissions: Permissions,
    /// Spend limits: set, watched, and the mail they held handed over.
    budgets: budgets::Budgets,
    projects: projects::Projects,
    /// External agents: invites, their connections.
    externals: external::Externals,
    /// The projections' file work (the human's inbox, `_state.md`), at the lowest priority.
    background: background::Background,
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
        let ctx = Context::new(config, mailboxes, store, session, shutdown, clock);
        let inner = Arc::new_cyclic(|me| {
            let folders = Folders { ctx: ctx.clone() };
            let switchboard = Arc::new(switchboard::Switchboard(me.clone()));
            let processes = Processes::new(ctx.clone(), folders.clone(), switchboard);
            let postman = Postman::new(ctx.clone(), processes.clone());
            let team = Team {
                ctx: ctx.clone(),
                processes: processes.clone(),
                postman: postman.clone(),
            };
            let projects = projects::Projects::new(ctx.clone());
            let quests = Quests::new(
                ctx.clone(),
                processes.clone(),
                postman.clone(),
                (team.clone(), projects.clone()),
            );
            let permissions = Permissions::new(&ctx, processes.table().clone());
            let budgets = budgets::Budgets {
                ctx: ctx.clone(),
                postman: postman.clone(),
            };
            let externals = external::Externals {
                ctx: ctx.clone(),
                processes: processes.clone(),
                postman: postman.clone(),
                team: team.clone(),
                joining: Default::default(),
            };
            Inner {
                externals,
                projects,
                ctx,
                processes,
                folders,
                postman,
                team,
                quests,
                permissions,
                budgets,
                background: background::Background::start(),
            }
        });
        Runtime { inner }
    }

    // The shared services and lookups (`context`).

    pub fn config(&self) -> &RuntimeConfig {
        self.inner.ctx.config()
    }

    pub fn names(&self) -> &Names {
        self.inner.ctx.names()
    }

    pub fn store(&self) -> &Store {
        self.inner.ctx.store()
    }

    pub fn mailboxes(&self) -> &Mailboxes {
        self.inner.ctx.mailboxes()
    }

    pub fn shutdown_token(&self) -> CancellationToken {
        self.inner.ctx.shutdown_token()
    }

    /// The server begins to shut down: from now on new work is refused (`http`), waiting
    /// approvals are denied saying why, and each agent's distil turn has one `--stop-grace`.
    pub fn close(&self) {
        if !self.inner.ctx.closing_token().is_cancelled() {
            tracing::info!("closing: new work is refused, waiting approvals denied");
        }
        self.inner.ctx.closing_token().cancel();
    }

    /// This server's background work (`crate::tasks`): every watcher and every request carried
    /// on in the background.
    pub fn tasks(&self) -> &crate::tasks::Tasks {
        self.inner.ctx.tasks()
    }

    /// Cancelled when the server begins to shut down ([`Runtime::close`]).
    pub fn closing_token(&self) -> CancellationToken {
        self.inner.ctx.closing_token()
    }

    /// Whether the server is shutting down ([`Runtime::close`]).
    pub fn is_closing(&self) -> bool {
        self.inner.ctx.closing_token().is_cancelled()
    }

    /// The server's one clock: ages (eggs, stalled stages, stale jobs) are read on it.
    pub fn clock(&self) -> &Clock {
        self.inner.ctx.clock()
    }

    pub fn recorder(&self) -> &Recorder {
        self.inner.ctx.recorder()
    }

    /// The display name of the agent in `seat` (the lead's configured name for the lead).
    pub fn seat_name(&self, seat: Seat) -> Option<String> {
        self.inner.ctx.seat_name(seat)
    }

    /// The inbox name of the agent in `seat` (derived from its name when it registered).
    pub fn seat_inbox(&self, seat: Seat) -> Option<String> {
        self.inner.ctx.seat_inbox(seat)
    }

    /// The human's inbox name, derived from the human's name (`first.last` → `first-last`).
    pub fn human_inbox(&self) -> String {
        self.inner.ctx.human_inbox()
    }

    // The processes (`process/`).

    /// Seats with a running process.
    pub fn running(&self) -> Vec<Seat> {
        self.inner.processes.running()
    }

    /// Whether agents' processes are kept in cgroups (else found by a scan at each stop).
    pub fn contained_by_cgroups(&self) -> bool {
        self.inner.processes.containment().uses_cgroups()
    }

    pub(crate) fn containment(&self) -> &contain::Containment {
        self.inner.processes.containment()
    }

    /// Asks the seat's process to stop (or not to start) at once; returns once it has stopped
    /// and its `stopped` event is recorded (`Table::stop`).
    pub async fn stop(&self, seat: Seat, reason: &str) {
        self.inner.processes.table().stop(seat, reason).await
    }

    /// Puts the seat's agent to sleep: its distil turn, its knowledge captured, then the stop.
    pub async fn sleep(&self, seat: Seat, reason: &str) {
        self.inner.processes.table().sleep(seat, reason).await
    }

    /// Puts every agent to sleep, all at once (each distils in parallel); no restart under
    /// way starts one again.
    pub async fn stop_all(&self, reason: &str) {
        self.inner.processes.table().stop_all(reason).await
    }

    /// Asks the agent's process to stop its current turn; the process stays.
    pub async fn interrupt(&self, seat: Seat) -> Result<(), RuntimeError> {
        self.inner.processes.interrupt(seat).await
    }

    // Mail (`mail/`).

    /// A message from the human to the agent in `seat` (`mail::tell`).
    pub async fn tell_from_human(
        &self,
        seat: Seat,
        text: &str,
        msg_id: Option<String>,
    ) -> Result<(u64, Delivery), TellError> {
        self.inner.postman.tell_from_human(seat, text, msg_id).await
    }

    /// A post in #team from the human (`mail::channel`).
    pub async fn post_to_team(&self, text: &str) -> Result<Posted, PostError> {
        let human = self.inner.ctx.names().human.clone();
        self.inner.postman.post_to_team(None, &human, text).await
    }

    /// Delivers mail anyone appends to an awake agent's inbox, as the inbox directory changes.
    pub async fn watch_mail(&self) {
        self.inner.postman.watch_mail().await
    }

    /// Starts the tasks that file agents' words in the human's inbox and post in #team the
    /// answers of those a #team post mentioned; they end with the server.
    pub fn file_replies(&self) {
        mail::replies::Replies::new(&self.inner.ctx, self.inner.background.clone()).start();
        mail::team_answers::TeamAnswers::new(&self.inner.ctx).start();
    }

    // Folders (`folder/`).

    /// Starts the task that keeps every agent's `_state.md` current; it ends with the server.
    pub fn keep_state_files(&self) {
        folder::state_file::StateFiles::new(
            &self.inner.ctx,
            self.inner.postman.inboxes_changed(),
            self.inner.background.clone(),
        )
        .start();
    }

    /// The human writes `text` into `path` of the vault of the identity `id` (empty text
    /// removes the file): a new version by the human, the file in its folder if it is seated,
    /// and a message telling the agent, delivered at once if it is awake, else when it wakes.
    pub async fn edit_knowledge(&self, id: &str, path: &str, text: &str) -> Result<u32, EditError> {
        let edited = self.inner.folders.edit(id, path, text).await?;
        match (edited.seat, edited.inbox) {
            // As `/api/send` takes it: recorded in its thread, delivered now if it is awake.
            (Some(seat), _) => {
                if let Err(e) = self.tell_from_human(seat, &edited.note, None).await {
                    tracing::warn!(seat, error = %e, "the agent could not be told of the edit");
                }
            }
            // In the Hall: the message waits in its inbox for its recall.
            (None, Some(inbox)) => self.inner.postman.leave_note(inbox, edited.note).await,
            (None, None) => {}
        }
        Ok(edited.version)
    }

    /// Takes the awake identity `id`'s vault from its folder now.
    pub async fn capture_knowledge(
        &self,
        id: &str,
    ) -> Result<app::contract::KnowledgeCaptured, CaptureError> {
        self.inner.folders.capture_now(id).await
    }

    // The team (`team/`).

    /// SUMMON into the empty seats among `seats` (every empty seat when `None`).
    pub async fn summon_only(
        &self,
        seats: Option<&[Seat]>,
    ) -> Result<Vec<Seat>, crate::store::StoreError> {
        self.inner.team.summon_only(seats).await
    }

    /// WAKE of the sleeping agents among `seats` (all when `None`); the jobs that waited are
    /// offered to those woken.
    pub async fn wake_only(&self, seats: Option<&[Seat]>) -> Vec<Seat> {
        self.inner.quests.wake(seats).await
    }

    /// Every 30 s, eggs that never hatched expire.
    pub fn expire_hatching(&self) {
        self.inner.team.expire_hatching()
    }

    /// One pass of [`Runtime::expire_hatching`], as of now on the server's clock.
    pub async fn expire_hatching_now(&self) {
        self.inner.team.expire_hatching_now().await
    }

    /// Forks the agent in `parent` into `seat` (or the first empty seat).
    pub async fn fork(
        &self,
        parent: Seat,
        message: Option<(String, String)>,
        seat: Option<Seat>,
    ) -> Result<Seated, ForkError> {
        self.inner.team.fork(parent, message, seat).await
    }

    /// Retires the identity in `seat` (with `cascade`, its seated descendants first).
    pub async fn retire_branch(
        &self,
        seat: Seat,
        reason: &str,
        cascade: bool,
    ) -> Result<Vec<String>, HallError> {
        self.inner.team.retire_branch(seat, reason, cascade).await
    }

    /// Seats the retired identity `id` again and wakes it (the jobs that waited offered).
    pub async fn recall(&self, id: &str, seat: Option<Seat>) -> Result<Seated, HallError> {
        let (seated, woken) = self.inner.team.recall(id, seat).await?;
        if woken {
            self.inner.quests.offer_stale_jobs(&[seated.seat]).await;
        }
        Ok(seated)
    }
}
