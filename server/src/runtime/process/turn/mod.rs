//! Turns a Claude process's stdout into events: what the agent said (markers parsed and
//! stripped), what it is doing, when a turn starts and ends, and the identity a newborn agent
//! registers. No I/O here: the process supervisor feeds lines in and appends what comes out.

use app::domain::docs::Docs;
use app::domain::escalation::{kept_by_human, Approver};
use app::domain::events::{Aside, EventKind, TurnUsage};
use app::domain::markers::parse_block;
use app::domain::names::NameError;
use app::domain::permissions::{Decider, Decision};
use app::domain::process::ProcessState;
use app::domain::rules::covering;
use app::domain::work_cycle::WorkState;
use app::domain::{Seat, LEAD_SEAT};

use crate::runtime::process::protocol::{self, CliLine, ContentBlock, ControlRequest};

mod quest_request;
pub use quest_request::QuestRequest;
mod request;
pub use request::LeadRequest;
mod external;
mod markers;
mod paths;
mod tool_lines;
mod tools;

/// What a turn's `result` says it used, as the ledger counts it.
fn turn_usage(u: &protocol::Usage) -> TurnUsage {
    TurnUsage {
        input_tokens: u.context_tokens(),
        output_tokens: u.output_tokens,
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    pub events: Vec<EventKind>,
    pub requests: Vec<LeadRequest>,
    /// The turn ended (`result`).
    pub turn_done: bool,
    /// Permission requests now waiting for an answer (request ids).
    pub asked: Vec<String>,
    /// Lines to write back on the process's stdin (answers to control requests we refuse, a
    /// newborn's second chance to choose a name).
    pub replies: Vec<String>,
    /// The process is to be stopped, for this reason (a newborn chose no valid name twice).
    pub stop: Option<String>,
    /// A tool call whose answer waits for the last of `requests` to be carried out.
    pub answer: Option<crate::runtime::process::answer::PendingCall>,
    /// Validated work-state transitions, each to be committed in the agent's folder.
    pub transitions: Vec<Transition>,
}

/// A validated work-state transition and what the agent said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub state: WorkState,
    pub summary: String,
}

/// The per-process state of the translation.
#[derive(Debug)]
pub struct Translator {
    seat: Seat,
    /// The name messages are signed with; `None` while the agent has not chosen one.
    name: Option<String>,
    /// A blank session that was given the summon letter and has not registered yet.
    summoning: bool,
    /// This turn's display text so far: the soul, when the register marker comes.
    turn_text: String,
    /// Display text not shown yet (a newborn's, until it has a name).
    pending: Vec<String>,
    work_state: Option<WorkState>,
    /// The CLI said this turn was interrupted: its error `result` is the interrupt, not a fault.
    interrupted: bool,
    /// The lead's and the human's names, which no agent may take.
    lead_name: String,
    human_name: String,
    /// Names a newborn asked for and could not have.
    refused_names: u8,
    /// Tool calls made and not answered yet: (tool_use id, name, input).
    tools_in_flight: Vec<(String, String, serde_json::Value)>,
    /// What the turn under way answers when the human did not start it (a newborn's first
    /// turn, a waking, the note before sleep): its words are asides, never counted unread.
    aside: Option<Aside>,
    /// The process was told to stop (or sleep), for this reason: its tools no longer act on
    /// the team.
    stopping: Option<String>,
    /// The tools `tools/list` gave last (`None`: not asked yet).
    listed: Option<Vec<&'static str>>,
    /// Where the agent runs, then its worktrees: where its rules read relative paths.
    roots: Vec<String>,
    /// `--approvals lead-first`: requests go to the lead unless the human keeps them.
    lead_first: bool,
    /// List-changed notifications sent so far.
    notified: u32,
}

impl Translator {
    pub fn new(seat: Seat, name: Option<String>, summoning: bool) -> Self {
        Translator {
            seat,
            name,
            summoning,
            turn_text: String::new(),
            pending: Vec::new(),
            work_state: None,
            interrupted: false,
            lead_name: String::new(),
            human_name: String::new(),
            refused_names: 0,
            aside: summoning.then_some(Aside::Birth),
            tools_in_flight: Vec::new(),
            stopping: None,
            listed: None,
            notified: 0,
            roots: Vec::new(),
            lead_first: false,
        }
    }

    /// The process was told to stop or sleep (`Some(reason)`): from now on a tool call that
    /// would act on the team is refused with the reason.
    pub fn set_stopping(&mut self, reason: Option<String>) {
        self.stopping = reason;
    }

    /// The turn under way (or next) answers the server, not the human: its words are asides
    /// until its `result`.
    pub fn set_aside(&mut self, aside: Option<Aside>) {
        self.aside = aside;
    }

    /// The lead's and the human's names, reserved: no agent may choose them.
    pub fn with_team_names(mut self, lead: &str, human: &str) -> Self {
        self.lead_name = lead.to_string();
        self.human_name = human.to_string();
        self
    }

    /// A tool call the CLI asks about: allowed at once when one of the agent's rules covers
    /// it (the rule recorded as the reason, nobody asked), else recorded as waiting.
    fn can_use_tool(
        &mut self,
        request_id: &str,
        asked: &ControlRequest,
        docs: &Docs,
        out: &mut Output,
    ) {
        let ControlRequest::CanUseTool {
            tool_name,
            input,
            description,
            permission_suggestions,
            tool_use_id,
        } = asked
        else {
            return;
        };
        out.events.push(EventKind::PermissionRequest {
            seat: self.seat,
            request_id: request_id.to_string(),
            tool_name: tool_name.clone(),
            input: input.clone(),
            description: description.clone(),
            suggestions: permission_suggestions.clone(),
            tool_use_id: tool_use_id.clone(),
        });
        // A rule of the agent's covers it: allowed, the rule recorded as the reason,
        // nobody asked. Recorded before the CLI is told (replies follow the events).
        let rules = app::domain::docs::identity(docs, self.seat)
            .map(|d| d.rules.as_slice())
            .unwrap_or_default();
        // Judged on the paths as the file system resolves them (links included).
        let judged = paths::resolved(input, self.roots.first().map(String::as_str));
        if let Some(rule) = covering(rules, tool_name, &judged, &self.roots) {
            tracing::info!(seat = self.seat, request_id, rule = %rule.rule, tool = %tool_name, "allowed by a rule");
            out.events.push(EventKind::PermissionDecision {
                seat: self.seat,
                request_id: request_id.to_string(),
                decision: Decision::Allow,
                message: None,
                decided_by: Decider::Rule,
                suggestion: None,
                rule: Some(rule.rule.clone()),
            });
            out.replies.push(protocol::allow(request_id, input));
            return;
        }
        // Lead-first: to the lead, unless the human keeps it (and the lead's own go to the
        // human); each is recorded with why.
        if self.lead_first {
            let (to, why) = match kept_by_human(tool_name, &judged, &self.roots) {
                _ if self.seat == LEAD_SEAT => (Approver::Human, Some("the lead's own request")),
                Some(kept) => (Approver::Human, Some(kept.why())),
                None => (Approver::Lead, None),
            };
            out.events.push(EventKind::PermissionRouted {
                seat: self.seat,
                request_id: request_id.to_string(),
                to,
                why: why.map(str::to_string),
            });
        }
        out.events.push(self.process(
            ProcessState::Running,
            Some(format!("waiting for approval: {tool_name}")),
        ));
        out.asked.push(request_id.to_string());
    }

    /// Where the agent runs, then its worktrees (absolute): its rules read relative paths there.
    pub fn with_roots(mut self, roots: Vec<String>) -> Self {
        self.roots = roots;
        self
    }

    /// `--approvals lead-first`: waiting requests go to the lead unless the human keeps them.
    pub fn with_lead_first(mut self, lead_first: bool) -> Self {
        self.lead_first = lead_first;
        self
    }

    /// A blank session that has not chosen its name yet.
    pub fn is_summoning(&self) -> bool {
        self.summoning
    }

    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn is_lead(&self) -> bool {
        self.seat == LEAD_SEAT
    }

    fn speaker(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("Seat {}", self.seat + 1))
    }

    fn process(&self, state: ProcessState, reason: Option<String>) -> EventKind {
        EventKind::AgentProcess {
            seat: self.seat,
            state,
            reason,
            claude_session_id: None,
            context_tokens: None,
            cost_usd: None,
            tool: None,
            usage: None,
        }
    }

    /// The events one stdout line means. `docs` is the current state, for names → seats.
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    pub fn on_line(&mut self, line: &CliLine, docs: &Docs) -> Output {
        let mut out = Output::default();
        match line {
            CliLine::System {
                subtype,
                session_id,
            } if subtype == "init" => {
                self.turn_text.clear();
                self.interrupted = false;
                out.events.push(EventKind::AgentProcess {
                    seat: self.seat,
                    state: ProcessState::Running,
                    reason: None,
                    claude_session_id: session_id.clone(),
                    context_tokens: None,
                    cost_usd: None,
                    tool: None,
                    usage: None,
                });
            }
            // A subagent's lines belong to its parent's tool call, not to this conversation.
            CliLine::Assistant {
                parent_tool_use_id: Some(_),
                ..
            } => {}
            CliLine::Assistant { message, .. } => {
                for block in &message.content {
                    match block {
                        ContentBlock::Text { text } => self.on_text(text, docs, &mut out),
                        ContentBlock::ToolUse { id, name, input } => {
                            self.tool_started(id, name, input);
                            let mut e = self.process(
                                ProcessState::Running,
                                Some(format!("using {}", app::domain::tool_lines::shown(name))),
                            );
                            if let EventKind::AgentProcess { tool, .. } = &mut e {
                                *tool = Some(name.clone());
                            }
                            out.events.push(e);
                        }
                        _ => {}
                    }
                }
            }
            CliLine::User {
                message: Some(message),
                parent_tool_use_id: None,
                is_replay: false,
                ..
            } if protocol::is_interrupt_note(message) => self.interrupted = true,
            // Tool results going back to the model: each call becomes a line of the thread.
            CliLine::User {
                message: Some(message),
                parent_tool_use_id: None,
                is_replay: false,
                ..
            } => self.tool_results(message, &mut out),
            CliLine::ControlRequest {
                request_id,
                request: asked @ ControlRequest::CanUseTool { .. },
            } => self.can_use_tool(request_id, asked, docs, &mut out),
            CliLine::ControlRequest {
                request_id,
                request:
                    ControlRequest::McpMessage {
                        server_name,
                        message,
                    },
            } => self.on_mcp(request_id, server_name, message, docs, &mut out),
            CliLine::ControlRequest { request_id, .. } => out
                .replies
                .push(protocol::unsupported(request_id, "this control request")),
            CliLine::Result(r) => {
                out.turn_done = true;
                // A newborn that ended its turn without a name still said something.
                self.flush(&mut out);
                // A newborn still without a name is still answering its birth.
                self.aside = self.summoning.then_some(Aside::Birth);
                let interrupted = std::mem::take(&mut self.interrupted);
                if r.is_error && !interrupted {
                    out.events.push(EventKind::RuntimeError {
                        seat: Some(self.seat),
                        message: format!(
                            "the turn ended with an error: {}",
                            r.result
                                .as_deref()
                                .or(r.subtype.as_deref())
                                .unwrap_or("unknown")
                        ),
                    });
                }
                out.events.push(EventKind::AgentProcess {
                    seat: self.seat,
                    state: ProcessState::Idle,
                    reason: interrupted.then(|| "interrupted".to_string()),
                    claude_session_id: r.session_id.clone(),
                    context_tokens: r.usage.as_ref().map(|u| u.context_tokens()),
                    cost_usd: r.total_cost_usd,
                    tool: None,
                    usage: Some(r.usage.as_ref().map(turn_usage).unwrap_or_default()),
                });
            }
            _ => {}
        }
        // What it stands in may have changed with this line (its name, a stage it joined).
        out.replies.extend(self.tools_changed(docs));
        out
    }

    fn on_text(&mut self, text: &str, docs: &Docs, out: &mut Output) {
        let parsed = parse_block(text);
        if !parsed.display.is_empty() {
            if !self.turn_text.is_empty() {
                self.turn_text.push_str("\n\n");
            }
            self.turn_text.push_str(&parsed.display);
        }
        // Markers first: a newborn's words are signed with the name it registers in them.
        for marker in parsed.markers {
            self.on_marker(marker, docs, out);
        }
        if !parsed.display.is_empty() {
            self.pending.push(parsed.display);
        }
        // A newborn's words wait for its name (the register marker often comes in a later
        // block of the same turn); everyone else's are shown at once.
        if !self.summoning {
            self.flush(out);
        }
        for e in parsed.errors {
            out.events.push(EventKind::MarkerError {
                seat: Some(self.seat),
                line: e.line,
                error: e.error,
            });
        }
    }

    /// Shows the words held back so far.
    fn flush(&mut self, out: &mut Output) {
        for text in std::mem::take(&mut self.pending) {
            let id = crate::store::new_message_id();
            out.events.push(if self.is_lead() {
                EventKind::LeadText {
                    message_id: id,
                    speaker_name: self.speaker(),
                    text,
                    aside: self.aside,
                }
            } else {
                EventKind::AgentMessage {
                    message_id: id,
                    seat: self.seat,
                    speaker_name: self.speaker(),
                    text,
                    target_agent: None,
                    aside: self.aside,
                }
            });
        }
    }

    /// A newborn asked for a name it cannot have: said on its seat; the first time it is told
    /// why and asked again, the second time its process is stopped.
    fn refuse_name(&mut self, asked: &str, why: &NameError, out: &mut Output) {
        let asked: String = asked.chars().take(60).collect();
        self.refused_names += 1;
        let last = self.refused_names > 1;
        out.events.push(EventKind::MarkerError {
            seat: Some(self.seat),
            line: format!("register {asked:?}"),
            error: if last {
                format!("{why}; it was the second name refused, so the agent is stopped")
            } else {
                format!("{why}; the agent is asked to choose again")
            },
        });
        if last {
            out.stop = Some("chose no name it could have".into());
        } else {
            let text = format!(
                "The name {asked:?} cannot be yours: {why}. Choose another name, one that is \
                 yours alone, and write the register line again with it, alone on its line:\n\
                 [ACTION] {{\"action\":\"register\",\"name\":\"<your new name>\"}}"
            );
            let uuid = uuid::Uuid::new_v4().to_string();
            out.replies.push(protocol::user_message(&text, &uuid));
        }
    }
}
