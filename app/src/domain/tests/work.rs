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
