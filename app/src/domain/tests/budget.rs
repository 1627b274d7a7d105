//! Budgets: spend counted per UTC day and month from each turn's cost, limits checked, the
//! team's and each agent's.

use super::super::budget::{limit, reached, standings, team_spent, Level, Period};
use super::super::docs::Docs;
use super::super::events::{EventKind, TurnUsage};
use super::super::life::ledger_of;
use super::super::process::ProcessState;
use super::*;

const DAY: Millis = 86_400_000;
/// 2026-11-27 00:00 UTC.
const NOV27: Millis = 1_795_737_600_000;

fn turn(seat: Seat, total_usd: f64) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state: ProcessState::Idle,
        reason: None,
        claude_session_id: Some(format!("s{seat}")),
        context_tokens: None,
        cost_usd: Some(total_usd),
        tool: None,
        usage: Some(TurnUsage::default()),
    }
}

fn set(agent: Option<&str>, day: Option<u64>, month: Option<u64>) -> EventKind {
    EventKind::BudgetSet {
        agent: agent.map(Into::into),
        per_day_micro_usd: day,
        per_month_micro_usd: month,
    }
}

fn team() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, NOV27, summon_ids(&[(0, "lyra"), (1, "kael")])),
            ev(2, NOV27, register(0, "Lyra", "soul")),
            ev(3, NOV27, register(1, "Kael", "soul")),
            ev(4, NOV27, process(0, ProcessState::Starting)),
            ev(5, NOV27, process(0, ProcessState::Running)),
            ev(6, NOV27, process(1, ProcessState::Starting)),
            ev(7, NOV27, process(1, ProcessState::Running)),
        ],
    );
    docs
}

#[test]
fn spend_is_counted_per_utc_day_and_month_and_starts_again_when_either_turns() {
    assert_eq!(crate::domain::time::day_key(NOV27), "2026-11-27");
    let mut docs = team();
    run(
        &mut docs,
        &[
            ev(14, NOV27 + 10, turn(0, 1.5)),
            // The process reports its total: 2.0 is 0.5 more.
            ev(15, NOV27 + 20, turn(0, 2.0)),
            ev(16, NOV27 + DAY + 5, turn(0, 3.0)),
        ],
    );
    let l = ledger_of(&docs, "lyra").unwrap();
    assert_eq!(l.spend_day.as_deref(), Some("2026-11-28"));
    assert_eq!(l.day_micro_usd, 1_000_000);
    assert_eq!(l.month_micro_usd, 3_000_000);
    // Read on a later day, nothing was spent that day; in December, nothing that month.
    assert_eq!(team_spent(&docs, NOV27 + DAY + 9), (1_000_000, 3_000_000));
    assert_eq!(team_spent(&docs, NOV27 + 2 * DAY), (0, 3_000_000));
    assert_eq!(team_spent(&docs, NOV27 + 5 * DAY), (0, 0));
}

#[test]
fn an_agent_reaches_its_own_limit_or_the_teams_and_80_percent_is_near() {
    let mut docs = team();
    run(
        &mut docs,
        &[
            ev(14, NOV27, set(Some("lyra"), Some(2_000_000), None)),
            ev(15, NOV27, set(None, None, Some(5_000_000))),
            ev(16, NOV27 + 1, turn(0, 1.7)),
        ],
    );
    let s = standings(&docs, "lyra", NOV27 + 2);
    assert_eq!(s[0].period, Period::Day);
    assert_eq!(s[0].level(), Level::Near);
    assert_eq!(s[0].words(), "its daily budget: $1.70 of $2.00 today");
    assert_eq!(reached(&docs, "lyra", NOV27 + 2), None);
    run(&mut docs, &[ev(17, NOV27 + 3, turn(0, 2.1))]);
    let hit = reached(&docs, "lyra", NOV27 + 4).unwrap();
    assert_eq!(hit.agent.as_deref(), Some("lyra"));
    // The next day it may work again; Kael is under the team's limit.
    assert_eq!(reached(&docs, "lyra", NOV27 + DAY), None);
    assert_eq!(reached(&docs, "kael", NOV27 + 4), None);
    // Kael spends: the team's month reaches $5 and stops both.
    run(&mut docs, &[ev(18, NOV27 + 5, turn(1, 3.0))]);
    let hit = reached(&docs, "kael", NOV27 + 6).unwrap();
    assert_eq!(hit.agent, None);
    assert_eq!(
        hit.words(),
        "the team's monthly budget: $5.10 of $5.00 this month"
    );
    // Raised: both go on.
    run(
        &mut docs,
        &[ev(19, NOV27 + 7, set(None, None, Some(50_000_000)))],
    );
    assert_eq!(reached(&docs, "kael", NOV27 + 8), None);
}

#[test]
fn a_limit_of_zero_negative_or_absurd_is_refused_in_words() {
    assert_eq!(limit(2.5, "perDayUsd"), Ok(2_500_000));
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(limit(bad, "perDayUsd")
            .unwrap_err()
            .contains("more than $0"));
    }
    assert!(limit(1e9, "perMonthUsd").unwrap_err().contains("a typo?"));
    assert!(
        limit(1e-9, "perDayUsd").unwrap_err().contains("at least"),
        "rounds to nothing"
    );
}

#[test]
fn a_level_is_remembered_once_and_only_for_its_own_day_and_month() {
    use crate::domain::budget::budget;
    let mut docs = team();
    let crossed = |told: &str| EventKind::BudgetCrossed {
        agent: None,
        seat: None,
        told: told.into(),
        words: "the team's daily budget".into(),
        reached: false,
    };
    run(
        &mut docs,
        &[
            ev(20, NOV27, set(None, Some(1_000_000), Some(9_000_000))),
            ev(21, NOV27 + 1, crossed("day:2026-11-27:near")),
            ev(22, NOV27 + 2, crossed("month:2026-11:near")),
            ev(23, NOV27 + 3, crossed("day:2026-11-27:near")),
        ],
    );
    let told = |d: &Docs| budget(d, None).unwrap().told.clone();
    assert_eq!(told(&docs), ["day:2026-11-27:near", "month:2026-11:near"]);
    // The last level told, with its event (a hidden tab tells it once): not a repeat's.
    let last = budget(&docs, None).unwrap().last_told.clone().unwrap();
    assert_eq!(
        (last.event_id, last.words.as_str(), last.reached),
        (22, "the team's daily budget", false)
    );
    // The next day: yesterday's word goes, the month's stays.
    run(
        &mut docs,
        &[ev(24, NOV27 + DAY, crossed("day:2026-11-28:near"))],
    );
    assert_eq!(told(&docs), ["month:2026-11:near", "day:2026-11-28:near"]);
    // A new daily limit is told afresh; the unchanged monthly one keeps its word.
    run(
        &mut docs,
        &[ev(
            25,
            NOV27 + DAY,
            set(None, Some(2_000_000), Some(9_000_000)),
        )],
    );
    assert_eq!(told(&docs), ["month:2026-11:near"]);
}

#[test]
fn a_near_level_never_hides_a_reached_one_that_holds() {
    use crate::domain::budget::budget;
    let mut docs = team();
    let crossed = |told: &str, reached: bool| EventKind::BudgetCrossed {
        agent: None,
        seat: None,
        told: told.into(),
        words: told.into(),
        reached,
    };
    // One turn: the day's limit reached and the month's 80 %, recorded together.
    run(
        &mut docs,
        &[
            ev(20, NOV27, set(None, Some(1_000_000), Some(9_000_000))),
            ev(21, NOV27 + 1, crossed("day:2026-11-27:reached", true)),
            ev(22, NOV27 + 1, crossed("month:2026-11:near", false)),
        ],
    );
    let last = |d: &Docs| budget(d, None).unwrap().last_told.clone().unwrap();
    assert_eq!((last(&docs).event_id, last(&docs).reached), (21, true));
    // The next day the reached level no longer holds: a near one is told.
    run(
        &mut docs,
        &[ev(23, NOV27 + DAY, crossed("day:2026-11-28:near", false))],
    );
    assert_eq!((last(&docs).event_id, last(&docs).reached), (23, false));
}

/// A fork without a budget of its own shares its parent's: its spend and its parent's count
/// against the parent's limit, so forking never buys a new allowance (a fork had no budget at
/// all before).
#[test]
fn a_fork_shares_its_parents_budget() {
    let mut docs = team();
    let fork = EventKind::AgentForked {
        seat: 2,
        uuid: "fork".into(),
        parent_id: "lyra".into(),
        fork_message_id: None,
    };
    run(
        &mut docs,
        &[
            ev(8, NOV27, set(Some("lyra"), Some(1_000_000), None)),
            ev(9, NOV27, fork),
            ev(10, NOV27, register(2, "Fen", "soul")),
            ev(11, NOV27, process(2, ProcessState::Starting)),
            ev(12, NOV27, turn(2, 0.6)),
            ev(13, NOV27, turn(0, 0.5)),
        ],
    );
    let now = NOV27 + 100;
    let hit = reached(&docs, "fork", now).expect("the fork reached the shared limit");
    assert_eq!(hit.agent.as_deref(), Some("lyra"));
    assert_eq!(hit.spent_micro_usd, 1_100_000);
    assert!(reached(&docs, "lyra", now).is_some());
    // Kael's own spend is his alone.
    assert!(reached(&docs, "kael", now).is_none());
    // A budget of the fork's own is its own again.
    run(
        &mut docs,
        &[ev(14, NOV27, set(Some("fork"), Some(5_000_000), None))],
    );
    assert!(reached(&docs, "fork", now).is_none());
    // Its limits removed again: it shares its parent's once more (an empty budget is none).
    run(&mut docs, &[ev(15, NOV27, set(Some("fork"), None, None))]);
    assert_eq!(
        reached(&docs, "fork", now).and_then(|s| s.agent),
        Some("lyra".to_string())
    );
}
