//! Who talks to whom: one agent's letter to another (`agent_wrote`) and an agent's post in
//! #team that names others (`team_message`), as pairs of seats, writer → reader, read from
//! the event itself (the seats it was written from and filed for, whoever sits there later).
//! The grid lights a line for each pair as the event arrives.

use super::events::EventKind;
use super::Seat;

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
