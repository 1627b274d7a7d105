//! Time travel's rules: how a moment is named in `/?at=` (an event number or a time), where a
//! moment outside the log is clamped to and why, and the log's line of time the slider spans
//! (its first and newest event, and where each server session began). The store and the
//! browser keep the line with the same function, so both draw the same slider.

use serde::{Deserialize, Serialize};

use super::events::{Event, EventKind};
use super::Millis;

/// A number at least this large is a time (milliseconds since the epoch, from 1973 on), not an
/// event number.
pub const FIRST_TIME_MS: u64 = 100_000_000_000;

/// A moment as `/?at=` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// After this event.
    Event(u64),
    /// The last event at or before this time.
    Time(Millis),
}

/// `/?at=` named no moment.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is neither an event number nor a time")]
pub struct BadMoment(pub String);

/// Where a moment outside the log was moved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clamped {
    /// It was before the first event: the first is shown.
    BeforeFirst,
    /// It was after the newest event: the newest is shown.
    AfterLast,
}

/// Reads `/?at=`: an event number up to `last` (a larger one below [`FIRST_TIME_MS`] is an
/// event past the end), milliseconds since the epoch, or an RFC 3339 time.
pub fn parse(at: &str, last: u64) -> Result<At, BadMoment> {
    let at = at.trim();
    if let Ok(n) = at.parse::<u64>() {
        return Ok(match n <= last || n < FIRST_TIME_MS {
            true => At::Event(n),
            false => At::Time(n as Millis),
        });
    }
    super::time::parse_iso(at)
        .map(At::Time)
        .ok_or_else(|| BadMoment(at.to_string()))
}

/// Event `n` within a log of `last` events (`1..=last`; an empty log has only 0).
pub fn clamp_event(n: u64, last: u64) -> (u64, Option<Clamped>) {
    match n {
        _ if last == 0 => (0, None),
        0 => (1, Some(Clamped::BeforeFirst)),
        n if n > last => (last, Some(Clamped::AfterLast)),
        n => (n, None),
    }
}

/// The time `ms` within `line`: `None` when it falls among the events (the store finds the one),
/// else the event it is clamped to.
pub fn clamp_time(ms: Millis, line: &Timeline, last: u64) -> Option<(u64, Clamped)> {
    match ms {
        ms if ms < line.first => Some((1.min(last), Clamped::BeforeFirst)),
        ms if ms > line.last => Some((last, Clamped::AfterLast)),
        _ => None,
    }
}

/// The log's line of time: its first and newest event, and when each server session began.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    pub first: Millis,
    pub last: Millis,
    /// When each session began, oldest first.
    #[serde(default)]
    pub sessions: Vec<Millis>,
    /// When each quest began, and its problem (cut to [`MARK_CHARS`]), oldest first.
    #[serde(default)]
    pub quests: Vec<(Millis, String)>,
}

/// How much of a quest's problem its mark on the line carries.
pub const MARK_CHARS: usize = 80;

/// The marks of the quests in `docs` (a log read from its documents rather than its events).
pub fn quest_marks(docs: &super::docs::Docs) -> Vec<(Millis, String)> {
    let mut marks: Vec<(Millis, String)> = super::quest::quests(docs)
        .into_iter()
        .map(|q| (q.created_at, cut(&q.problem)))
        .collect();
    marks.sort();
    marks
}

fn cut(problem: &str) -> String {
    super::docs::cut_to(problem, MARK_CHARS).to_string()
}

/// The line of time with `event` appended to the log (the first event starts it).
pub fn extend(line: &mut Option<Timeline>, event: &Event) {
    let line = line.get_or_insert_with(|| Timeline {
        first: event.ts,
        last: event.ts,
        sessions: Vec::new(),
        quests: Vec::new(),
    });
    line.last = line.last.max(event.ts);
    match &event.kind {
        EventKind::SessionStart { .. } => line.sessions.push(event.ts),
        EventKind::QuestStarted { problem, .. } => line.quests.push((event.ts, cut(problem))),
        _ => {}
    }
}
