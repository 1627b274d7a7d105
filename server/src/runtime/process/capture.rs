//! What a supervisor does for its agent's knowledge: the distil turn before a sleep, the vault
//! captured into the store, one git commit per validated work-state transition, and the
//! agent's own commits read as its state reports.

use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use app::domain::knowledge::{commit_subject, parse_commit_subject};
use app::domain::process::ProcessState;
use app::domain::state_file::FILE_NAME;
use app::domain::work_cycle::WorkState;
use futures::StreamExt;

use crate::runtime::folder::agent_fs::{append_line, read_regular};
use crate::runtime::folder::commits::{Job, MAX_COMMITS_PER_TURN};
use crate::runtime::folder::git::{FastHead, Repo, Snapshot};
use crate::runtime::folder::knowledge;
use crate::runtime::process::pipes::STDIN_SEND_TIMEOUT;
use crate::runtime::process::protocol;
use crate::runtime::process::spawn::process_event;
use crate::runtime::process::supervisor::Batching;
use crate::runtime::process::supervisor::{Progress, Supervisor};
use crate::runtime::process::turn::{Output, Transition};
use crate::runtime::prompts;

/// How long a commit waits for `_state.md` to show the new work state.
const STATE_FILE_WAIT: Duration = Duration::from_secs(2);

impl Supervisor {
    /// The name commits and logs use: the agent's, or its seat's until it has one.
    fn who(&self) -> String {
        self.translator
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("Seat {}", self.seat + 1))
    }

    /// One bounded turn before a sleep: the agent is asked to update its vault (and may move
    /// to `logout`). It ends at the turn's `result`, at `logout`, when the process goes, or at
    /// `--distill-timeout`, whichever comes first. A newborn has nothing to distil.
    pub(in crate::runtime) async fn distil(&mut self, reason: &str, p: &mut Progress) {
        let limit = self.last_turn_limit();
        if limit.is_zero() || self.translator.is_summoning() || self.translator.name().is_none() {
            return;
        }
        let uuid = uuid::Uuid::new_v4().to_string();
        let letter = prompts::distill_letter(&self.letters.data_dir, &self.letters.names, reason);
        // Its words answer the server's letter, not the human.
        self.translator
            .set_aside(Some(app::domain::events::Aside::Distil));
        let sent = self
            .live
            .hand_turn(protocol::user_message(&letter, &uuid), STDIN_SEND_TIMEOUT)
            .await;
        if !sent {
            return;
        }
        self.record(vec![process_event(
            self.seat,
            ProcessState::Running,
            Some("distilling before sleep".into()),
            None,
        )])
        .await;
        p.distil = Some((uuid, None));
        let started = Instant::now();
        let ended = self
            .read_until(p, limit, |s, p| {
                let turn_over = matches!(p.distil, Some((_, Some(at))) if p.turns_done > at);
                turn_over || s.translator.work_state() == Some(WorkState::Logout)
            })
            .await;
        if !ended {
            tracing::info!(
                seat = self.seat,
                "the distil turn did not end within {limit:?}"
            );
        }
        tracing::info!(seat = self.seat, took = ?started.elapsed(), "distilled before sleep");
    }

    /// Before a pause: the turn in flight, if any, read to its end (bounded as a distil turn
    /// is), so that the agent goes on from a finished turn.
    pub(in crate::runtime) async fn end_turn(&mut self, p: &mut Progress) {
        let limit = self.last_turn_limit();
        if self.live.is_busy() && !self.read_until(p, limit, |s, _| !s.live.is_busy()).await {
            tracing::info!(
                seat = self.seat,
                "its turn took longer than {limit:?}; paused"
            );
        }
    }

    /// How long a last turn may take: `--distill-timeout`, or one stop's grace when the server
    /// is shutting down.
    fn last_turn_limit(&self) -> Duration {
        match self.closing.is_cancelled() {
            true => self.timing.distill_timeout.min(self.timing.stop_grace),
            false => self.timing.distill_timeout,
        }
    }

    /// Reads the agent's output until `done` says so (`true`), the process goes or `limit`
    /// passes (`false`).
    async fn read_until(
        &mut self,
        p: &mut Progress,
        limit: Duration,
        done: impl Fn(&Self, &Progress) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            tokio::select! {
                line = self.lines.next() => match line {
                    Some(Ok(line)) => self.take(line, p, Batching::AtOnce).await,
                    _ => return false,
                },
                _ = self.child.wait() => return false,
                _ = tokio::time::sleep_until(deadline) => return false,
            }
            if done(self, p) {
                return true;
            }
        }
    }

    /// Captures the folder's vault into the store (when it changed). What was not kept is said
    /// on the seat, and (`tell`) to the agent while it can still act on it.
    pub(in crate::runtime) async fn capture_knowledge(&mut self, reason: &str, tell: bool) {
        let Some(id) = self.folder.identity.clone() else {
            return;
        };
        let (dir, store, why) = (
            self.workdir.clone(),
            self.recorder.store.clone(),
            reason.to_string(),
        );
        let Ok(captured) =
            tokio::task::spawn_blocking(move || knowledge::capture(&dir, &store, &id, &why)).await
        else {
            return;
        };
        let mut events: Vec<EventKind> = captured.event.into_iter().collect();
        if !captured.problems.is_empty() {
            let said = format!(
                "knowledge vault was saved without: {}",
                captured.problems.join("; ")
            );
            events.push(EventKind::RuntimeError {
                seat: Some(self.seat),
                message: format!("the {said}"),
            });
            if tell {
                let uuid = uuid::Uuid::new_v4().to_string();
                let text = format!("[message from Soulgrid]\nYour {said}.");
                let _ = self
                    .live
                    .hand_turn(protocol::user_message(&text, &uuid), STDIN_SEND_TIMEOUT)
                    .await;
            }
        }
        self.record(events).await;
    }

    /// The entry `logout.log` gets when the agent goes to sleep.
    pub(in crate::runtime) fn log_logout(&self, reason: &str) {
        let line = format!(
            "{} {} logout ({reason}); work state {}",
            self.recorder.clock().now_iso(),
            self.who(),
            self.translator
                .work_state()
                .map_or("none", WorkState::as_str)
        );
        if let Err(e) = append_line(&self.workdir, "logout.log", &line) {
            tracing::warn!(seat = self.seat, error = %e, "could not write logout.log");
        }
    }

    /// After a validated transition: the vault captured, then one commit of the folder (its
    /// `_state.md` showing the new state) with `@<Name>: [STATE:<state>] <summary>`, into the
    /// server's history. The folder is read here (bounded); git runs beside the read loop
    /// ([`crate::runtime::folder::commits`]), at most [`MAX_COMMITS_PER_TURN`] times a turn.
    pub(in crate::runtime) async fn commit_transition(&mut self, t: &Transition) {
        let Some(id) = self.folder.identity.clone() else {
            return;
        };
        self.capture_knowledge(t.state.as_str(), true).await;
        self.commits_in_turn += 1;
        if self.commits_in_turn > MAX_COMMITS_PER_TURN {
            if self.commits_in_turn == MAX_COMMITS_PER_TURN + 1 {
                self.record(vec![EventKind::RuntimeError {
                    seat: Some(self.seat),
                    message: format!(
                        "more than {MAX_COMMITS_PER_TURN} work-state transitions in one turn: \
                         the rest are applied but not committed"
                    ),
                }])
                .await;
            }
            return;
        }
        self.wait_for_state_file(t.state).await;
        let name = self.who();
        let folder = self.workdir.clone();
        let snapshot = tokio::task::spawn_blocking(move || Snapshot::read(&folder))
            .await
            .unwrap_or_default();
        for (path, why) in &snapshot.left_out {
            tracing::debug!(
                seat = self.seat,
                path,
                why,
                "left out of a work-state commit"
            );
        }
        let job = Job {
            identity_id: id,
            subject: commit_subject(&name, t.state.as_str(), &t.summary),
            email: format!("seat-{}@soulgrid.invalid", self.seat + 1),
            author: name,
            state: t.state.as_str().to_string(),
            summary: t.summary.clone(),
            snapshot,
        };
        if !self.committer.queue(job) {
            self.record(vec![EventKind::RuntimeError {
                seat: Some(self.seat),
                message: "the work-state commit was not made: too many were waiting".into(),
            }])
            .await;
        }
    }

    /// `_state.md` is kept by the runtime as the log moves: a commit waits (bounded) until it
    /// shows `state`, so the commit holds the state it reports.
    async fn wait_for_state_file(&self, state: WorkState) {
        let wanted = format!("- work cycle: {}\n", state.as_str());
        let path = self.workdir.join(FILE_NAME);
        let until = Instant::now() + STATE_FILE_WAIT;
        while Instant::now() < until {
            let shows = read_regular(&path, 64 * 1024)
                .ok()
                .flatten()
                .is_some_and(|b| String::from_utf8_lossy(&b).contains(&wanted));
            if shows {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The agent's own commits since the last one seen: each recorded, and one that carries
    /// `[STATE:x]` read as its state report (validated like a marker).
    pub(in crate::runtime) async fn scan_own_commits(&mut self) {
        let Some(id) = self.folder.identity.clone() else {
            return;
        };
        let repo = Repo::new(&self.workdir);
        // Unchanged since the last look, without running git (a process costs more than the
        // turn's other work here).
        match repo.head_fast() {
            FastHead::Commit(sha) if self.folder.head.as_deref() == Some(sha.as_str()) => return,
            FastHead::Unborn if self.folder.head.is_none() => return,
            _ => {}
        }
        let entries = match repo.log_since(self.folder.head.as_deref(), 50).await {
            Ok(entries) => entries,
            // History rewritten under the known head, or not readable without git (packed):
            // said on the seat, and read again from where it is now.
            Err(e) => {
                self.record(vec![EventKind::RuntimeError {
                    seat: Some(self.seat),
                    message: format!("the agent's own commits could not be read: {e}"),
                }])
                .await;
                self.folder.head = repo.head().await;
                return;
            }
        };
        let mut out = Output::default();
        let mut events = Vec::new();
        for e in entries {
            self.folder.head = Some(e.sha.clone());
            let report = parse_commit_subject(&e.subject);
            if let Some(r) = &report {
                let line = format!("commit {:.8}: {:.80}", e.sha, e.subject);
                self.translator
                    .report_state(&r.state, &r.summary, line, &mut out);
            }
            events.push(EventKind::WorkCommitted {
                seat: self.seat,
                identity_id: id.clone(),
                files: repo.changed_by(&e.sha).await.unwrap_or_default(),
                state: report.as_ref().map(|r| r.state.clone()),
                summary: report.map_or(e.subject, |r| r.summary),
                sha: e.sha,
                by_agent: true,
            });
        }
        let moved = !out.transitions.is_empty();
        out.events.extend(events);
        self.record(out.events).await;
        if moved {
            self.capture_knowledge("commit", true).await;
        }
    }
}
