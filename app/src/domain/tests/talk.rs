//! Who talks to whom: the pairs an event joins (the grid's lines).

use super::super::events::EventKind;
use super::super::talk::{of_event, Pair};
use super::*;

fn pair(from: Seat, to: Seat) -> Pair {
    Pair { from, to }
}

fn posted(seat: Option<Seat>, mentioned: Vec<Seat>) -> EventKind {
    EventKind::TeamMessage {
        message_id: "p".into(),
        seat,
        speaker_name: "someone".into(),
        text: "@x".into(),
        mentioned,
    }
}

#[test]
fn an_event_joins_its_writer_and_readers_by_seat() {
    let wrote = EventKind::AgentWrote {
        message_id: "w".into(),
        from_seat: 0,
        to_seat: 4,
        speaker_name: "Lyra".into(),
        to_name: "Julian".into(),
        text: "hello".into(),
    };
    assert_eq!(of_event(&wrote), vec![pair(0, 4)]);
    assert_eq!(
        of_event(&posted(Some(2), vec![0, 1, 2])),
        vec![pair(2, 0), pair(2, 1)]
    );
    // The human is no face on the grid; other events join no one.
    assert!(of_event(&posted(None, vec![0, 1])).is_empty());
    assert!(of_event(&EventKind::SessionEnd { reason: None }).is_empty());
}
