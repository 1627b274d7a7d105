//! Who talks to whom: one agent's letter to another (`agent_wrote`) and an agent's post in
//! #team that names others (`team_message`), as pairs of seats, writer → reader, read from
//! the event itself (the seats it was written from and filed for, whoever sits there later).
//! The grid lights a line for each pair as the event arrives; each identity's [`TalkDoc`] keeps
//! the last hour of it, by identity, for the detail panel's count per pair.

pub use super::docs::{talk_id, TalkDoc, Talked, TYPE_TALK};
use super::events::EventKind;
use super::{Millis, Seat};

/// A writer and a reader, by seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    pub from: Seat,
    pub to: Seat,
}

/// The pairs an event joins, writer → reader: none for any other event, nor for the human's
/// posts (the human is no face on the grid).
pub fn of_event(kind: &EventKind) -> Vec<Pair> {
    match kind {
        EventKind::AgentWrote {
            from_seat, to_seat, ..
        } if from_seat != to_seat => vec![Pair {
            from: *from_seat,
            to: *to_seat,
        }],
        EventKind::TeamMessage {
            seat: Some(from),
            mentioned,
            ..
        } => mentioned
            .iter()
            .filter(|to| *to != from)
            .map(|to| Pair {
                from: *from,
                to: *to,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// How long a pair's talk is counted for (the detail panel's "last hour").
pub const WINDOW_MS: Millis = 60 * 60 * 1000;
/// The most talk one identity's document keeps (the newest).
pub const KEPT: usize = 500;

/// Per other identity, how many it wrote to and heard from `who` since `since`, most first.
pub fn counts(doc: &TalkDoc, since: Millis) -> Vec<(String, u32, u32)> {
    let mut by: std::collections::BTreeMap<&str, (u32, u32)> = Default::default();
    for t in doc.recent.iter().filter(|t| t.at > since) {
        let c = by.entry(t.with.as_str()).or_default();
        match t.wrote {
            true => c.0 += 1,
            false => c.1 += 1,
        }
    }
    let mut v: Vec<(String, u32, u32)> = by
        .into_iter()
        .map(|(w, (a, b))| (w.to_string(), a, b))
        .collect();
    v.sort_by_key(|(_, a, b)| std::cmp::Reverse(a + b));
    v
}
