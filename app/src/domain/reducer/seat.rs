//! A seat's identity taking shape: the lead's seat at a session's start, a newborn registering
//! its name and soul (never a name someone seated has), and a soul rewritten as a new version.

use super::super::docs::Problem;
use super::super::docs::{
    identities, identity, identity_soul_id, soul_id, AgentIdentity, Doc, Docs, SoulDoc,
};
use super::super::events::{Event, EventKind};
use super::super::status::AgentStatus;
use super::super::status::LeadBelief;
use super::super::work_cycle::{self, WorkState};
use super::super::{agent_seats, Seat, SEATS};
use super::writes::Writes;

/// Whether another seated identity than `seat`'s has `name` (any case) or `inbox` already.
/// The runtime checks names fully (Unicode-folded) before it records a registration; this is
/// the law's backstop, so that no log, however written, seats two agents under one name.
fn name_taken(docs: &Docs, seat: Seat, name: &str, inbox: Option<&str>) -> bool {
    let lower = name.trim().to_lowercase();
    identities(docs)
        .filter(|d| d.grid_position != seat && d.status().is_visible() && d.has_name())
        .any(|d| {
            d.name.as_deref().map(|n| n.trim().to_lowercase()) == Some(lower.clone())
                || (inbox.is_some() && d.inbox().as_deref() == inbox)
        })
}

/// `agent_registered`: a newborn's name and soul (the first version), alive.
pub(super) fn registered(w: &mut Writes, event: &Event) {
    let EventKind::AgentRegistered {
        seat,
        name,
        color_name,
        soul,
        claude_session_id,
        inbox,
    } = &event.kind
    else {
        return;
    };
    let seat = *seat;
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
pub(super) fn write_soul(w: &mut Writes, event: &Event, d: &mut AgentIdentity, soul: &str) {
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

pub(super) fn mark_alive(d: &mut AgentIdentity, event: &Event) {
    d.set_status(AgentStatus::Alive);
    d.last_alive_at = Some(event.ts);
    d.last_session_id = Some(event.session_id.clone());
}

/// `agent_status`: the lead's belief, recorded for each named agent, never applied (DESIGN §1).
pub(super) fn lead_belief(w: &mut Writes, event: &Event, seats: &[Seat]) {
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

/// `work_state`: a valid transition of the agent's work cycle (replaying the same report is a
/// no-op, not an invalid `x -> x`).
pub(super) fn work_state(w: &mut Writes, seat: Seat, state: WorkState) {
    w.update(seat, |d| {
        if d.work_state != Some(state) {
            if let Ok(next) = work_cycle::transition(d.work_state, state) {
                d.work_state = Some(next);
            }
        }
    });
}

/// A marker refused or a runtime error on a seat: its last problem (none without a seat).
pub(super) fn problem(w: &mut Writes, event: &Event) {
    let (seat, problem) = match &event.kind {
        EventKind::MarkerError {
            seat: Some(seat),
            line,
            error,
        } => {
            let who = w
                .current(*seat)
                .and_then(|d| d.name)
                .unwrap_or_else(|| "The agent".into());
            let problem = Problem {
                message: super::super::words::refused(&who, error),
                at: event.ts,
                detail: Some(format!("{line:.200}: {error}")),
            };
            (*seat, problem)
        }
        EventKind::RuntimeError {
            seat: Some(seat),
            message,
        } => {
            let problem = Problem {
                message: message.clone(),
                at: event.ts,
                detail: None,
            };
            (*seat, problem)
        }
        _ => return,
    };
    w.update(seat, |d| d.last_problem = Some(problem));
}

/// `soul_revised`: a seated, named agent's new soul.
pub(super) fn soul_revised(w: &mut Writes, event: &Event, seat: Seat, text: &str) {
    if let Some(mut d) = w
        .current(seat)
        .filter(|d| d.status().is_visible() && d.has_name())
    {
        write_soul(w, event, &mut d, text);
        w.put_identity(d);
    }
}
