//! Naming a moment for time travel, and clamping one outside the log.

use crate::domain::events::{Event, EventKind};
use crate::domain::moment::*;

#[test]
fn a_moment_is_an_event_number_a_time_in_milliseconds_or_an_iso_time() {
    assert_eq!(parse("5", 40), Ok(At::Event(5)));
    // Past the end, but no plausible time: an event past the end (never 1970).
    assert_eq!(parse("99999", 40), Ok(At::Event(99_999)));
    assert_eq!(parse("1764170000000", 40), Ok(At::Time(1_764_170_000_000)));
    assert_eq!(
        parse("2026-11-26T16:00:00Z", 40),
        Ok(At::Time(
            crate::domain::time::parse_iso("2026-11-26T16:00:00Z").unwrap()
        ))
    );
    for bad in ["someday", "-3", "", "5e3", "1.5"] {
        let e = parse(bad, 40).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{bad:?} is neither an event number nor a time")
        );
    }
}

#[test]
fn a_moment_outside_the_log_is_clamped_to_its_first_or_newest_event() {
    assert_eq!(clamp_event(0, 40), (1, Some(Clamped::BeforeFirst)));
    assert_eq!(clamp_event(41, 40), (40, Some(Clamped::AfterLast)));
    assert_eq!(clamp_event(40, 40), (40, None));
    assert_eq!(clamp_event(7, 0), (0, None));
    let line = Timeline {
        first: 1_000,
        last: 9_000,
        sessions: vec![1_000],
        quests: vec![],
    };
    assert_eq!(clamp_time(999, &line, 40), Some((1, Clamped::BeforeFirst)));
    assert_eq!(clamp_time(9_001, &line, 40), Some((40, Clamped::AfterLast)));
    assert_eq!(clamp_time(1_000, &line, 40), None);
    assert_eq!(clamp_time(9_000, &line, 40), None);
}

#[test]
fn the_line_of_time_starts_at_the_first_event_and_marks_each_session() {
    let event = |id: u64, ts: i64, kind: EventKind| Event {
        id,
        ts,
        session_id: "s".into(),
        kind,
    };
    let start = || EventKind::SessionStart {
        lead_name: None,
        human_name: None,
    };
    let mut line = None;
    extend(&mut line, &event(1, 100, start()));
    extend(
        &mut line,
        &event(2, 150, EventKind::SessionEnd { reason: None }),
    );
    extend(&mut line, &event(3, 300, start()));
    let quest = EventKind::QuestStarted {
        quest_id: "q".into(),
        problem: "x".repeat(200),
        folder: None,
        project: None,
    };
    extend(&mut line, &event(4, 400, quest));
    let want = Timeline {
        first: 100,
        last: 400,
        sessions: vec![100, 300],
        quests: vec![(400, "x".repeat(MARK_CHARS))],
    };
    assert_eq!(line, Some(want));
}
