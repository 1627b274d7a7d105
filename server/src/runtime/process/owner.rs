//! The process room's owner: it starts a process into a reserved seat, hands what its
//! supervisor reports to whoever the runtime named for that ([`Reports`]), records how it ended
//! and decides whether a fresh session follows (a session the CLI could not resume). Ownership
//! is one way: a supervisor reports here and never calls anything above it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::Seat;

use crate::runtime::context::Context;
use crate::runtime::error::RuntimeError;
use crate::runtime::folder::knowledge::Folders;
use crate::runtime::process::contain::Containment;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::process::pipes::STDIN_SEND_TIMEOUT;
use crate::runtime::process::protocol;
use crate::runtime::process::spawn::{self, Spawner, Spec, Started};
use crate::runtime::process::supervisor::{Exit, Report};
use crate::runtime::process::table::{Live, Reservation, Table};

/// Where a process's reports go (the runtime's switchboard): mail taken, a permission asked,
/// a marker's request. Reports of one process are handed over one at a time, in order.
pub trait Reports: Send + Sync + 'static {
    fn report<'a>(
        &'a self,
        seat: Seat,
        live: &'a Live,
        report: Report,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
}

/// The agents' processes: who runs where, how one is started, and the task that owns it.
#[derive(Clone)]
pub struct Processes {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) table: Table,
    pub(in crate::runtime) spawner: Spawner,
    pub(in crate::runtime) reports: Arc<dyn Reports>,
}

impl Processes {
    pub fn new(ctx: Context, folders: Folders, reports: Arc<dyn Reports>) -> Self {
        let spawner = Spawner {
            containment: Arc::new(Containment::new(ctx.config().agents.containment)),
            ctx: ctx.clone(),
            folders,
            naming: Default::default(),
        };
        Processes {
            ctx,
            table: Table::default(),
            spawner,
            reports,
        }
    }

    /// Who runs where.
    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn containment(&self) -> &Containment {
        &self.spawner.containment
    }

    /// Seats with a running process.
    pub fn running(&self) -> Vec<Seat> {
        self.table.running()
    }

    /// Holds `seat` for a new process; fails if it has one or one is starting.
    pub fn reserve(&self, seat: Seat) -> Result<Reservation, RuntimeError> {
        self.table.reserve(seat)
    }

    /// Gives a running process a user message (one turn): one line on its stdin, bounded.
    pub async fn send_to(
        &self,
        seat: Seat,
        live: &Live,
        message: Outgoing,
    ) -> Result<(), RuntimeError> {
        self.within_budget(seat).await?;
        crate::runtime::process::outgoing::send_to(&self.ctx.config().data_dir, seat, live, message)
            .await
    }

    /// Refuses a new turn (a message, a start) to an agent whose budget, or the team's, is
    /// reached at this moment; the seat says why (once, while it stays so).
    pub(in crate::runtime) async fn within_budget(&self, seat: Seat) -> Result<(), RuntimeError> {
        let now = self.ctx.clock().now_ms();
        let over = self.ctx.store().with_docs(|d| {
            let who = app::domain::docs::identity(d, seat)?;
            let hit = app::domain::budget::reached(d, &who.stable_id(), now)?;
            let e = RuntimeError::OverBudget(seat, hit.words());
            let said = who
                .last_problem
                .as_ref()
                .is_some_and(|p| p.message == e.to_string());
            Some((e, said))
        });
        let Some((e, said)) = over else {
            return Ok(());
        };
        if !said {
            tracing::warn!(seat, "{e}");
            self.ctx
                .record(vec![app::domain::events::EventKind::RuntimeError {
                    seat: Some(seat),
                    message: e.to_string(),
                }])
                .await;
        }
        Err(e)
    }

    /// The seat's running process, or the one starting there once it runs (bounded).
    pub async fn live_soon(&self, seat: Seat, limit: Duration) -> Option<Live> {
        self.table.live_soon(seat, limit).await
    }

    /// Asks the agent's process to stop its current turn (`control_request` interrupt); the
    /// process stays. An agent between turns is left as it is: nothing would end the
    /// "interrupting" (no `result` comes).
    pub async fn interrupt(&self, seat: Seat) -> Result<(), RuntimeError> {
        let live = self
            .table
            .live(seat)
            .ok_or(RuntimeError::NotRunning(seat))?;
        if !live.is_busy() {
            return Err(RuntimeError::NotWorking(seat));
        }
        let request_id = format!("interrupt-{}", uuid::Uuid::new_v4().simple());
        self.ctx
            .record(vec![spawn::process_event(
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

    /// Starts a process for `spec.seat`, which must be free; returns once it runs.
    pub(in crate::runtime) async fn start(&self, spec: Spec) -> Result<(), RuntimeError> {
        let reservation = self.reserve(spec.seat)?;
        self.start_reserved(reservation, spec).await
    }

    /// Starts a process into a seat reserved for it; returns once it runs. Its owner task
    /// keeps the reservation until the process has stopped for good.
    pub(in crate::runtime) async fn start_reserved(
        &self,
        reservation: Reservation,
        spec: Spec,
    ) -> Result<(), RuntimeError> {
        self.within_budget(spec.seat).await?;
        let started = self
            .spawner
            .spawn(&spec, reservation.stop_signal().clone())
            .await?;
        reservation.install(started.live.clone());
        let owner = self.clone();
        let seat = spec.seat;
        self.ctx
            .spawn(async move { owner.own(reservation, seat, Some(spec), started).await });
        Ok(())
    }

    /// Runs a process that is not a Claude CLI (an external agent's connection) in a seat
    /// reserved for it, owned as any process is: its reports handed on, its stop recorded,
    /// the seat freed when it ends.
    pub(in crate::runtime) fn run_reserved(&self, reservation: Reservation, started: Started) {
        reservation.install(started.live.clone());
        let owner = self.clone();
        let seat = reservation.seat();
        self.ctx
            .spawn(async move { owner.own(reservation, seat, None, started).await });
    }

    /// Runs one seat's process to its end (and a fresh one, if the session could not be
    /// resumed), then records that it stopped and frees the seat.
    async fn own(
        self,
        reservation: Reservation,
        seat: Seat,
        mut spec: Option<Spec>,
        mut started: Started,
    ) {
        loop {
            let exit = self.supervise(seat, started).await;
            let fresh = spec
                .as_mut()
                .filter(|s| exit.retry_fresh && s.resume.is_some());
            let Some(spec) = fresh else {
                tracing::info!(seat, reason = %exit.reason, "agent process stopped");
                let mut events = vec![spawn::process_event(
                    seat,
                    ProcessState::Stopped,
                    Some(exit.reason),
                    None,
                )];
                events.extend(exit.problem.map(|message| EventKind::RuntimeError {
                    seat: Some(seat),
                    message,
                }));
                // The process is gone: no longer running, though the seat stays held until its
                // stop is recorded (whoever sees the seat asleep finds it not running).
                reservation.uninstall();
                self.ctx.record(events).await;
                // The event first, then the seat is free: whoever awaited the stop finds the
                // seat asleep in the documents.
                drop(reservation);
                return;
            };
            tracing::warn!(seat, why = %exit.reason, "could not resume the Claude session; starting a fresh one");
            self.ctx
                .record(vec![EventKind::RuntimeError {
                    seat: Some(seat),
                    message: format!(
                        "could not resume the last Claude session ({}); started a fresh one",
                        exit.reason
                    ),
                }])
                .await;
            reservation.uninstall();
            spec.resume = None;
            spec.fork = false;
            started = match self
                .spawner
                .spawn(spec, reservation.stop_signal().clone())
                .await
            {
                Ok(s) => s,
                // Recorded as stopped by `spawn`.
                Err(_) => return,
            };
            reservation.install(started.live.clone());
        }
    }

    /// Runs the supervisor in its own task (a panic there ends only this process) and hands
    /// on what it reports until it ends.
    async fn supervise(&self, seat: Seat, started: Started) -> Exit {
        let Started {
            run,
            mut reports,
            live,
        } = started;
        let mut task = self.ctx.spawn(run);
        let exit = loop {
            tokio::select! {
                Some(report) = reports.recv() => self.on_report(seat, &live, report).await,
                exit = &mut task => break exit,
            }
        };
        // What it reported last, before it ended.
        while let Ok(report) = reports.try_recv() {
            self.on_report(seat, &live, report).await;
        }
        exit.unwrap_or_else(|e| {
            tracing::error!(seat, error = %e, "the supervisor of an agent process failed");
            Exit {
                reason: format!("supervisor failed: {e}"),
                problem: None,
                retry_fresh: false,
            }
        })
    }

    async fn on_report(&self, seat: Seat, live: &Live, report: Report) {
        self.reports.report(seat, live, report).await
    }
}
