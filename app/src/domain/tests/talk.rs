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

mod counted {
    use crate::domain::docs::{Doc, Docs};
    use crate::domain::events::EventKind;
    use crate::domain::talk::{counts, talk_id, WINDOW_MS};
    use crate::domain::tests::{ev, register, run, summon_ids};

    fn wrote(from: u8, to: u8, m: &str) -> EventKind {
        EventKind::AgentWrote {
            message_id: m.into(),
            from_seat: from,
            to_seat: to,
            speaker_name: "A".into(),
            to_name: "B".into(),
            text: "hi".into(),
        }
    }

    fn post() -> EventKind {
        EventKind::TeamMessage {
            message_id: "c1".into(),
            seat: Some(0),
            speaker_name: "Lyra".into(),
            text: "@Kael @Zoe".into(),
            mentioned: vec![1, 2],
        }
    }

    fn talk(docs: &Docs, who: &str, since: i64) -> Vec<(String, u32, u32)> {
        docs.get(&talk_id(who))
            .and_then(Doc::as_talk)
            .map(|t| counts(t, since))
            .unwrap_or_default()
    }

    #[test]
    fn each_pair_is_counted_by_identity_for_the_last_hour_once_per_event() {
        let mut docs = Docs::new();
        run(
            &mut docs,
            &[
                ev(1, 0, summon_ids(&[(0, "lyra"), (1, "kael"), (2, "zoe")])),
                ev(2, 0, register(0, "Lyra", "s")),
                ev(3, 0, register(1, "Kael", "s")),
                ev(4, 0, register(2, "Zoe", "s")),
                ev(5, 1_000, wrote(0, 1, "w1")),
                ev(6, 2_000, wrote(1, 0, "w2")),
                ev(7, 3_000, post()),
            ],
        );
        assert_eq!(
            talk(&docs, "lyra", 0),
            vec![("kael".into(), 2, 1), ("zoe".into(), 1, 0)]
        );
        assert_eq!(talk(&docs, "zoe", 0), vec![("lyra".into(), 0, 1)]);
        // Applied again (a replay): nothing more.
        let again = docs.clone();
        run(&mut docs, &[ev(7, 3_000, post())]);
        assert_eq!(docs, again);
        // An hour after, the old talk is out of the count, and of the document at its next write.
        assert_eq!(talk(&docs, "lyra", 3_000), vec![]);
        run(
            &mut docs,
            &[ev(8, 3_000 + WINDOW_MS + 1, wrote(2, 0, "w3"))],
        );
        let lyra = docs.get(&talk_id("lyra")).and_then(Doc::as_talk).unwrap();
        assert_eq!(lyra.recent.len(), 1);
    }
}
