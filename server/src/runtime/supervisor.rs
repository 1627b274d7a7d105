//! The supervisor of one Claude process. It owns the child: reads its stdout line by line into
//! events (recorded in the store), keeps a watchdog on silence mid-turn and an inactivity
//! timeout when idle, and stops it (its whole process group, bounded) when asked. It reports
//! to its one owner, the runtime, through a channel (what the agent asked for) and its return
//! value (how it ended); it never calls back into the runtime.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use app::domain::Seat;
use futures::StreamExt;
use tokio::process::{Child, ChildStdout};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use super::group::{self, Group};
use super::lines::{Line, LineCodec};
use super::protocol::{parse_line, CliLine};
use super::table::{Live, StopSignal};
use super::turn::{LeadRequest, Translator};
use super::Recorder;

/// Most lines one burst takes before its events are stored.
const BURST: usize = 64;

/// What a supervisor tells its owner while the process runs.
#[derive(Debug)]
pub enum Report {
    /// The agent asked for something with a marker.
    Request(LeadRequest),
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
    pub names: super::prompts::Names,
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
    pub translator: Translator,
    pub recorder: Recorder,
    pub reports: mpsc::UnboundedSender<Report>,
    /// It was started to resume a session: a failure to resume asks for a fresh start.
    pub resuming: bool,
    pub timing: Timing,
    /// Set when events of this process could not be stored: it is stopped rather than left
    /// running with state nobody stored.
    pub unrecorded: Option<String>,
    /// Held while a newborn's line is translated and recorded (see `Inner::naming`).
    pub naming: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Its own output asked for it to be stopped, for this reason.
    pub stop_asked: Option<String>,
    /// Events of lines read in one burst, recorded with the burst's last (see [`Self::burst`]).
    pub pending: Vec<EventKind>,
    /// Reading a burst: the events of a line that needs nothing of them wait in `pending`.
    pub in_burst: bool,
    /// Its working directory: its vault, its git repository, its `_state.md`.
    pub workdir: std::path::PathBuf,
    /// The identity it runs for, and the folder's last commit seen.
    pub folder: super::vault::Folder,
    pub letters: Letters,
}

/// Why the read loop ended.
enum End {
    /// Stdout closed: the process is exiting (or closed it and lives on).
    Eof,
    /// The process exited (its stdout may still be held open by a background job).
    Exited(std::io::Result<std::process::ExitStatus>),
    /// We stop it, for this reason: at once, or (`sleep`) after its distil turn.
    Stop(String, bool),
}

/// What the read loop keeps between lines.
pub(super) struct Progress {
    started: bool,
    resume_failed: bool,
    skipped: usize,
    /// Which kinds of bad line were said on the seat already (each is said once).
    said_too_long: bool,
    said_not_utf8: bool,
    /// The current silence was reported already.
    reported_stuck: bool,
    last_output: Instant,
    idle_since: Instant,
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
                        return End::Stop("its output could not be recorded".into(), false);
                    }
                    if let Some(reason) = self.stop_asked.take() {
                        return End::Stop(reason, false);
                    }
                    if let Some(end) = end {
                        return end;
                    }
                },
                status = self.child.wait() => return End::Exited(status),
                reason = self.stop.requested() => return End::Stop(reason, self.stop.is_sleep()),
                _ = self.shutdown.cancelled() => return End::Stop("server shutdown".into(), true),
                _ = tick.tick() => {
                    if let Some(end) = self.watchdogs(p).await {
                        return end;
                    }
                }
            }
        }
    }

    /// `first` and the lines already read behind it (what the process wrote together), taken
    /// as one burst: their events are stored in one transaction, so a turn's lines written at
    /// once (init, text, result) reach the stream after one fsync rather than one each. A line
    /// whose events something else waits on (a transition's commit, a name, a reply on stdin,
    /// a request to the owner, the turn's end) records what is pending with its own at once.
    /// Nothing waits in `pending` past the burst. `Some` when stdout ended.
    async fn burst(
        &mut self,
        first: Option<Result<Line, std::io::Error>>,
        p: &mut Progress,
    ) -> Option<End> {
        use futures::FutureExt;
        let mut next = first;
        let mut taken = 0;
        self.in_burst = true;
        let end = loop {
            match next {
                Some(Ok(line)) => {
                    p.reported_stuck = false;
                    self.take(line, p).await;
                    taken += 1;
                }
                Some(Err(e)) => {
                    // Only a read error of the pipe itself: the process is going.
                    tracing::warn!(seat = self.seat, error = %e, "reading stdout failed");
                    break Some(End::Eof);
                }
                None => break Some(End::Eof),
            }
            let stopping = self.unrecorded.is_some() || self.stop_asked.is_some();
            if stopping || taken == BURST {
                break None;
            }
            // Only what is there already: the stream's next line is cancel-safe.
            match self.lines.next().now_or_never() {
                Some(line) => next = line,
                None => break None,
            }
        };
        self.in_burst = false;
        self.record(Vec::new()).await;
        end
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
            .then(|| End::Stop("inactivity".into(), true))
    }

    /// Ends the process as `end` says; returns why it stopped.
    async fn finish(&mut self, end: End, p: &mut Progress) -> String {
        match end {
            End::Stop(reason, sleep) => {
                // A sleep keeps what the agent knows: its distil turn, then its vault.
                if sleep && self.translator.name().is_some() && !self.translator.is_summoning() {
                    self.distil(&reason, p).await;
                    self.capture_vault(&reason, false).await;
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
                    self.take(line, p).await;
                }
                self.exit_reason(status).await
            }
        }
    }

    /// One line of stdout: translated and recorded, or (a bad line) skipped and said once.
    pub(super) async fn take(&mut self, line: Line, p: &mut Progress) {
        p.last_output = Instant::now();
        let line = match line {
            Line::Text(line) => line,
            bad => {
                p.skipped += 1;
                let what = bad.skipped().unwrap_or_default();
                tracing::warn!(
                    seat = self.seat,
                    skipped = p.skipped,
                    "stdout: skipped {what}"
                );
                let said = match bad {
                    Line::TooLong(_) => &mut p.said_too_long,
                    _ => &mut p.said_not_utf8,
                };
                if !std::mem::replace(said, true) {
                    self.record(vec![EventKind::RuntimeError {
                        seat: Some(self.seat),
                        message: format!("the agent's output had {what}; it was skipped"),
                    }])
                    .await;
                }
                return;
            }
        };
        let Ok(cli) = parse_line(&line) else {
            tracing::warn!(seat = self.seat, "unreadable stdout line: {line:.300}");
            return;
        };
        match &cli {
            CliLine::User {
                is_replay: true,
                uuid: Some(uuid),
                ..
            } => {
                if let Some((letter, taken @ None)) = &mut p.distil {
                    if letter == uuid {
                        *taken = Some(p.turns_done);
                    }
                }
                let _ = self.reports.send(Report::Taken(uuid.clone()));
                return;
            }
            CliLine::System { subtype, .. } if subtype == "init" => {
                p.started = true;
                self.live.busy.store(true, Ordering::SeqCst);
            }
            // A session that cannot be resumed ends at once with an error result and no
            // turn: not the agent's turn; a fresh start follows.
            CliLine::Result(_) if !p.started && self.resuming => {
                p.resume_failed = true;
                return;
            }
            _ => {}
        }
        if self.on_line(&cli).await {
            p.idle_since = Instant::now();
            p.turns_done += 1;
            // Commits the agent made itself in this turn are its state reports.
            self.scan_own_commits().await;
        }
    }

    /// Records events; one that cannot be stored (after the recorder's retries) marks the
    /// process for stopping. What a burst left pending goes first, in the same transaction.
    pub(super) async fn record(&mut self, events: Vec<EventKind>) {
        let events = match self.pending.is_empty() {
            true => events,
            false => {
                let mut all = std::mem::take(&mut self.pending);
                all.extend(events);
                all
            }
        };
        if let Err(e) = self.recorder.record(events).await {
            self.unrecorded.get_or_insert_with(|| e.to_string());
        }
    }

    /// Waiting for the permission's answer is not being stuck.
    fn asking(&self) -> bool {
        self.recorder
            .store
            .with_docs(|d| !app::domain::docs::pending(d, self.seat).is_empty())
    }

    /// Translates and records one line; true when it ended a turn.
    async fn on_line(&mut self, cli: &CliLine) -> bool {
        // A newborn's name is checked against the documents and recorded before another
        // newborn's is checked.
        let naming = self.naming.clone();
        let summoning = self.translator.is_summoning();
        let _naming = match summoning {
            true => Some(naming.lock().await),
            false => None,
        };
        let translator = &mut self.translator;
        let out = self
            .recorder
            .store
            .with_docs(|docs| translator.on_line(cli, docs));
        if out.turn_done {
            self.live.busy.store(false, Ordering::SeqCst);
        }
        // Each validated transition is recorded, then committed, before what follows it: the
        // commit holds `_state.md` as it was at that state.
        let mut transitions = out.transitions.iter();
        let mut batch = Vec::new();
        for event in out.events {
            let transition = matches!(event, EventKind::WorkState { .. });
            batch.push(event);
            if transition {
                self.record(std::mem::take(&mut batch)).await;
                if let Some(t) = transitions.next() {
                    self.commit_transition(t).await;
                }
            }
        }
        // Nothing waits for these but the stream: they go with the burst's next commit.
        let waited_on = summoning
            || out.turn_done
            || out.stop.is_some()
            || !out.replies.is_empty()
            || !out.asked.is_empty()
            || !out.requests.is_empty();
        if self.in_burst && !waited_on {
            self.pending.extend(batch);
        } else {
            self.record(batch).await;
        }
        drop(_naming);
        if out.stop.is_some() {
            self.stop_asked = out.stop;
        }
        for line in out.replies {
            let _ = self.live.stdin.send(line).await;
        }
        let reports = out
            .asked
            .into_iter()
            .map(Report::Asked)
            .chain(out.requests.into_iter().map(Report::Request));
        for report in reports {
            // The owner outlives its supervisor; nobody listening means shutting down.
            let _ = self.reports.send(report);
        }
        out.turn_done
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
