//! Who talks to whom: the pairs new messages join (the grid's lines) and the pairs counted
//! over a window (the panel).

use super::super::events::EventKind;
use super::super::talk::{after, counts, with, Pair};
use super::super::LEAD_SEAT;
use super::*;

fn wrote(id: &str, from_seat: Seat, to_seat: Seat, from: &str, to: &str) -> EventKind {
    EventKind::AgentWrote {
        message_id: id.into(),
        from_seat,
        to_seat,
        speaker_name: from.into(),
        to_name: to.into(),
        text: "hello".into(),
    }
}

fn posted(id: &str, seat: Option<Seat>, mentioned: Vec<Seat>) -> EventKind {
    EventKind::TeamMessage {
        message_id: id.into(),
        seat,
        speaker_name: "someone".into(),
        text: "@x".into(),
        mentioned,
    }
}

fn pair(from: Seat, to: Seat) -> Pair {
    Pair { from, to }
}

#[test]
fn pairs_are_counted_over_the_window_from_the_messages() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1, 2])),
            ev(2, 0, register(0, "Lyra", "l")),
            ev(3, 0, register(1, "Kael", "k")),
            ev(4, 0, register(2, "Mira", "m")),
            ev(5, 5, wrote("old", 1, 0, "Kael", "Lyra")),
            ev(6, 10, wrote("w1", 0, 1, "Lyra", "Kael")),
            ev(7, 11, wrote("w2", 0, 1, "Lyra", "Kael")),
            ev(8, 12, wrote("w3", 0, LEAD_SEAT, "Lyra", "Julian")),
            ev(9, 20, posted("p1", Some(2), vec![0, 1])),
            ev(10, 21, posted("p2", None, vec![0])),
        ],
    );
    let c = counts(&docs, 8, "Julian");
    let got: Vec<(Pair, u32)> = c.iter().map(|(p, n)| (*p, *n)).collect();
    assert_eq!(
        got,
        vec![
            (pair(0, 1), 2),
            (pair(0, LEAD_SEAT), 1),
            (pair(2, 0), 1),
            (pair(2, 1), 1),
        ]
    );
    // Lyra's panel: Kael (wrote 2), then the lead and Mira, one each.
    assert_eq!(with(&c, 0), vec![(1, 2, 0), (2, 0, 1), (LEAD_SEAT, 1, 0)]);
    // The window: from 0, Kael's older letter counts too.
    assert_eq!(counts(&docs, 0, "Julian").get(&pair(1, 0)), Some(&1));
    // What is new after an event: the grid's lines (the human's post lights none).
    assert_eq!(after(&docs, 8, "Julian"), vec![pair(2, 0), pair(2, 1)]);
    assert_eq!(
        after(&docs, 7, "Julian"),
        vec![pair(0, LEAD_SEAT), pair(2, 0), pair(2, 1)]
    );
    assert!(after(&docs, 9, "Julian").is_empty());
}
