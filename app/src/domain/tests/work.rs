use super::super::palette::{palette, seat_style, LEAD_COLOR};
use super::super::process::{can_transition, ProcessState};
use super::super::work_cycle::{transition, WorkState};
use super::super::{LEAD_SEAT, SEATS};
use std::collections::HashSet;

#[test]
fn work_cycle_follows_the_protocol() {
    use WorkState::*;
    let mut s = transition(None, Bootstrap).unwrap();
    for next in [
        Inbox, Distill, DeepWork, Inbox, Distill, Idle, Inbox, Distill, Logout,
    ] {
        s = transition(Some(s), next).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(s, Logout);
}

#[test]
fn work_cycle_rejects_invalid_transitions() {
    use WorkState::*;
    assert!(
        transition(None, Inbox).is_err(),
        "every session starts with bootstrap"
    );
    assert!(transition(Some(Bootstrap), DeepWork).is_err());
    assert!(transition(Some(Inbox), Idle).is_err());
    let err = transition(Some(Logout), Inbox).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid work-cycle transition logout -> inbox"
    );
}

#[test]
fn work_state_names_round_trip() {
    for w in WorkState::ALL {
        assert_eq!(WorkState::parse(w.as_str()), Some(w));
        assert_eq!(serde_json::to_value(w).unwrap(), w.as_str());
    }
    assert_eq!(WorkState::parse("napping"), None);
}

#[test]
fn process_machine_allows_the_designed_transitions() {
    use ProcessState::*;
    assert!(can_transition(None, Starting));
    assert!(can_transition(Some(Starting), Running));
    assert!(can_transition(Some(Running), Idle));
    assert!(can_transition(Some(Idle), Running));
    assert!(can_transition(Some(Idle), Stopped));
    assert!(can_transition(Some(Stopped), Starting));
    assert!(!can_transition(None, Running));
    assert!(!can_transition(Some(Stopped), Running));
    assert!(!can_transition(Some(Stopped), Stopped));
    assert!(!can_transition(Some(Running), Starting));
    assert!(can_transition(None, Stopped), "a start that failed");
    assert!(Running.is_live() && Idle.is_live() && !Starting.is_live() && !Stopped.is_live());
}

#[test]
fn palette_has_nine_distinct_seats_with_the_gold_lead_in_the_centre() {
    assert_eq!(palette().len(), SEATS as usize);
    let lead = seat_style(LEAD_SEAT).unwrap();
    assert_eq!(lead.color, "#FFD600");
    assert_eq!(lead.color, LEAD_COLOR);
    let colors: HashSet<_> = palette().iter().map(|s| s.color).collect();
    let names: HashSet<_> = palette().iter().map(|s| s.color_name).collect();
    assert_eq!(colors.len(), 9);
    assert_eq!(names.len(), 9);
    for (i, s) in palette().iter().enumerate() {
        assert_eq!(s.seat as usize, i);
        assert!(s.color.starts_with('#') && s.color.len() == 7);
        assert!(["woman", "man"].contains(&s.gender));
    }
    let faces: HashSet<_> = palette().iter().map(|s| (s.eyes, s.mouth)).collect();
    assert_eq!(faces.len(), 9, "every seat has its own face");
    assert!(seat_style(SEATS).is_none());
}

#[test]
fn a_refused_step_is_told_as_a_sentence_about_the_agent() {
    use crate::domain::words::refused;
    assert_eq!(
        refused("Lyra", "invalid work-cycle transition none -> deep_work"),
        "Lyra tried to start deep work before beginning its session: not recorded."
    );
    assert_eq!(
        refused("Kael", "invalid work-cycle transition deep_work -> logout"),
        "Kael tried to log out in the middle of deep work, without going back to its inbox: not recorded."
    );
    assert_eq!(
        refused("Julian", "no agent named \"Nobody\" is in the grid"),
        "Julian asked for something that was not done: no agent named \"Nobody\" is in the grid."
    );
}

#[test]
fn one_word_for_each_state() {
    use crate::domain::process::ProcessState::*;
    use crate::domain::status::AgentStatus::*;
    use crate::domain::words::{activity, status_word};
    assert_eq!(status_word(Alive, Some(Idle), None), "awake");
    assert_eq!(
        status_word(Alive, Some(Running), Some("using Bash")),
        "working"
    );
    assert_eq!(
        status_word(Sleeping, Some(Stopped), Some("ended by the human")),
        "asleep"
    );
    assert_eq!(
        status_word(Sleeping, Some(Stopped), Some("crashed with exit code 1")),
        "crashed"
    );
    assert_eq!(status_word(Sleeping, None, None), "asleep");
    assert_eq!(
        activity(Sleeping, Some(Stopped), Some("dismissed")).as_deref(),
        Some("asleep")
    );
    assert_eq!(
        activity(Alive, Some(Running), None).as_deref(),
        Some("thinking…")
    );
    assert_eq!(
        activity(Sleeping, Some(Stopped), Some("crashed with exit code 1")).as_deref(),
        Some("crashed with exit code 1")
    );
}

#[test]
fn an_interrupted_agent_is_awake_and_says_why() {
    use crate::domain::process::ProcessState::Idle;
    use crate::domain::status::AgentStatus::Alive;
    assert_eq!(
        crate::domain::words::activity(Alive, Some(Idle), Some("interrupted")).as_deref(),
        Some("awake (interrupted)")
    );
}

/// At its budget's limit an agent is given no turn: its face, panel and page say "over budget",
/// not "awake"; a turn already running still says what it does.
#[test]
fn an_agent_at_its_budgets_limit_is_over_budget_everywhere() {
    use crate::domain::docs::{AgentIdentity, Problem};
    use crate::domain::process::ProcessState::*;
    use crate::domain::status::AgentStatus::Alive;
    use crate::domain::words::{state_of, state_word};
    let mut lyra = AgentIdentity::new(0, Alive);
    lyra.process_state = Some(Idle);
    assert_eq!(state_of(&lyra).as_deref(), Some("awake"));
    lyra.last_problem = Some(Problem {
        message: "budget reached: its daily budget: $0.0024 of $0.0020 today".into(),
        at: 1,
        detail: None,
    });
    assert_eq!(state_of(&lyra).as_deref(), Some("over budget"));
    assert_eq!(state_word(&lyra), "over budget");
    lyra.process_state = Some(Running);
    assert_eq!(state_of(&lyra).as_deref(), Some("thinking…"));
    assert_eq!(state_word(&lyra), "working");
    lyra.last_problem.as_mut().unwrap().message = "budget near: 80 % of its daily budget".into();
    lyra.process_state = Some(Idle);
    assert_eq!(state_of(&lyra).as_deref(), Some("awake"));
}
