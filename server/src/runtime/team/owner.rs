//! The runtime as the owner of its processes: it starts one into a reserved seat, hands what
//! its supervisor reports to the rest of the runtime, records how it ended and decides whether
//! a fresh session follows (a session the CLI could not resume). Ownership is one way: a
//! supervisor reports here and never calls the runtime.

use app::domain::events::EventKind;
use app::domain::process::ProcessState;

use crate::runtime::error::RuntimeError;
use crate::runtime::process::spawn::{self, Spec, Started};
use crate::runtime::process::supervisor::{Exit, Report};
use crate::runtime::process::table::{Live, Reservation};
use crate::runtime::Runtime;

impl Runtime {
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
        let started = spawn::spawn(self, &spec, reservation.stop_signal().clone()).await?;
        reservation.install(started.live.clone());
        let rt = self.clone();
        tokio::spawn(async move { rt.own(reservation, spec, started).await });
        Ok(())
    }

    /// Runs one seat's process to its end (and a fresh one, if the session could not be
    /// resumed), then records that it stopped and frees the seat.
    async fn own(self, reservation: Reservation, mut spec: Spec, mut started: Started) {
        let seat = spec.seat;
        loop {
            let exit = self.supervise(started).await;
            if !exit.retry_fresh || spec.resume.is_none() {
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
                self.record(events).await;
                // The event first, then the seat is free: whoever awaited the stop finds the
                // seat asleep in the documents.
                drop(reservation);
                return;
            }
            tracing::warn!(seat, why = %exit.reason, "could not resume the Claude session; starting a fresh one");
            self.record(vec![EventKind::RuntimeError {
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
            started = match spawn::spawn(&self, &spec, reservation.stop_signal().clone()).await {
                Ok(s) => s,
                // Recorded as stopped by `spawn`.
                Err(_) => return,
            };
            reservation.install(started.live.clone());
        }
    }

    /// Runs the supervisor in its own task (a panic there ends only this process) and hands
    /// on what it reports until it ends.
    async fn supervise(&self, started: Started) -> Exit {
        let Started {
            supervisor,
            mut reports,
            live,
        } = started;
        let seat = supervisor.seat;
        let mut task = tokio::spawn(supervisor.run());
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

    async fn on_report(&self, seat: app::domain::Seat, live: &Live, report: Report) {
        match report {
            Report::Taken(uuid) => self.mark_taken(seat, live, &uuid).await,
            Report::Asked(request_id) => self.permissions().deny_when_unanswered(request_id),
            // In order, one at a time: a finding before the `stage_done` after it, a claim
            // before its `job_done`.
            Report::Request(crate::runtime::process::turn::LeadRequest::Quest(request)) => {
                self.enqueue_quest(request)
            }
            // Its own task: a request may stop the very process that asked.
            Report::Request(request) => {
                tokio::spawn(crate::runtime::team::requests::handle(
                    self.clone(),
                    request,
                ));
            }
        }
    }
}
