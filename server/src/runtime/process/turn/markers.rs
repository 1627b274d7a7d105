//! The markers an agent writes, as the translator carries them out: its name, its work state,
//! the lead's requests, and what anyone may ask (fork, route, quest findings, jobs).

use app::domain::docs::{cut_to, seat_named, taken_names, Docs, MAX_SOUL_BYTES};
use app::domain::events::EventKind;
use app::domain::markers::Marker;
use app::domain::names::choose;
use app::domain::tools::seat_from_number;
use app::domain::work_cycle::{self, WorkState};

use super::QuestRequest;
use super::{LeadRequest, Output, Transition, Translator};

impl Translator {
    /// A work state the agent reports (by marker, or in a commit of its own, named by `line`):
    /// validated against its cycle, recorded as a transition or as an error, never applied
    /// when invalid.
    pub fn report_state(&mut self, state: &str, summary: &str, line: String, out: &mut Output) {
        let Some(to) = WorkState::parse(state) else {
            return out.events.push(EventKind::MarkerError {
                seat: Some(self.seat),
                line,
                error: format!("unknown work state {state:?}"),
            });
        };
        match work_cycle::transition(self.work_state, to) {
            Ok(next) => {
                self.work_state = Some(next);
                out.events.push(EventKind::WorkState {
                    seat: self.seat,
                    state: next,
                });
                out.transitions.push(Transition {
                    state: next,
                    summary: summary.to_string(),
                });
            }
            Err(e) => out.events.push(EventKind::MarkerError {
                seat: Some(self.seat),
                line,
                error: e.to_string(),
            }),
        }
    }

    /// The work state reached so far in this process.
    pub fn work_state(&self) -> Option<WorkState> {
        self.work_state
    }

    /// What a marker asks, one method per marker that needs more than a line: an event
    /// recorded, or a request for the room it belongs to.
    pub(super) fn on_marker(&mut self, marker: Marker, docs: &Docs, out: &mut Output) {
        let lead = self.is_lead();
        match marker {
            Marker::Register {
                name,
                color_name,
                soul,
                ..
            } => self.on_register(name, color_name, soul, docs, out),
            Marker::Status { agents } if lead => {
                let seats = agents
                    .iter()
                    .filter(|a| a.is_alive())
                    .filter_map(|a| seat_named(docs, a.name()))
                    .collect();
                out.events.push(EventKind::AgentStatus { seats });
            }
            Marker::State { state, summary } => {
                self.report_state(&state, &summary, format!("[STATE:{state}]"), out)
            }
            Marker::Summon { seats, count } if lead => self.on_summon(seats, count, out),
            Marker::Dismiss { name } if lead => out.requests.push(LeadRequest::Dismiss { name }),
            Marker::Kill { name, cascade } if lead => {
                out.requests.push(LeadRequest::Kill { name, cascade })
            }
            Marker::Recall { name, seat } if lead => self.on_recall(name, seat, out),
            Marker::Fork {
                prompt,
                agent,
                seat,
            } => self.on_fork(prompt, agent, seat, docs, out),
            Marker::Soul { text } => self.on_soul(text, out),
            Marker::PutToWork { agent, project } if lead => {
                out.requests.push(LeadRequest::PutToWork { agent, project })
            }
            Marker::DecidePermission {
                request,
                decision,
                reason,
            } if lead => out.requests.push(LeadRequest::DecidePermission {
                request,
                decision,
                reason,
            }),
            other => match self.for_the_room(other) {
                Ok(request) => out.requests.push(request),
                Err(other) => out.events.push(EventKind::MarkerError {
                    seat: Some(self.seat),
                    line: format!("{other:?}"),
                    error: "only the lead may use this action".into(),
                }),
            },
        }
    }

    /// `register`: a newborn's name (its inbox derived) and soul; refused from anyone else.
    fn on_register(
        &mut self,
        name: String,
        color_name: Option<String>,
        soul: Option<String>,
        docs: &Docs,
        out: &mut Output,
    ) {
        if !self.summoning {
            let why = "only a newborn agent registers a name".to_string();
            return self.refuse(&format!("register {name}"), why, out);
        }
        let taken = taken_names(docs, self.seat, &self.lead_name, &self.human_name);
        let (name, inbox) = match choose(&name, &taken) {
            Ok(chosen) => chosen,
            Err(e) => return self.refuse_name(&name, &e, out),
        };
        self.summoning = false;
        self.name = Some(name.clone());
        let mut soul = soul
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| self.turn_text.clone());
        if soul.len() > MAX_SOUL_BYTES {
            let why = format!(
                "the soul has {} bytes; it was cut to {MAX_SOUL_BYTES}",
                soul.len()
            );
            self.refuse(&format!("register {name}"), why, out);
            soul = cut_to(&soul, MAX_SOUL_BYTES).to_string();
        }
        out.events.push(EventKind::AgentRegistered {
            seat: self.seat,
            name,
            color_name,
            soul: Some(soul),
            claude_session_id: None,
            inbox: Some(inbox),
        });
    }

    /// `summon` (the lead's): into the seats named (1-9), or every empty one.
    fn on_summon(&self, seats: Option<Vec<u8>>, count: Option<u8>, out: &mut Output) {
        let seats = match seats.map(|s| s.into_iter().map(seat_from_number).collect()) {
            Some(Err(why)) => return self.refuse("summon", why, out),
            Some(Ok(seats)) => Some(seats),
            None => None,
        };
        out.requests.push(LeadRequest::Summon { seats, count })
    }

    /// `recall` (the lead's): someone from the Hall, into the seat named or the first empty.
    fn on_recall(&self, name: String, seat: Option<u8>, out: &mut Output) {
        match seat.map(seat_from_number).transpose() {
            Ok(seat) => out.requests.push(LeadRequest::Recall { name, seat }),
            Err(why) => self.refuse(&format!("recall {name}"), why, out),
        }
    }

    /// `fork`: the agent itself, or (the lead's) another agent, into the seat named.
    fn on_fork(
        &self,
        prompt: Option<String>,
        agent: Option<String>,
        seat: Option<u8>,
        docs: &Docs,
        out: &mut Output,
    ) {
        let into = match seat.map(seat_from_number).transpose() {
            Ok(into) => into,
            Err(why) => return self.refuse("fork", why, out),
        };
        let parent = match agent.filter(|a| !self.is_me(a)) {
            None => self.seat,
            Some(_) if !self.is_lead() => {
                let why = "only the lead may fork another agent: leave out agent to fork \
                           yourself, or ask the lead";
                return self.refuse("fork", why.into(), out);
            }
            Some(agent) => match seat_named(docs, &agent) {
                Some(seat) => seat,
                None => {
                    let why =
                        format!("nobody on the team is called {agent:?}: call team for the names");
                    return self.refuse("fork", why, out);
                }
            },
        };
        out.requests.push(LeadRequest::Fork {
            seat: parent,
            by: self.seat,
            from: self.speaker(),
            prompt,
            into,
        })
    }

    /// `soul`: a named agent's new soul, within the size a soul may have.
    fn on_soul(&self, text: String, out: &mut Output) {
        if text.len() > MAX_SOUL_BYTES {
            let why = format!(
                "a soul may have {MAX_SOUL_BYTES} bytes; this one has {}",
                text.len()
            );
            return self.refuse("soul", why, out);
        }
        if self.name.is_none() || self.summoning {
            let why = "only an agent with a name rewrites its soul".to_string();
            return self.refuse("soul", why, out);
        }
        out.events.push(EventKind::SoulRevised {
            seat: self.seat,
            text,
        })
    }

    /// A marker for the projects' or the quests' room (the lead's alone where so), as its
    /// request; any other marker back, refused.
    fn for_the_room(&self, marker: Marker) -> Result<LeadRequest, Marker> {
        let (seat, lead) = (self.seat, self.is_lead());
        Ok(match marker {
            Marker::Review { project, note } => LeadRequest::RequestReview {
                seat,
                project,
                note,
            },
            Marker::ClaimFiles {
                paths,
                why,
                project,
            } => LeadRequest::ClaimFiles {
                seat,
                project,
                paths,
                why,
            },
            Marker::Route { to, text } => LeadRequest::Route {
                seat,
                from: self.speaker(),
                to,
                text,
            },
            other => LeadRequest::Quest(self.for_quests(other, lead)?),
        })
    }

    /// A marker for the quests' room, as its request; the lead's alone from the lead only.
    fn for_quests(&self, marker: Marker, lead: bool) -> Result<QuestRequest, Marker> {
        let (seat, from) = (self.seat, self.speaker());
        Ok(match marker {
            Marker::QuestPlan { template, stages } if lead => QuestRequest::Plan {
                template,
                stages: stages.into_iter().map(|s| s.agents).collect(),
            },
            Marker::StageNext { summon, dismiss } if lead => {
                QuestRequest::StageNext { summon, dismiss }
            }
            Marker::Report { title, body } if lead => QuestRequest::Report { title, body },
            Marker::Job { title, text } => QuestRequest::PostJob {
                seat,
                from,
                title,
                text,
            },
            Marker::Finding {
                title,
                body,
                severity,
                file,
                line,
            } => QuestRequest::Finding {
                seat,
                from,
                title,
                body,
                severity,
                at: file.map(|f| (f, line)),
            },
            Marker::StageDone {} => QuestRequest::StageDone { seat, from },
            Marker::Claim { job } => QuestRequest::Claim { seat, from, job },
            Marker::JobDone { job, result } => QuestRequest::JobDone {
                seat,
                from,
                job,
                result,
            },
            other => return Err(other),
        })
    }

    /// A request refused before it is made: recorded on the seat, once.
    fn refuse(&self, line: &str, why: String, out: &mut Output) {
        out.events.push(EventKind::MarkerError {
            seat: Some(self.seat),
            line: line.to_string(),
            error: why,
        });
    }

    /// Whether `name` is this agent's own.
    fn is_me(&self, name: &str) -> bool {
        self.name
            .as_deref()
            .is_some_and(|me| app::domain::names::fold(me) == app::domain::names::fold(name))
    }
}
