use super::super::buttons::{grid_button, GridButton};
use super::super::docs::Docs;
use super::super::events::EventKind;
use super::super::process::ProcessState;
use super::super::HATCHING_TTL_MS;
use super::*;

#[test]
fn no_visible_agent_means_summon() {
    assert_eq!(grid_button(&Docs::new(), false), GridButton::Summon);
    assert_eq!(GridButton::Summon.label(), Some("SUMMON"));
}

#[test]
fn only_expired_seats_still_means_summon() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0])),
            ev(
                2,
                HATCHING_TTL_MS,
                EventKind::HatchingExpired { seats: vec![0] },
            ),
        ],
    );
    assert_eq!(grid_button(&docs, false), GridButton::Summon);
}

#[test]
fn the_lead_alone_does_not_count_as_a_visible_agent() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[ev(
            1,
            0,
            EventKind::SessionStart {
                lead_name: Some("Julian".into()),
                human_name: None,
            },
        )],
    );
    assert_eq!(grid_button(&docs, false), GridButton::Summon);
}

#[test]
fn any_sleeping_agent_means_wake() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 1, register(1, "B", "b")),
            ev(4, 2, process(1, ProcessState::Stopped)),
        ],
    );
    assert_eq!(grid_button(&docs, false), GridButton::Wake);
}

#[test]
fn all_alive_means_no_button() {
    let mut docs = Docs::new();
    let seats: Vec<Seat> = crate::domain::agent_seats().collect();
    run(&mut docs, &[ev(1, 0, summon(&seats))]);
    for (i, &seat) in seats.iter().enumerate() {
        run(
            &mut docs,
            &[ev(
                2 + i as u64,
                1,
                register(seat, &format!("A{seat}"), "a"),
            )],
        );
    }
    assert_eq!(grid_button(&docs, false), GridButton::None);
    assert_eq!(GridButton::None.label(), None);
}

#[test]
fn in_flight_means_waking_whatever_the_documents() {
    assert_eq!(grid_button(&Docs::new(), true), GridButton::Waking);
    assert_eq!(GridButton::Waking.label(), Some("WAKING…"));
}

#[test]
fn an_empty_seat_beside_awake_agents_means_summon() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 1, register(1, "B", "b")),
            ev(
                4,
                2,
                EventKind::AgentKilled {
                    seat: 1,
                    reason: None,
                },
            ),
        ],
    );
    assert_eq!(grid_button(&docs, false), GridButton::Summon);
    // Sleeping agents come first: WAKE, then the empty seats.
    run(&mut docs, &[ev(5, 3, process(0, ProcessState::Stopped))]);
    assert_eq!(grid_button(&docs, false), GridButton::Wake);
}

#[test]
fn the_button_says_how_many_sessions_it_begins() {
    use crate::domain::buttons::{grid_button, sessions_begun, GridButton};
    let docs = Docs::new();
    assert_eq!(sessions_begun(&docs, grid_button(&docs, false)), 8);
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 0, summon(&[0, 1, 2]))]);
    assert_eq!(sessions_begun(&docs, GridButton::Summon), 5);
    assert_eq!(sessions_begun(&docs, GridButton::Wake), 0);
    assert_eq!(sessions_begun(&docs, GridButton::None), 0);
}

#[test]
fn a_quest_says_how_many_sessions_it_may_begin() {
    use crate::domain::buttons::{quest_sessions, QuestSessions};
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(
                1,
                0,
                EventKind::SessionStart {
                    lead_name: Some("Julian".into()),
                    human_name: None,
                },
            ),
            ev(2, 0, summon(&[0, 1, 2])),
            ev(3, 1, register(0, "A", "a")),
            ev(4, 1, register(1, "B", "b")),
            ev(5, 1, register(2, "C", "c")),
            ev(6, 2, process(1, ProcessState::Stopped)),
            ev(7, 2, process(4, ProcessState::Starting)),
            ev(8, 2, process(4, ProcessState::Idle)),
        ],
    );
    let s = quest_sessions(&docs);
    assert_eq!(
        s,
        QuestSessions {
            lead_asleep: false,
            awake: 2,
            sleeping: 1,
            empty: 5,
        }
    );
    // A plan naming agents the team lacks seats newcomers: one session each.
    assert_eq!(s.at_most(), 6);
    assert_eq!(
        s.said(),
        "Starting it begins a turn of the lead; each stage then begins a turn of the agents \
         the lead picks (2 awake), and a new session for each sleeper it picks (1) or \
         newcomer it seats (5 empty seats): at most 6 new sessions at once."
    );
    run(&mut docs, &[ev(9, 3, process(4, ProcessState::Stopped))]);
    let s = quest_sessions(&docs);
    assert!(s.lead_asleep);
    assert_eq!(s.at_most(), 7);
    assert!(
        s.said()
            .starts_with("Starting it begins a session of the lead (asleep now)"),
        "{}",
        s.said()
    );
    assert!(
        s.said().ends_with("at most 7 new sessions at once."),
        "{}",
        s.said()
    );
}
