//! `apply(docs, event) -> writes`: the one place where events become documents (DESIGN §4).
//!
//! Laws the tests hold it to: applying the same event twice gives the documents of applying it
//! once (two tabs, a replayed stream); no event removes a document; an `expired` seat is never
//! brought back by a status report; a seat only becomes `alive` through `agent_registered` or a
//! live `agent_process` (the lead's `agent_status` is a belief, recorded and never applied).

mod hall;
mod ledger;
mod writes;

use super::docs::{
    identity, identity_soul_id, soul_id, AgentIdentity, Doc, DocWrite, Docs, Problem, SoulDoc,
    SpeakerType,
};
use super::events::{Event, EventKind};
use super::permissions::{permission_id, updates_for, Decision, PermissionDoc, PermissionState};
use super::process::{can_transition, ProcessState};
use super::status::{AgentStatus, LeadBelief};
use super::work_cycle;
use super::{agent_seats, Seat, HATCHING_TTL_MS, LEAD_SEAT, SEATS};
use writes::Writes;

/// The writes `event` makes to `docs`. Pure: `docs` is not changed.
pub fn apply(docs: &Docs, event: &Event) -> Vec<DocWrite> {
    let mut w = Writes::new(docs);
    match &event.kind {
        EventKind::SessionStart { lead_name, .. } => session_start(&mut w, event, lead_name),
        EventKind::SessionEnd { .. } => {
            w.cancel_pending(None, event, "the session ended");
            for seat in 0..SEATS {
                ledger::count(
                    &mut w,
                    event,
                    ledger::Report::stopped(seat, "session ended"),
                );
            }
            for seat in 0..SEATS {
                w.update(seat, |d| {
                    if d.status() == AgentStatus::Alive {
                        d.set_status(AgentStatus::Sleeping);
                    }
                    if d.process_state.is_some_and(|p| p != ProcessState::Stopped) {
                        d.process_state = Some(ProcessState::Stopped);
                        d.process_reason = Some("session ended".into());
                    }
                    // A new session starts without the old lead's beliefs.
                    d.lead_belief = None;
                });
            }
        }
        EventKind::AgentsSummoned { seats } => {
            for s in seats
                .iter()
                .filter(|s| s.seat != LEAD_SEAT && s.seat < SEATS)
            {
                let vacant =
                    identity(docs, s.seat).is_none_or(|d| d.status() == AgentStatus::Expired);
                if vacant {
                    let mut d = AgentIdentity::new(s.seat, AgentStatus::Hatching);
                    d.created_at = Some(event.ts);
                    d.uuid = s.uuid.clone();
                    d.identity_id = s.uuid.clone();
                    w.put_identity(d);
                }
            }
        }
        EventKind::AgentRegistered {
            seat,
            name,
            color_name,
            soul,
            claude_session_id,
            inbox,
        } => register(
            &mut w,
            event,
            Registration {
                seat: *seat,
                name,
                color_name,
                soul,
                claude_session_id,
                inbox,
            },
        ),
        // The lead's belief: recorded for each named agent, never applied (DESIGN §1).
        EventKind::AgentStatus { seats } => {
            for seat in agent_seats() {
                let alive = seats.contains(&seat);
                w.update(seat, |d| {
                    if d.has_name() && d.status() != AgentStatus::Expired {
                        d.lead_belief = Some(LeadBelief {
                            alive,
                            at: event.ts,
                        });
                    }
                });
            }
        }
        EventKind::AgentProcess {
            seat,
            state,
            reason,
            claude_session_id,
            context_tokens,
            cost_usd,
            tool,
            usage,
        } => {
            // The same state again says what the process is doing now; anything else must be
            // a transition of the machine, or it is said on the seat and not applied.
            let from = identity(docs, *seat).map(|d| d.process_state);
            if let Some(from) = from.filter(|f| *f != Some(*state) && !can_transition(*f, *state)) {
                let from = from.map_or("no process", ProcessState::as_str);
                w.update(*seat, |d| {
                    d.last_problem = Some(Problem {
                        message: format!(
                            "impossible process transition {from} → {} (ignored)",
                            state.as_str()
                        ),
                        at: event.ts,
                    });
                });
                return w.finish();
            }
            ledger::count(
                &mut w,
                event,
                ledger::Report {
                    seat: *seat,
                    state: *state,
                    reason: reason.as_deref(),
                    claude_session_id: claude_session_id.as_deref(),
                    cost_usd: *cost_usd,
                    tool: tool.as_deref(),
                    usage: *usage,
                },
            );
            // A request holds its turn: once the turn is over (interrupted) or the process is
            // gone, nobody can answer it any more.
            match state {
                ProcessState::Stopped => {
                    w.cancel_pending(Some(*seat), event, "the agent's process stopped")
                }
                ProcessState::Idle => {
                    w.cancel_pending(Some(*seat), event, "the turn ended without an answer")
                }
                _ => {}
            }
            w.update(*seat, |d| {
                d.process_state = Some(*state);
                d.process_reason = reason.clone();
                if let Some(id) = claude_session_id {
                    d.claude_session_id = Some(id.clone());
                }
                if context_tokens.is_some() {
                    d.context_tokens = *context_tokens;
                }
                if cost_usd.is_some() {
                    d.cost_usd = *cost_usd;
                }
                match (*state, d.status()) {
                    // A fresh process starts a fresh work cycle.
                    (ProcessState::Starting, _) => d.work_state = None,
                    (_, AgentStatus::Expired) => {}
                    (_, AgentStatus::Hatching) if !d.has_name() => {}
                    (s, _) if s.is_live() => mark_alive(d, event),
                    (ProcessState::Stopped, AgentStatus::Alive) => {
                        d.set_status(AgentStatus::Sleeping)
                    }
                    _ => {}
                }
            })
        }
        EventKind::HatchingExpired { seats } => {
            for seat in seats {
                w.update(*seat, |d| {
                    let old = d
                        .created_at
                        .is_none_or(|c| event.ts.saturating_sub(c) >= HATCHING_TTL_MS);
                    if d.status() == AgentStatus::Hatching && !d.has_name() && old {
                        d.set_status(AgentStatus::Expired);
                    }
                });
            }
        }
        EventKind::UserMessage {
            message_id: id,
            speaker_name,
            seat,
            text,
            target_agent,
        } => w.put_message(
            event,
            id,
            speaker_name,
            SpeakerType::Human,
            *seat,
            text,
            target_agent,
        ),
        EventKind::AgentMessage {
            message_id: id,
            seat,
            speaker_name,
            text,
            target_agent,
        } => {
            let speaker = if *seat == LEAD_SEAT {
                SpeakerType::Lead
            } else {
                SpeakerType::Agent
            };
            w.put_message(event, id, speaker_name, speaker, *seat, text, target_agent)
        }
        EventKind::LeadText {
            message_id: id,
            speaker_name,
            text,
        } => w.put_message(
            event,
            id,
            speaker_name,
            SpeakerType::Lead,
            LEAD_SEAT,
            text,
            &None,
        ),
        EventKind::WorkState { seat, state } => w.update(*seat, |d| {
            // Replaying the same report is a no-op, not an invalid `x -> x` transition.
            if d.work_state != Some(*state) {
                if let Ok(next) = work_cycle::transition(d.work_state, *state) {
                    d.work_state = Some(next);
                }
            }
        }),
        EventKind::MarkerError {
            seat: Some(seat),
            line,
            error,
        } => w.update(*seat, |d| {
            d.last_problem = Some(Problem {
                message: format!("bad marker {line:.80}: {error}"),
                at: event.ts,
            });
        }),
        EventKind::RuntimeError {
            seat: Some(seat),
            message,
        } => w.update(*seat, |d| {
            d.last_problem = Some(Problem {
                message: message.clone(),
                at: event.ts,
            });
        }),
        EventKind::PermissionRequest {
            seat,
            request_id,
            tool_name,
            input,
            description,
            suggestions,
            tool_use_id,
        } => {
            let id = permission_id(request_id);
            // The first request with an id is the request; a replay writes nothing.
            if *seat < SEATS && docs.get(&id).is_none() {
                let doc = PermissionDoc {
                    id: id.clone(),
                    seat: *seat,
                    request_id: request_id.clone(),
                    tool_name: tool_name.clone(),
                    input: input.clone(),
                    description: description.clone(),
                    suggestions: suggestions.clone(),
                    tool_use_id: tool_use_id.clone(),
                    state: PermissionState::Pending,
                    message: None,
                    decided_by: None,
                    created_at: event.ts,
                    decided_at: None,
                    remembered: Vec::new(),
                    event_id: event.id,
                    identity_id: identity(docs, *seat).map(AgentIdentity::stable_id),
                    extra: Default::default(),
                };
                w.put(id, Doc::Permission(doc));
            }
        }
        EventKind::PermissionDecision {
            request_id,
            decision,
            message,
            decided_by,
            suggestion,
            ..
        } => w.settle(request_id, |p| {
            p.state = match decision {
                Decision::Allow | Decision::AllowAlways => PermissionState::Allowed,
                Decision::Deny => PermissionState::Denied,
            };
            if *decision == Decision::AllowAlways {
                p.remembered = updates_for(p, *suggestion).unwrap_or_default();
            }
            p.message = message.clone();
            p.decided_by = Some(*decided_by);
            p.decided_at = Some(event.ts);
        }),
        EventKind::AgentKilled { seat, reason } => hall::retire(&mut w, event, *seat, reason),
        EventKind::AgentRecalled { identity_id, seat } => {
            hall::recall(&mut w, event, identity_id, *seat)
        }
        EventKind::AgentForked {
            seat,
            uuid,
            parent_id,
            fork_message_id,
        } => hall::fork(&mut w, event, *seat, uuid, parent_id, fork_message_id),
        EventKind::SoulRevised { seat, text } => {
            if let Some(mut d) = w
                .current(*seat)
                .filter(|d| d.status().is_visible() && d.has_name())
            {
                write_soul(&mut w, event, &mut d, text);
                w.put_identity(d);
            }
        }
        EventKind::MarkerError { seat: None, .. }
        | EventKind::RuntimeError { seat: None, .. }
        | EventKind::Unknown => {}
    }
    w.finish()
}

fn session_start(w: &mut Writes, event: &Event, lead_name: &Option<String>) {
    let Some(lead_name) = lead_name else { return };
    match identity(w.docs, LEAD_SEAT) {
        Some(d) if d.name.as_deref() == Some(lead_name.as_str()) => {}
        Some(_) => w.update(LEAD_SEAT, |d| d.name = Some(lead_name.clone())),
        None => {
            // The lead sleeps until its process runs: liveness comes from the process.
            let mut d = AgentIdentity::new(LEAD_SEAT, AgentStatus::Sleeping);
            d.name = Some(lead_name.clone());
            d.created_at = Some(event.ts);
            w.put_identity(d);
        }
    }
}

/// The fields of an `agent_registered` event.
struct Registration<'a> {
    seat: Seat,
    name: &'a str,
    color_name: &'a Option<String>,
    soul: &'a Option<String>,
    claude_session_id: &'a Option<String>,
    inbox: &'a Option<String>,
}

/// Whether another seated identity than `seat`'s has `name` (any case) or `inbox` already.
/// The runtime checks names fully (Unicode-folded) before it records a registration; this is
/// the law's backstop, so that no log, however written, seats two agents under one name.
fn name_taken(docs: &Docs, seat: Seat, name: &str, inbox: Option<&str>) -> bool {
    let lower = name.trim().to_lowercase();
    super::docs::identities(docs)
        .filter(|d| d.grid_position != seat && d.status().is_visible() && d.has_name())
        .any(|d| {
            d.name.as_deref().map(|n| n.trim().to_lowercase()) == Some(lower.clone())
                || (inbox.is_some() && d.inbox().as_deref() == inbox)
        })
}

fn register(w: &mut Writes, event: &Event, r: Registration<'_>) {
    let Registration {
        seat,
        name,
        color_name,
        soul,
        claude_session_id,
        inbox,
    } = r;
    if seat >= SEATS || name.trim().is_empty() {
        return;
    }
    if name_taken(w.docs, seat, name, inbox.as_deref()) {
        return;
    }
    let mut d = identity(w.docs, seat)
        .cloned()
        .unwrap_or_else(|| AgentIdentity::new(seat, AgentStatus::Hatching));
    if d.status() == AgentStatus::Expired {
        // Too late: the placeholder expired. A new SUMMON gives the seat a fresh egg.
        return;
    }
    if let Some(inbox) = inbox {
        d.inbox = Some(inbox.clone());
    }
    d.name = Some(name.to_string());
    if let Some(c) = color_name {
        d.color_name = Some(c.clone());
    }
    if let Some(id) = claude_session_id {
        d.claude_session_id = Some(id.clone());
    }
    d.created_at.get_or_insert(event.ts);
    if let Some(soul) = soul {
        write_soul(w, event, &mut d, soul);
    }
    mark_alive(&mut d, event);
    w.put_identity(d);
}

/// A new version of `d`'s soul, when `soul` is not empty and differs from the current one (so a
/// replayed event writes nothing new).
fn write_soul(w: &mut Writes, event: &Event, d: &mut AgentIdentity, soul: &str) {
    if soul.trim().is_empty() || d.individuation_artifact.as_deref() == Some(soul) {
        return;
    }
    d.soul_version += 1;
    d.individuation_artifact = Some(soul.to_string());
    // Souls belong to the identity; one without an id (older data) keeps the seat's.
    let owner = d.identity_id.clone().or_else(|| d.uuid.clone());
    let id = match &owner {
        Some(owner) => identity_soul_id(owner, d.soul_version),
        None => soul_id(d.grid_position, d.soul_version),
    };
    w.put(
        id.clone(),
        Doc::Soul(SoulDoc {
            id,
            seat: d.grid_position,
            version: d.soul_version,
            name: d.name.clone(),
            text: soul.to_string(),
            created_at: event.ts,
            identity_id: owner,
            extra: Default::default(),
        }),
    );
}

fn mark_alive(d: &mut AgentIdentity, event: &Event) {
    d.set_status(AgentStatus::Alive);
    d.last_alive_at = Some(event.ts);
    d.last_session_id = Some(event.session_id.clone());
}
