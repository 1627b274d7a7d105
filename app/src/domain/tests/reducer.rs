use super::super::docs::{identity, souls, Docs};
use super::super::events::EventKind;
use super::super::process::ProcessState;
use super::super::status::AgentStatus;
use super::super::wake::sleeping_seats;
use super::super::{agent_seats, HATCHING_TTL_MS, LEAD_SEAT};
use super::*;

fn all_agents() -> Vec<Seat> {
    agent_seats().collect()
}

#[test]
fn summon_writes_hatching_placeholders_for_the_eight_seats_only() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[ev(1, 1000, summon(&[0, 1, 2, 3, 4, 5, 6, 7, 8]))],
    );
    for s in all_agents() {
        let d = seat(&docs, s);
        assert_eq!(d.status(), AgentStatus::Hatching);
        assert_eq!(d.created_at, Some(1000));
        assert_eq!(d.uuid.as_deref(), Some(format!("uuid-{s}").as_str()));
        assert!(d.name.is_none());
        assert!(d.color.is_some() && d.color_name.is_some());
    }
    assert!(
        identity(&docs, LEAD_SEAT).is_none(),
        "summon never touches the lead's seat"
    );
}

#[test]
fn summon_skips_occupied_seats_and_reuses_expired_ones() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1])),
            ev(2, 10, register(0, "Lyra", "soul")),
            ev(
                3,
                HATCHING_TTL_MS + 1,
                EventKind::HatchingExpired { seats: vec![1] },
            ),
        ],
    );
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Expired);
    run(&mut docs, &[ev(4, HATCHING_TTL_MS + 5, summon(&[0, 1]))]);
    assert_eq!(
        seat(&docs, 0).status(),
        AgentStatus::Alive,
        "occupied seat untouched"
    );
    assert_eq!(seat(&docs, 0).name.as_deref(), Some("Lyra"));
    assert_eq!(
        seat(&docs, 1).status(),
        AgentStatus::Hatching,
        "expired seat gets a new egg"
    );
    assert_eq!(seat(&docs, 1).created_at, Some(HATCHING_TTL_MS + 5));
}

#[test]
fn register_makes_the_seat_alive_with_identity_and_preserves_created_at() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 100, summon(&[2])),
            ev(2, 5000, register(2, "Kael", "I chose Kael.")),
        ],
    );
    let d = seat(&docs, 2);
    assert_eq!(d.status(), AgentStatus::Alive);
    assert_eq!(d.name.as_deref(), Some("Kael"));
    assert_eq!(d.individuation_artifact.as_deref(), Some("I chose Kael."));
    assert_eq!(
        d.created_at,
        Some(100),
        "createdAt preserved from the placeholder"
    );
    assert_eq!(d.last_alive_at, Some(5000));
    assert_eq!(d.last_session_id.as_deref(), Some(SESSION));
    assert_eq!(d.soul_version, 1);
    let souls = souls(&docs, 2);
    assert_eq!(souls.len(), 1);
    assert_eq!(souls[0].text, "I chose Kael.");
}

#[test]
fn register_keeps_every_soul_version() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[3])),
            ev(2, 1, register(3, "Wren", "first")),
            ev(3, 2, register(3, "Wren", "second")),
            ev(4, 3, register(3, "Wren", "second")),
        ],
    );
    let texts: Vec<_> = souls(&docs, 3).iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["first", "second"]);
    assert_eq!(seat(&docs, 3).soul_version, 2);
}

#[test]
fn register_with_a_color_name_overrides_the_palette() {
    let mut docs = Docs::new();
    let kind = EventKind::AgentRegistered {
        seat: 0,
        name: "Lyra".into(),
        color_name: Some("Violet Heaven".into()),
        soul: None,
        claude_session_id: Some("claude-1".into()),
        inbox: None,
    };
    run(&mut docs, &[ev(1, 0, summon(&[0])), ev(2, 1, kind)]);
    let d = seat(&docs, 0);
    assert_eq!(d.color_name.as_deref(), Some("Violet Heaven"));
    assert_eq!(d.claude_session_id.as_deref(), Some("claude-1"));
    assert_eq!(d.soul_version, 0, "no soul, no version");
}

#[test]
fn register_with_an_empty_name_is_ignored() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 0, summon(&[0]))]);
    assert!(apply(&docs, &ev(2, 1, register(0, "  ", "soul"))).is_empty());
}

#[test]
fn register_on_an_expired_seat_does_not_resurrect_it() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[5])),
            ev(
                2,
                HATCHING_TTL_MS,
                EventKind::HatchingExpired { seats: vec![5] },
            ),
            ev(3, HATCHING_TTL_MS + 1, register(5, "Late", "soul")),
        ],
    );
    assert_eq!(seat(&docs, 5).status(), AgentStatus::Expired);
}

#[test]
fn the_leads_status_report_is_its_belief_recorded_never_applied() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1, 2])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 1, register(1, "B", "b")),
            ev(4, 1, register(2, "C", "c")),
            ev(5, 2, process(0, ProcessState::Starting)),
            ev(5, 2, process(0, ProcessState::Running)),
            ev(6, 3, process(1, ProcessState::Stopped)),
            ev(7, 4, process(2, ProcessState::Starting)),
            ev(7, 4, process(2, ProcessState::Idle)),
            // The lead believes B (stopped) alive and leaves out A and C (running).
            ev(8, 50, EventKind::AgentStatus { seats: vec![1] }),
        ],
    );
    // Liveness is the processes'.
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Alive);
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Sleeping);
    assert_eq!(seat(&docs, 2).status(), AgentStatus::Alive);
    assert_eq!(
        sleeping_seats(&docs),
        [1],
        "the stopped agent can still be woken"
    );
    // The belief is kept, and said where it differs.
    let belief = |s| seat(&docs, s).lead_belief.clone().map(|b| (b.alive, b.at));
    assert_eq!(belief(0), Some((false, 50)));
    assert_eq!(belief(1), Some((true, 50)));
    assert_eq!(belief(2), Some((false, 50)));
    assert_eq!(seat(&docs, 0).believed_otherwise(), Some(false));
    assert_eq!(seat(&docs, 1).believed_otherwise(), Some(true));
    // Once the truth comes round to the belief, nothing differs.
    run(
        &mut docs,
        &[
            ev(9, 60, process(1, ProcessState::Starting)),
            ev(9, 60, process(1, ProcessState::Running)),
        ],
    );
    assert_eq!(seat(&docs, 1).believed_otherwise(), None);
    // A new session starts without beliefs.
    run(
        &mut docs,
        &[ev(10, 70, EventKind::SessionEnd { reason: None })],
    );
    assert!(agent_seats().all(|s| identity(&docs, s).is_none_or(|d| d.lead_belief.is_none())));
}

#[test]
fn agent_status_never_resurrects_an_expired_seat() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[6])),
            ev(
                2,
                HATCHING_TTL_MS,
                EventKind::HatchingExpired { seats: vec![6] },
            ),
            ev(
                3,
                HATCHING_TTL_MS + 1,
                EventKind::AgentStatus { seats: vec![6] },
            ),
            ev(
                4,
                HATCHING_TTL_MS + 2,
                EventKind::AgentStatus { seats: vec![] },
            ),
        ],
    );
    assert_eq!(seat(&docs, 6).status(), AgentStatus::Expired);
}

#[test]
fn agent_status_leaves_nameless_eggs_hatching() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1])),
            ev(2, 1, EventKind::AgentStatus { seats: vec![0] }),
        ],
    );
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Hatching);
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Hatching);
}

#[test]
fn agent_status_does_not_touch_the_lead() {
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
            ev(2, 1, process(LEAD_SEAT, ProcessState::Starting)),
            ev(
                2,
                1,
                EventKind::AgentProcess {
                    seat: LEAD_SEAT,
                    state: ProcessState::Running,
                    reason: None,
                    claude_session_id: None,
                    context_tokens: None,
                    cost_usd: None,
                    tool: None,
                    usage: None,
                },
            ),
            ev(3, 2, EventKind::AgentStatus { seats: vec![] }),
        ],
    );
    assert_eq!(seat(&docs, LEAD_SEAT).status(), AgentStatus::Alive);
}

#[test]
fn session_end_puts_every_alive_seat_to_sleep() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1, 2])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 1, register(1, "B", "b")),
            ev(4, 2, EventKind::SessionEnd { reason: None }),
        ],
    );
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Sleeping);
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Sleeping);
    assert_eq!(
        seat(&docs, 2).status(),
        AgentStatus::Hatching,
        "only alive seats sleep"
    );
}

#[test]
fn hatching_expires_only_nameless_seats_older_than_five_minutes() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 1_000, summon(&[0, 1, 2]))]);
    run(&mut docs, &[ev(2, 2_000, register(1, "Named", "soul"))]);
    // One millisecond too early: nothing expires.
    run(
        &mut docs,
        &[ev(
            3,
            1_000 + HATCHING_TTL_MS - 1,
            EventKind::HatchingExpired {
                seats: vec![0, 1, 2],
            },
        )],
    );
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Hatching);
    run(
        &mut docs,
        &[ev(
            4,
            1_000 + HATCHING_TTL_MS,
            EventKind::HatchingExpired {
                seats: vec![0, 1, 2],
            },
        )],
    );
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Expired);
    assert_eq!(
        seat(&docs, 1).status(),
        AgentStatus::Alive,
        "a seat with a name never expires"
    );
    assert_eq!(seat(&docs, 2).status(), AgentStatus::Expired);
}

#[test]
fn a_named_legacy_hatching_seat_never_expires() {
    let mut docs = Docs::new();
    let legacy = serde_json::json!({
        "_id": "agent-identity:7", "type": "agent-identity", "hatching": true,
        "name": "Old", "gridPosition": 7, "createdAt": 0
    });
    docs.insert(
        "agent-identity:7".into(),
        serde_json::from_value(legacy).unwrap(),
    );
    run(
        &mut docs,
        &[ev(
            1,
            10 * HATCHING_TTL_MS,
            EventKind::HatchingExpired { seats: vec![7] },
        )],
    );
    assert_eq!(seat(&docs, 7).status(), AgentStatus::Hatching);
}

#[test]
fn partial_summon_three_of_eight_register_and_the_rest_expire() {
    let mut docs = Docs::new();
    let seats = all_agents();
    run(&mut docs, &[ev(1, 0, summon(&seats))]);
    run(
        &mut docs,
        &[
            ev(2, 10, register(0, "A", "a")),
            ev(3, 20, register(3, "B", "b")),
            ev(4, 30, register(8, "C", "c")),
            ev(
                5,
                HATCHING_TTL_MS + 1,
                EventKind::HatchingExpired {
                    seats: seats.clone(),
                },
            ),
        ],
    );
    let alive: Vec<Seat> = seats
        .iter()
        .copied()
        .filter(|&s| seat(&docs, s).status() == AgentStatus::Alive)
        .collect();
    let expired = seats
        .iter()
        .filter(|&&s| seat(&docs, s).status() == AgentStatus::Expired)
        .count();
    assert_eq!(alive, [0, 3, 8]);
    assert_eq!(expired, 5);
}
