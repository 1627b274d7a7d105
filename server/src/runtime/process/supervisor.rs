//! The supervisor of one Claude process. It owns the child: reads its stdout line by line into
//! events (recorded in the store), keeps a watchdog on silence mid-turn and an inactivity
//! timeout when idle, and stops it (its whole process group, bounded) when asked. It reports
//! to its one owner, the runtime, through a channel (what the agent asked for) and its return
//! value (how it ended); it never calls back into the runtime.

use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use app::domain::Seat;
use futures::StreamExt;
use tokio::process::{Child, ChildStdout};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use crate::runtime::process::group::{self, Group};
use crate::runtime::process::lines::LineCodec;
use crate::runtime::process::table::{Keep, Live, StopSignal};
use crate::runtime::process::turn::{LeadRequest, Translator};
use crate::runtime::record::Recorder;

/// What a supervisor tells its owner while the process runs.
#[derive(Debug)]
pub enum Report {
    /// The agent asked for something with a marker, or with a tool call that waits for the
    /// answer.
    Request(LeadRequest, Option<crate::runtime::process::answer::Answer>),
    /// A permission request now waits for an answer.
    Asked(String),
    /// The agent took the user message with this uuid (the CLI echoed it).
    Taken(String),
}

/// How a process ended.
#[derive(Debug)]
pub struct Exit {
    pub reason: String,
    /// A problem to show on the seat with the stop (its output could not be stored).
    pub problem: Option<String>,
    /// The session it was to resume could not be resumed: a fresh one should be tried.
    pub retry_fresh: bool,
}

/// Timing of the watchdogs and of a stop.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub stuck_after: Duration,
    pub idle_timeout: Duration,
    pub stop_grace: Duration,
    /// The distil turn before a sleep takes at most this long.
    pub distill_timeout: Duration,
}

/// What the letters a supervisor sends are filled with.
#[derive(Clone, Debug)]
pub struct Letters {
    pub data_dir: std::path::PathBuf,
    pub names: crate::runtime::config::Names,
}

pub struct Supervisor {
    pub seat: Seat,
    pub child: Child,
    pub group: Option<Group>,
    pub lines: FramedRead<ChildStdout, LineCodec>,
    pub stderr: tokio::task::JoinHandle<Option<String>>,
    pub live: Live,
    pub stop: StopSignal,
    pub shutdown: CancellationToken,
    /// The server is shutting down: the distil turn has one stop's grace.
    pub closing: CancellationToken,
    pub translator: Translator,
    pub recorder: Recorder,
    pub reports: mpsc::UnboundedSender<Report>,
    /// It was started to resume a session: a failure to resume asks for a fresh start.
    pub resuming: bool,
    pub timing: Timing,
    /// Set when events of this process could not be stored: it is stopped rather than left
    /// running with state nobody stored.
    pub unrecorded: Option<String>,
    /// Held while a newborn's line is translated and recorded (see `Processes::naming`).
    pub naming: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Its own output asked for it to be stopped, for this reason.
    pub stop_asked: Option<String>,
    /// Events of lines read in one burst, recorded with the burst's last (see
    /// [`Supervisor::burst`]).
    pub pending: Vec<EventKind>,
    /// User messages (by uuid) the agent took in the burst, reported once the burst's events
    /// are stored: marking their mail read (files written) then follows the turn's reply
    /// rather than racing it to the disk.
    pub taken: Vec<String>,
    /// Its working directory: its vault, its git repository, its `_state.md`.
    pub workdir: std::path::PathBuf,
    /// The identity it runs for, and the folder's last commit seen.
    pub folder: crate::runtime::folder::knowledge::Folder,
    pub letters: Letters,
    /// Makes its work-state commits beside the read loop.
    pub committer: crate::runtime::folder::commits::Committer,
    /// Work-state commits queued in the current turn.
    pub commits_in_turn: u32,
    /// Where its process and all it starts live (emptied when it stops).
    pub place: Option<crate::runtime::process::contain::Place>,
}

/// Why the read loop ended.
pub(in crate::runtime) enum End {
    /// Stdout closed: the process is exiting (or closed it and lives on).
    Eof,
    /// The process exited (its stdout may still be held open by a background job).
    Exited(std::io::Result<std::process::ExitStatus>),
    /// We stop it, for this reason, keeping what [`Keep`] says first.
    Stop(String, Keep),
}

/// What the read loop keeps between lines.
pub(in crate::runtime) struct Progress {
    pub(in crate::runtime) started: bool,
    pub(in crate::runtime) resume_failed: bool,
    pub(in crate::runtime) skipped: usize,
    /// Which kinds of bad line were said on the seat already (each is said once).
    pub(in crate::runtime) said_too_long: bool,
    pub(in crate::runtime) said_not_utf8: bool,
    /// The current silence was reported already.
    pub(in crate::runtime) reported_stuck: bool,
    pub(in crate::runtime) last_output: Instant,
    pub(in crate::runtime) idle_since: Instant,
    /// Turns ended (`result`s) so far.
    pub turns_done: u64,
    /// The distil letter's uuid, and `turns_done` when the agent took it.
    pub distil: Option<(String, Option<u64>)>,
}

impl Supervisor {
    pub async fn run(mut self) -> Exit {
        let mut p = Progress {
            started: false,
            resume_failed: false,
            skipped: 0,
            said_too_long: false,
            said_not_utf8: false,
            reported_stuck: false,
            last_output: Instant::now(),
            idle_since: Instant::now(),
            turns_done: 0,
            distil: None,
        };
        let end = self.read(&mut p).await;
        let reason = self.finish(end, &mut p).await;
        if let Some(g) = self.group {
            g.kill_rest();
        }
        // Everything it started, in any session or group (the Bash tool's shell is detached).
        if let Some(place) = self.place.take() {
            let _ = tokio::task::spawn_blocking(move || place.kill_all()).await;
        }
        let committer = std::mem::replace(
            &mut self.committer,
            crate::runtime::folder::commits::Committer::closed(),
        );
        committer.close().await;
        let retry_fresh = (p.resume_failed || (!p.started && self.resuming))
            && !self.shutdown.is_cancelled()
            && !self.stop.is_requested();
        Exit {
            reason,
            problem: self
                .unrecorded
                .take()
                .map(|e| format!("stopped: what the agent said could not be recorded ({e})")),
            retry_fresh,
        }
    }

    /// Reads stdout until the process ends or is to be stopped.
    async fn read(&mut self, p: &mut Progress) -> End {
        let timing = self.timing;
        let mut tick = tokio::time::interval(Duration::from_millis(
            (timing.stuck_after.min(timing.idle_timeout).as_millis() as u64 / 4).clamp(20, 1000),
        ));
        loop {
            tokio::select! {
                line = self.lines.next() => {
                    let end = self.burst(line, p).await;
                    if self.unrecorded.is_some() {
                        return End::Stop("its output could not be recorded".into(), Keep::Nothing);
                    }
                    if let Some(reason) = self.stop_asked.take() {
                        return End::Stop(reason, Keep::Nothing);
                    }
                    if let Some(end) = end {
                        return end;
                    }
                },
                status = self.child.wait() => return End::Exited(status),
                reason = self.stop.requested() => return End::Stop(reason, self.stop.keep()),
                _ = self.shutdown.cancelled() => return End::Stop("server shutdown".into(), Keep::Distilled),
                _ = tick.tick() => {
                    if let Some(end) = self.watchdogs(p).await {
                        return end;
                    }
                }
            }
        }
    }

    /// A turn silent for too long is reported (once); an agent idle for too long is stopped.
    async fn watchdogs(&mut self, p: &mut Progress) -> Option<End> {
        let busy = self.live.is_busy();
        let silent = p.last_output.elapsed();
        if busy && !p.reported_stuck && silent >= self.timing.stuck_after && !self.asking() {
            p.reported_stuck = true;
            tracing::warn!(seat = self.seat, "no output for {silent:?} mid-turn");
            self.record(vec![EventKind::RuntimeError {
                seat: Some(self.seat),
                message: format!(
                    "stuck: no output for {} s in the middle of a turn",
                    silent.as_secs()
                ),
            }])
            .await;
        }
        (!busy && p.idle_since.elapsed() >= self.timing.idle_timeout)
            .then(|| End::Stop("inactivity".into(), Keep::Distilled))
    }

    /// Ends the process as `end` says; returns why it stopped.
    async fn finish(&mut self, end: End, p: &mut Progress) -> String {
        match end {
            End::Stop(reason, keep) => {
                // A sleep keeps what the agent knows: its distil turn, then its vault; a pause
                // lets its turn end and keeps its vault.
                let named = self.translator.name().is_some() && !self.translator.is_summoning();
                if named && keep != Keep::Nothing {
                    match keep {
                        Keep::Distilled => self.distil(&reason, p).await,
                        _ => self.end_turn(p).await,
                    }
                    self.capture_knowledge(&reason, false).await;
                    self.log_logout(&reason);
                }
                group::terminate(&mut self.child, self.group, self.timing.stop_grace).await;
                reason
            }
            End::Eof => self.wait_exit().await,
            End::Exited(status) => {
                // What it wrote before exiting is still in the pipe: read it, bounded (a job
                // it left running may hold the pipe open until the group is killed).
                if let Some(g) = self.group {
                    g.kill_rest();
                }
                let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
                while let Ok(Some(Ok(line))) =
                    tokio::time::timeout_at(deadline, self.lines.next()).await
                {
                    self.take(line, p, Batching::AtOnce).await;
                }
                self.exit_reason(status).await
            }
        }
    }

    /// Waiting for the permission's answer is not being stuck.
    fn asking(&self) -> bool {
        self.recorder
            .store
            .with_docs(|d| !app::domain::docs::pending(d, self.seat).is_empty())
    }

    /// Stdout is closed: waits for the process to exit, still answering a stop (a process
    /// can close stdout and live on).
    async fn wait_exit(&mut self) -> String {
        let status = tokio::select! {
            status = self.child.wait() => status,
            reason = self.stop.requested() => {
                group::terminate(&mut self.child, self.group, self.timing.stop_grace).await;
                return reason;
            }
            _ = self.shutdown.cancelled() => {
                group::terminate(&mut self.child, self.group, self.timing.stop_grace).await;
                return "server shutdown".into();
            }
        };
        self.exit_reason(status).await
    }

    /// "exited", or how it crashed with its last stderr line (which often says why).
    async fn exit_reason(&mut self, status: std::io::Result<std::process::ExitStatus>) -> String {
        let reason = match status {
            Ok(status) if status.success() => return "exited".to_string(),
            Ok(status) => match status.code() {
                Some(code) => format!("crashed with exit code {code}"),
                None => format!("crashed ({status})"),
            },
            Err(e) => format!("lost: {e}"),
        };
        // The drain ends when the pipe closes (the group is killed by now).
        match tokio::time::timeout(Duration::from_millis(500), &mut self.stderr).await {
            Ok(Ok(Some(last))) => format!("{reason}: {last:.300}"),
            _ => reason,
        }
    }
}

/// How a line's events are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::runtime) enum Batching {
    /// At once (the distil turn, the lines drained after an exit).
    AtOnce,
    /// With the rest of the burst, unless something waits on them.
    Burst,
}
