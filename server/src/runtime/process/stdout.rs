//! What a supervisor makes of its agent's stdout: the lines already there taken as one burst,
//! each translated into events and recorded (a burst's in one transaction), a bad line skipped
//! and said once.

use std::time::Instant;

use app::domain::events::EventKind;
use futures::StreamExt;

use crate::runtime::process::answer::Answer;
use crate::runtime::process::lines::Line;
use crate::runtime::process::protocol::{parse_line, CliLine};
use crate::runtime::process::supervisor::{Batching, End, Progress, Report, Supervisor};

/// Most lines one burst takes before its events are stored.
const BURST: usize = 64;

impl Supervisor {
    /// `first` and the lines already read behind it (what the process wrote together), taken
    /// as one burst: their events are stored in one transaction, so a turn's lines written at
    /// once (init, text, result) reach the stream after one fsync rather than one each. A line
    /// whose events something else waits on (a transition's commit, a name, a reply on stdin,
    /// a request to the owner, the turn's end) records what is pending with its own at once.
    /// Nothing waits in `pending` past the burst; messages the agent took in it are reported
    /// after it. `Some` when stdout ended.
    pub(in crate::runtime) async fn burst(
        &mut self,
        first: Option<Result<Line, std::io::Error>>,
        p: &mut Progress,
    ) -> Option<End> {
        use futures::FutureExt;
        let mut next = first;
        let mut taken = 0;
        let end = loop {
            match next {
                Some(Ok(line)) => {
                    p.reported_stuck = false;
                    self.take(line, p, Batching::Burst).await;
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
        self.record(Vec::new()).await;
        for uuid in std::mem::take(&mut self.taken) {
            let _ = self.reports.send(Report::Taken(uuid));
        }
        end
    }

    /// One line of stdout: translated and recorded, or (a bad line) skipped and said once.
    pub(in crate::runtime) async fn take(
        &mut self,
        line: Line,
        p: &mut Progress,
        batching: Batching,
    ) {
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
                match batching {
                    Batching::Burst => self.taken.push(uuid.clone()),
                    Batching::AtOnce => {
                        let _ = self.reports.send(Report::Taken(uuid.clone()));
                    }
                }
                // It took a message (a stage's prompt, a quest's brief): its tools are told
                // of what changed before its model is asked.
                let translator = &mut self.translator;
                let changed = self
                    .recorder
                    .store
                    .with_docs(|docs| translator.tools_changed(docs));
                if let Some(line) = changed {
                    let _ = self.live.stdin.send(line).await;
                }
                return;
            }
            CliLine::System { subtype, .. } if subtype == "init" => {
                p.started = true;
                self.live.busy.set(true);
            }
            // A session that cannot be resumed ends at once with an error result and no
            // turn: not the agent's turn; a fresh start follows.
            CliLine::Result(_) if !p.started && self.resuming => {
                p.resume_failed = true;
                return;
            }
            _ => {}
        }
        if self.on_line(&cli, batching).await {
            p.idle_since = Instant::now();
            p.turns_done += 1;
            // Commits the agent made itself in this turn are its state reports.
            self.scan_own_commits().await;
        }
    }

    /// Records events; one that cannot be stored (after the recorder's retries) marks the
    /// process for stopping. What a burst left pending goes first, in the same transaction.
    pub(in crate::runtime) async fn record(&mut self, events: Vec<EventKind>) {
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

    /// Translates and records one line; true when it ended a turn.
    async fn on_line(&mut self, cli: &CliLine, batching: Batching) -> bool {
        // A newborn's name is checked against the documents and recorded before another
        // newborn's is checked.
        let naming = self.naming.clone();
        let summoning = self.translator.is_summoning();
        let _naming = match summoning {
            true => Some(naming.lock().await),
            false => None,
        };
        let translator = &mut self.translator;
        translator.set_stopping(
            self.stop_asked
                .clone()
                .or_else(|| self.stop.reason_if_requested()),
        );
        let out = self
            .recorder
            .store
            .with_docs(|docs| translator.on_line(cli, docs));
        if out.turn_done {
            self.live.busy.set(false);
            self.commits_in_turn = 0;
        }
        // Each validated transition is recorded, and its folder read for its commit, before
        // what follows it: the commit holds `_state.md` as it was at that state (git makes it
        // beside the read loop, and its event follows when it is made).
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
        if batching == Batching::Burst && !waited_on {
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
        // A tool call's answer waits for the last request: the one it made.
        let mut answer = out.answer.map(|call| Answer {
            call,
            stdin: self.live.stdin.clone(),
        });
        let last = out.requests.len().saturating_sub(1);
        let requests = out
            .requests
            .into_iter()
            .enumerate()
            .map(|(i, r)| Report::Request(r, if i == last { answer.take() } else { None }));
        let reports = out.asked.into_iter().map(Report::Asked).chain(requests);
        for report in reports {
            // The owner outlives its supervisor; nobody listening means shutting down.
            let _ = self.reports.send(report);
        }
        out.turn_done
    }
}
