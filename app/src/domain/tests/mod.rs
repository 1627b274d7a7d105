//! Tests of the domain core: one file per rule, plus property tests of the reducer laws.

mod budget;
mod buttons;
mod channel;
mod docs;
mod escalation;
mod events;
mod hall;
mod knowledge;
mod life;
mod markers;
mod moment;
mod names;
mod page;
mod permissions;
mod projects;
mod props;
mod provenance;
mod quest;
mod reducer;
mod reducer_process;
mod replica;
mod rules;
mod spectate;
mod state_file;
mod talk;
mod thread_items;
mod tools;
mod wake;
mod work;

use super::docs::{commit, identity, AgentIdentity, Docs};
use super::events::{Event, EventKind, SummonedSeat};
use super::reducer::apply;
use super::{Millis, Seat};

pub(super) const SESSION: &str = "session-1";

pub(super) fn ev(id: u64, ts: Millis, kind: EventKind) -> Event {
    Event {
        id,
        ts,
        session_id: SESSION.into(),
        kind,
    }
}

/// Applies events in order, committing each event's writes.
pub(super) fn run(docs: &mut Docs, events: &[Event]) {
    for e in events {
        let writes = apply(docs, e);
        commit(docs, writes);
    }
}

pub(super) fn summon(seats: &[Seat]) -> EventKind {
    EventKind::AgentsSummoned {
        seats: seats
            .iter()
            .map(|&seat| SummonedSeat {
                seat,
                uuid: Some(format!("uuid-{seat}")),
                secret_hash: None,
            })
            .collect(),
    }
}

/// Eggs for `seats`, each with the identity id given.
pub(super) fn summon_ids(seats: &[(Seat, &str)]) -> EventKind {
    EventKind::AgentsSummoned {
        seats: seats
            .iter()
            .map(|(seat, id)| SummonedSeat {
                seat: *seat,
                uuid: Some(id.to_string()),
                secret_hash: None,
            })
            .collect(),
    }
}

pub(super) fn register(seat: Seat, name: &str, soul: &str) -> EventKind {
    EventKind::AgentRegistered {
        seat,
        name: name.into(),
        color_name: None,
        soul: Some(soul.into()),
        claude_session_id: None,
        inbox: None,
    }
}

pub(super) fn process(seat: Seat, state: super::process::ProcessState) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state,
        reason: None,
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    }
}

pub(super) fn seat(docs: &Docs, s: Seat) -> &AgentIdentity {
    identity(docs, s).unwrap_or_else(|| panic!("seat {s} has no identity"))
}

/// Lyra's words in `seat`'s thread.
pub(super) fn agent_msg(id: &str, seat: Seat, text: &str) -> EventKind {
    EventKind::AgentMessage {
        message_id: id.into(),
        seat,
        speaker_name: "Lyra".into(),
        text: text.into(),
        target_agent: None,
        aside: None,
    }
}

/// Marcus's words to `seat`.
pub(super) fn human_msg(id: &str, seat: Seat, text: &str) -> EventKind {
    EventKind::UserMessage {
        message_id: id.into(),
        speaker_name: "Marcus".into(),
        seat,
        text: text.into(),
        target_agent: Some("Lyra".into()),
    }
}
