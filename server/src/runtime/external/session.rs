//! One external agent's connection, run as its seat's process. What the runtime writes to a
//! process's stdin arrives here as it would at a CLI's: a user message (mail, a stage's brief,
//! the letter asking a newcomer its name) becomes a `turn:start`, one turn at a time (the rest
//! wait in a short queue, and the input channel behind it is bounded); the answer to a tool
//! call becomes an `action:result`. The agent's `agent:action` goes through the translator as
//! a Claude process's output does, its tools by the same calls. Mail is marked read when its
//! turn is answered; a turn not answered in time ends with a recorded wait, its mail left for
//! the next.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use app::contract::external::{close, ServerFrame, TurnMessage, TurnState};
use app::domain::docs::{identity, Docs};
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::Seat;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::wire::{FromClient, ToClient, Wire};

mod actions;
mod frames;
use super::{Externals, REPLACED};
use crate::runtime::process::spawn::Started;
use crate::runtime::process::supervisor::{Exit, Report};
use crate::runtime::process::table::{Live, Reservation, StopSignal};
use crate::runtime::process::turn::Translator;
use crate::runtime::record::Recorder;

/// Most actions one `agent:action` may carry.
pub const MAX_ACTIONS: usize = 32;
/// Turns waiting behind the open one before the input is left to fill (and its writers wait).
const QUEUED: usize = 8;
/// The input channel's depth (as a process's stdin).
const INPUT: usize = 64;
/// The longest a frame waits for room towards the client.
const SEND_LIMIT: Duration = Duration::from_secs(10);

/// How a newcomer's name comes.
pub(super) enum Naming {
    /// It has one already.
    Named,
    /// Given in its register frame: its first act.
    Given(String, Option<String>),
    /// Asked for in its first turn.
    Asked,
}

/// The turn it is in.
struct Open {
    turn: u64,
    uuid: String,
    deadline: Instant,
}

/// A tool action whose answer comes when the team has carried it out.
struct Pending {
    turn: u64,
    index: usize,
    tool: String,
    args: Value,
}

/// A turn not started yet.
struct Queued {
    uuid: String,
    text: String,
}

struct Session {
    seat: Seat,
    wire: Wire,
    input: mpsc::Receiver<String>,
    live: Live,
    stop: StopSignal,
    shutdown: CancellationToken,
    translator: Translator,
    recorder: Recorder,
    reports: mpsc::UnboundedSender<Report>,
    naming: Arc<tokio::sync::Mutex<()>>,
    turn_timeout: Duration,
    agent_dir: std::path::PathBuf,
    first: Naming,
    turns: u64,
    open: Option<Open>,
    queued: VecDeque<Queued>,
    /// Actions answered later: the request id of their answer → the action.
    pending: HashMap<String, Pending>,
    /// Kinds of bad frame recorded on the seat already (each once per connection).
    said: Vec<&'static str>,
    /// It is to end, for this reason (its own doing: a name refused twice).
    ending: Option<String>,
}

/// The connection as a started process: its input, and the future that runs it.
pub(super) fn start(
    rooms: &Externals,
    seat: Seat,
    name: Option<String>,
    first: Naming,
    wire: Wire,
    reservation: &Reservation,
) -> Started {
    let (stdin, input) = mpsc::channel(INPUT);
    let live = Live {
        stdin,
        busy: Default::default(),
        in_flight: Default::default(),
    };
    let names = rooms.ctx.names();
    let summoning = name.is_none();
    let (reports, reports_rx) = mpsc::unbounded_channel();
    let agents = &rooms.ctx.config().agents;
    let session = Session {
        seat,
        wire,
        input,
        live: live.clone(),
        stop: reservation.stop_signal().clone(),
        shutdown: rooms.ctx.shutdown_token(),
        translator: Translator::new(seat, name, summoning)
            .with_team_names(&names.lead, &names.human),
        recorder: rooms.ctx.recorder().clone(),
        reports,
        naming: rooms.processes.spawner.naming.clone(),
        turn_timeout: agents.external_turn_timeout,
        agent_dir: crate::runtime::folder::agent_fs::agent_dir(&rooms.ctx.config().data_dir, seat),
        first,
        turns: 0,
        open: None,
        queued: VecDeque::new(),
        pending: HashMap::new(),
        said: Vec::new(),
        ending: None,
    };
    if matches!(session.first, Naming::Asked) {
        let uuid = uuid::Uuid::new_v4().to_string();
        let letter = birth_letter(&names.human);
        let line = crate::runtime::process::protocol::user_message(&letter, &uuid);
        // The channel is empty: this never waits.
        let _ = live.stdin.try_send(line);
        live.busy.set(true);
    }
    Started {
        live,
        run: Box::pin(session.run()),
        reports: reports_rx,
    }
}

/// What a newcomer without a name reads first.
fn birth_letter(human: &str) -> String {
    format!(
        "You have just joined a team of agents kept by {human}, through Soulgrid. You are an \
         external agent: you answer each turn with actions. Choose a name that is yours alone \
         and say who you are: answer with the action {{\"type\": \"register\", \"name\": \
         \"<your name>\", \"soul\": \"<who you are, in a few sentences>\"}}."
    )
}

impl Session {
    async fn run(mut self) -> Exit {
        // As a process: starting, then between turns (the machine a Claude process goes
        // through; from `stopped` nothing else is allowed).
        self.record(vec![
            self.process(ProcessState::Starting, "connecting"),
            self.process(ProcessState::Idle, "connected"),
        ])
        .await;
        if let Naming::Given(name, soul) = std::mem::replace(&mut self.first, Naming::Named) {
            self.register(None, name, soul).await;
        }
        let reason = self.serve().await;
        // What it was given and did not answer is not its: the mail stays unread.
        Exit {
            reason,
            problem: None,
            retry_fresh: false,
        }
    }

    /// Serves the connection until it ends; returns why.
    async fn serve(&mut self) -> String {
        loop {
            if let Some(reason) = self.ending.take() {
                self.close(close::DISMISSED, &reason).await;
                return reason;
            }
            if self.open.is_none() {
                self.next_turn().await;
            }
            let deadline = self.open.as_ref().map(|o| o.deadline);
            let room = self.queued.len() < QUEUED;
            tokio::select! {
                biased;
                reason = self.stop.requested() => {
                    let code = match reason == REPLACED {
                        true => close::REPLACED,
                        false => close::DISMISSED,
                    };
                    self.close(code, &reason).await;
                    return reason;
                }
                _ = self.shutdown.cancelled() => {
                    self.close(1001, "server shutdown").await;
                    return "server shutdown".into();
                }
                frame = self.wire.from.recv() => match frame {
                    Some(FromClient::Text(text)) => self.on_frame(&text).await,
                    Some(FromClient::Binary) => {
                        let why = "it sent a binary frame: frames are JSON text";
                        self.said_once("binary", why).await;
                        self.close(close::PROTOCOL, why).await;
                        return "closed: it sent a binary frame".into();
                    }
                    Some(FromClient::Gone(why)) => return why,
                    None => return "disconnected".into(),
                },
                line = self.input.recv(), if room => match line {
                    Some(line) => self.on_input(&line).await,
                    None => return "closed".into(),
                },
                _ = sleep_until(deadline) => self.timed_out().await,
            }
        }
    }

    /// A line written to it as to a process's stdin.
    async fn on_input(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        match v["type"].as_str() {
            Some("user") => {
                let uuid = v["uuid"].as_str().unwrap_or_default().to_string();
                let text = v["message"]["content"].as_str().unwrap_or_default();
                let text = self.whole(text, &uuid).await;
                self.queued.push_back(Queued { uuid, text });
            }
            // The answer to an action that waited for the team.
            Some("control_response") => {
                let r = &v["response"];
                let id = r["request_id"].as_str().unwrap_or_default();
                if let Some(p) = self.pending.remove(id) {
                    let result = &r["response"]["mcp_response"]["result"];
                    let text = result["content"][0]["text"].as_str().unwrap_or_default();
                    let ok = !result["isError"].as_bool().unwrap_or(false);
                    self.answered(p, ok, text.to_string()).await;
                }
            }
            // The human interrupted: the open turn ends where it is.
            Some("control_request") if v["request"]["subtype"] == "interrupt" => {
                if let Some(open) = self.open.take() {
                    self.end_turn(open, Some("interrupted".into()), "interrupted")
                        .await;
                }
            }
            _ => {}
        }
    }

    /// A message too long for a line was written to a file in its folder (where a Claude
    /// agent reads it): an external agent gets the text itself.
    async fn whole(&self, text: &str, uuid: &str) -> String {
        let file = self
            .agent_dir
            .join(crate::runtime::process::outgoing::LONG_MESSAGES)
            .join(format!("{uuid}.md"));
        if uuid.is_empty() || !text.contains(&format!("{uuid}.md")) {
            return text.to_string();
        }
        match tokio::fs::read_to_string(&file).await {
            Ok(whole) => whole,
            Err(_) => text.to_string(),
        }
    }

    /// Starts the next turn, if one waits.
    async fn next_turn(&mut self) {
        let Some(q) = self.queued.pop_front() else {
            self.live.busy.set(false);
            return;
        };
        self.turns += 1;
        let turn = self.turns;
        self.live.busy.set(true);
        self.open = Some(Open {
            turn,
            uuid: q.uuid,
            deadline: Instant::now() + self.turn_timeout,
        });
        let state = self.recorder.store.with_docs(|docs| self.state(docs));
        self.record(vec![self.process(ProcessState::Running, "in a turn")])
            .await;
        self.send(&ServerFrame::TurnStart {
            turn,
            messages: TurnMessage::cut(&q.text),
            state,
        })
        .await;
    }

    fn state(&self, docs: &Docs) -> TurnState {
        let me = identity(docs, self.seat);
        TurnState {
            seat: self.seat,
            name: self.translator.name().map(str::to_string),
            work_state: me
                .and_then(|d| d.work_state)
                .map(|w| w.as_str().to_string()),
            team: app::domain::tools::team(docs),
            in_stage: app::domain::tools::Standing::of(docs, self.seat, self.translator.name())
                .in_stage,
        }
    }

    /// The turn is over: recorded as a turn's end; its mail marked read if it was answered
    /// (`why` is `None`) or waited, left for the next turn if it timed out.
    async fn end_turn(&mut self, open: Open, why: Option<String>, how: &str) {
        let translator = &mut self.translator;
        let out = self
            .recorder
            .store
            .with_docs(|docs| translator.turn_over(why, docs));
        self.carry(out).await;
        // Answered or waited: its mail is read. Timed out or interrupted: it stays unread, and
        // comes with the next turn (the next delivery, or a reconnect).
        match how {
            "answered" | "waited" => {
                let _ = self.reports.send(Report::Taken(open.uuid));
            }
            _ => self.live.in_flight.remove(&open.uuid),
        }
        if self.queued.is_empty() {
            self.live.busy.set(false);
        }
        self.send(&ServerFrame::TurnEnd {
            turn: open.turn,
            how: how.to_string(),
        })
        .await;
    }

    async fn timed_out(&mut self) {
        if let Some(open) = self.open.take() {
            let why = format!(
                "no answer within {} s: waited",
                self.turn_timeout.as_secs_f64()
            );
            self.end_turn(open, Some(why), "timeout").await;
        }
    }

    fn process(&self, state: ProcessState, reason: &str) -> EventKind {
        EventKind::AgentProcess {
            seat: self.seat,
            state,
            reason: Some(reason.to_string()),
            claude_session_id: None,
            context_tokens: None,
            cost_usd: None,
            tool: None,
            usage: None,
        }
    }

    async fn record(&self, events: Vec<EventKind>) {
        if let Err(e) = self.recorder.record(events).await {
            tracing::warn!(seat = self.seat, error = %e, "an external agent's events were not recorded");
        }
    }

    /// Sends a frame; a client gone meanwhile is noticed by the read side. Bounded: the socket's
    /// writer gives up on a client that reads nothing, and this never waits longer.
    async fn send(&self, frame: &ServerFrame) {
        let _ = self
            .wire
            .to
            .send_timeout(ToClient::frame(frame), SEND_LIMIT)
            .await;
    }

    async fn close(&self, code: u16, reason: &str) {
        let _ = self
            .wire
            .to
            .send_timeout(
                ToClient::Close(code, cut(reason, 120).to_string()),
                SEND_LIMIT,
            )
            .await;
    }
}

/// Sleeps until `deadline`, or for ever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// At most `n` characters of `s`.
fn cut(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}
