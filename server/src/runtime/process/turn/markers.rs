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

    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    pub(super) fn on_marker(&mut self, marker: Marker, docs: &Docs, out: &mut Output) {
        match marker {
            Marker::Register {
                name,
                color_name,
                soul,
                ..
            } => {
                if !self.summoning {
                    out.events.push(EventKind::MarkerError {
                        seat: Some(self.seat),
                        line: format!("register {name}"),
                        error: "only a newborn agent registers a name".into(),
                    });
                    return;
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
                    out.events.push(EventKind::MarkerError {
                        seat: Some(self.seat),
                        line: format!("register {name}"),
                        error: format!(
                            "the soul has {} bytes; it was cut to {MAX_SOUL_BYTES}",
                            soul.len()
                        ),
                    });
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
            Marker::Status { agents } if self.is_lead() => {
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
            Marker::Summon { seats, count } if self.is_lead() => {
                let seats = match seats.map(|s| s.into_iter().map(seat_from_number).collect()) {
                    Some(Err(why)) => return self.refuse("summon", why, out),
                    Some(Ok(seats)) => Some(seats),
                    None => None,
                };
                out.requests.push(LeadRequest::Summon { seats, count })
            }
            Marker::Dismiss { name } if self.is_lead() => {
                out.requests.push(LeadRequest::Dismiss { name })
            }
            Marker::Kill { name, cascade } if self.is_lead() => {
                out.requests.push(LeadRequest::Kill { name, cascade })
            }
            Marker::Recall { name, seat } if self.is_lead() => {
                match seat.map(seat_from_number).transpose() {
                    Ok(seat) => out.requests.push(LeadRequest::Recall { name, seat }),
                    Err(why) => self.refuse(&format!("recall {name}"), why, out),
                }
            }
            Marker::Fork {
                prompt,
                agent,
                seat,
            } => {
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
                    Some(agent) => {
                        match seat_named(docs, &agent) {
                            Some(seat) => seat,
                            None => {
                                let why = format!("nobody on the team is called {agent:?}: call team for the names");
                                return self.refuse("fork", why, out);
                            }
                        }
                    }
                };
                out.requests.push(LeadRequest::Fork {
                    seat: parent,
                    by: self.seat,
                    from: self.speaker(),
                    prompt,
                    into,
                })
            }
            Marker::Soul { text } if text.len() > MAX_SOUL_BYTES => {
                out.events.push(EventKind::MarkerError {
                    seat: Some(self.seat),
                    line: "soul".into(),
                    error: format!(
                        "a soul may have {MAX_SOUL_BYTES} bytes; this one has {}",
                        text.len()
                    ),
                })
            }
            Marker::Soul { text } if self.name.is_some() && !self.summoning => {
                out.events.push(EventKind::SoulRevised {
                    seat: self.seat,
                    text,
                })
            }
            Marker::Soul { .. } => out.events.push(EventKind::MarkerError {
                seat: Some(self.seat),
                line: "soul".into(),
                error: "only an agent with a name rewrites its soul".into(),
            }),
            Marker::Review { project, note } => out.requests.push(LeadRequest::RequestReview {
                seat: self.seat,
                project,
                note,
            }),
            Marker::ClaimFiles {
                paths,
                why,
                project,
            } => out.requests.push(LeadRequest::ClaimFiles {
                seat: self.seat,
                project,
                paths,
                why,
            }),
            Marker::PutToWork { agent, project } if self.is_lead() => {
                out.requests.push(LeadRequest::PutToWork { agent, project })
            }
            Marker::DecidePermission {
                request,
                decision,
                reason,
            } if self.is_lead() => out.requests.push(LeadRequest::DecidePermission {
                request,
                decision,
                reason,
            }),
            Marker::Route { to, text } => out.requests.push(LeadRequest::Route {
                seat: self.seat,
                from: self.speaker(),
                to,
                text,
            }),
            Marker::QuestPlan { template, stages } if self.is_lead() => {
                out.requests.push(LeadRequest::Quest(QuestRequest::Plan {
                    template,
                    stages: stages.into_iter().map(|s| s.agents).collect(),
                }))
            }
            Marker::StageNext { summon, dismiss } if self.is_lead() => {
                out.requests
                    .push(LeadRequest::Quest(QuestRequest::StageNext {
                        summon,
                        dismiss,
                    }))
            }
            Marker::Report { title, body } if self.is_lead() => out
                .requests
                .push(LeadRequest::Quest(QuestRequest::Report { title, body })),
            Marker::Job { title, text } => {
                out.requests.push(LeadRequest::Quest(QuestRequest::PostJob {
                    seat: self.seat,
                    from: self.speaker(),
                    title,
                    text,
                }))
            }
            Marker::Finding {
                title,
                body,
                severity,
                file,
                line,
            } => out.requests.push(LeadRequest::Quest(QuestRequest::Finding {
                seat: self.seat,
                from: self.speaker(),
                title,
                body,
                severity,
                at: file.map(|f| (f, line)),
            })),
            Marker::StageDone {} => {
                out.requests
                    .push(LeadRequest::Quest(QuestRequest::StageDone {
                        seat: self.seat,
                        from: self.speaker(),
                    }))
            }
            Marker::Claim { job } => out.requests.push(LeadRequest::Quest(QuestRequest::Claim {
                seat: self.seat,
                from: self.speaker(),
                job,
            })),
            Marker::JobDone { job, result } => {
                out.requests.push(LeadRequest::Quest(QuestRequest::JobDone {
                    seat: self.seat,
                    from: self.speaker(),
                    job,
                    result,
                }))
            }
            other => out.events.push(EventKind::MarkerError {
                seat: Some(self.seat),
                line: format!("{other:?}"),
                error: "only the lead may use this action".into(),
            }),
        }
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
