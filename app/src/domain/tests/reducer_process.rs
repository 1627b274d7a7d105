//! Reducer transitions driven by the runtime: processes, messages, work states, unknown events.

use super::super::docs::{thread, Docs, SpeakerType};
use super::super::events::EventKind;
use super::super::process::ProcessState;
use super::super::status::AgentStatus;
use super::super::work_cycle::WorkState;
use super::super::LEAD_SEAT;
use super::*;

#[test]
fn process_states_drive_liveness() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 2, EventKind::SessionEnd { reason: None }),
        ],
    );
    let process = |state, reason: Option<&str>| EventKind::AgentProcess {
        seat: 0,
        state,
        reason: reason.map(Into::into),
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    };
    run(
        &mut docs,
        &[ev(4, 3, process(ProcessState::Starting, None))],
    );
    assert_eq!(
        seat(&docs, 0).status(),
        AgentStatus::Sleeping,
        "starting is not alive yet"
    );
    run(&mut docs, &[ev(5, 4, process(ProcessState::Running, None))]);
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Alive);
    run(&mut docs, &[ev(6, 5, process(ProcessState::Idle, None))]);
    assert_eq!(seat(&docs, 0).status(), AgentStatus::Alive);
    run(
        &mut docs,
        &[ev(
            7,
            6,
            process(ProcessState::Stopped, Some("exit code 1")),
        )],
    );
    let d = seat(&docs, 0);
    assert_eq!(d.status(), AgentStatus::Sleeping);
    assert_eq!(d.process_state, Some(ProcessState::Stopped));
    assert_eq!(d.process_reason.as_deref(), Some("exit code 1"));
}

#[test]
fn a_running_summon_process_keeps_the_egg_hatching() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[1])),
            ev(2, 1, super::process(1, ProcessState::Starting)),
            ev(
                2,
                1,
                EventKind::AgentProcess {
                    seat: 1,
                    state: ProcessState::Running,
                    reason: None,
                    claude_session_id: None,
                    context_tokens: None,
                    cost_usd: None,
                    tool: None,
                    usage: None,
                },
            ),
        ],
    );
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Hatching);
    assert_eq!(seat(&docs, 1).process_state, Some(ProcessState::Running));
}

#[test]
fn session_start_creates_the_lead_sleeping_in_gold() {
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
    let lead = seat(&docs, LEAD_SEAT);
    assert_eq!(lead.name.as_deref(), Some("Julian"));
    assert_eq!(lead.color.as_deref(), Some("#FFD600"));
    assert_eq!(lead.status(), AgentStatus::Sleeping);
    // A renamed lead keeps its createdAt.
    run(
        &mut docs,
        &[ev(
            2,
            9,
            EventKind::SessionStart {
                lead_name: Some("Ada".into()),
                human_name: None,
            },
        )],
    );
    assert_eq!(seat(&docs, LEAD_SEAT).name.as_deref(), Some("Ada"));
    assert_eq!(seat(&docs, LEAD_SEAT).created_at, Some(0));
}

#[test]
fn messages_are_scoped_by_seat_not_by_name() {
    let mut docs = Docs::new();
    let msg = |id: &str, seat: Seat, text: &str| EventKind::AgentMessage {
        message_id: id.into(),
        seat,
        speaker_name: "Twin".into(),
        text: text.into(),
        target_agent: None,
        aside: None,
    };
    run(
        &mut docs,
        &[
            ev(1, 10, msg("m1", 0, "from seat 0")),
            ev(2, 11, msg("m2", 1, "from seat 1")),
            ev(
                3,
                12,
                EventKind::UserMessage {
                    message_id: "m3".into(),
                    speaker_name: "Marcus".into(),
                    seat: 0,
                    text: "hi".into(),
                    target_agent: Some("Twin".into()),
                },
            ),
            ev(
                4,
                13,
                EventKind::LeadText {
                    message_id: "m4".into(),
                    speaker_name: "Julian".into(),
                    text: "lead".into(),
                    aside: None,
                },
            ),
        ],
    );
    let t0: Vec<_> = thread(&docs, 0).iter().map(|m| m.text.as_str()).collect();
    assert_eq!(t0, ["from seat 0", "hi"]);
    assert_eq!(thread(&docs, 0)[1].speaker_type, SpeakerType::Human);
    assert_eq!(thread(&docs, LEAD_SEAT)[0].speaker_type, SpeakerType::Lead);
    assert_eq!(thread(&docs, 1).len(), 1);
}

#[test]
fn work_state_applies_valid_transitions_only() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[ev(1, 0, summon(&[0])), ev(2, 1, register(0, "A", "a"))],
    );
    let ws = |state| EventKind::WorkState { seat: 0, state };
    run(
        &mut docs,
        &[
            ev(3, 2, ws(WorkState::Bootstrap)),
            ev(4, 3, ws(WorkState::Inbox)),
        ],
    );
    assert_eq!(seat(&docs, 0).work_state, Some(WorkState::Inbox));
    assert!(
        apply(&docs, &ev(5, 4, ws(WorkState::DeepWork))).is_empty(),
        "inbox -> deep_work is invalid"
    );
    run(
        &mut docs,
        &[
            ev(6, 5, ws(WorkState::Distill)),
            ev(7, 6, ws(WorkState::DeepWork)),
        ],
    );
    assert_eq!(seat(&docs, 0).work_state, Some(WorkState::DeepWork));
}

#[test]
fn unknown_events_write_nothing() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 0, summon(&[0]))]);
    let unknown: super::super::events::Event = serde_json::from_value(serde_json::json!({
        "id": 2, "ts": 1, "sessionId": "s", "type": "agent_teleported", "seat": 1, "toSeat": 0
    }))
    .unwrap();
    assert_eq!(unknown.kind, EventKind::Unknown);
    assert!(apply(&docs, &unknown).is_empty());
}

#[test]
fn errors_are_kept_on_the_seat_as_its_last_problem() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 0, summon(&[0]))]);
    let bad_marker = EventKind::MarkerError {
        seat: Some(0),
        line: "[ACTION] {".into(),
        error: "eof".into(),
    };
    run(&mut docs, &[ev(2, 5, bad_marker)]);
    let p = super::seat(&docs, 0).last_problem.clone().unwrap();
    assert_eq!(p.at, 5);
    // Said as a sentence about the agent; the raw marker only in the detail.
    assert!(!p.message.contains("[ACTION]"), "{}", p.message);
    assert!(p.message.contains("eof"), "{}", p.message);
    let detail = p.detail.clone().unwrap_or_default();
    assert!(
        detail.contains("[ACTION] {") && detail.contains("eof"),
        "{detail}"
    );
    let stuck = EventKind::RuntimeError {
        seat: Some(0),
        message: "stuck: no output for 600 s".into(),
    };
    run(&mut docs, &[ev(3, 9, stuck)]);
    assert_eq!(
        super::seat(&docs, 0).last_problem.as_ref().unwrap().message,
        "stuck: no output for 600 s"
    );
    assert_eq!(
        super::seat(&docs, 0).status(),
        AgentStatus::Hatching,
        "a problem changes no status"
    );
    // Errors without a seat, or for a seat with no agent, write nothing.
    let general = EventKind::RuntimeError {
        seat: None,
        message: "x".into(),
    };
    assert!(apply(&docs, &ev(4, 10, general)).is_empty());
    let nobody = EventKind::RuntimeError {
        seat: Some(7),
        message: "x".into(),
    };
    assert!(apply(&docs, &ev(5, 11, nobody)).is_empty());
}

#[test]
fn the_same_event_twice_gives_the_same_documents() {
    let events = [
        ev(1, 0, summon(&[0, 1])),
        ev(2, 1, register(0, "A", "soul a")),
        ev(3, 2, EventKind::AgentStatus { seats: vec![0] }),
        ev(
            4,
            3,
            EventKind::UserMessage {
                message_id: "m".into(),
                speaker_name: "H".into(),
                seat: 0,
                text: "t".into(),
                target_agent: None,
            },
        ),
        ev(5, 4, EventKind::SessionEnd { reason: None }),
    ];
    let mut once = Docs::new();
    run(&mut once, &events);
    let mut twice = Docs::new();
    for e in &events {
        run(&mut twice, std::slice::from_ref(e));
        run(&mut twice, std::slice::from_ref(e));
    }
    assert_eq!(once, twice);
}

#[test]
fn an_impossible_process_transition_is_an_error_on_the_seat_not_applied() {
    use super::process;
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0])),
            ev(2, 1, register(0, "Lyra", "soul")),
            ev(3, 2, process(0, ProcessState::Starting)),
            ev(4, 3, process(0, ProcessState::Running)),
            ev(5, 4, process(0, ProcessState::Stopped)),
            // A line read after the stop: the process is gone, it is not running again.
            ev(6, 5, process(0, ProcessState::Running)),
        ],
    );
    let d = seat(&docs, 0);
    assert_eq!(d.process_state, Some(ProcessState::Stopped));
    assert_eq!(d.status(), AgentStatus::Sleeping);
    let problem = d.last_problem.clone().expect("said on the seat");
    assert!(problem.message.contains("stopped → running"), "{problem:?}");
    assert_eq!(problem.at, 5);

    // Nothing can be running that never started.
    let mut fresh = Docs::new();
    run(
        &mut fresh,
        &[
            ev(1, 0, summon(&[1])),
            ev(2, 1, process(1, ProcessState::Idle)),
        ],
    );
    assert_eq!(seat(&fresh, 1).process_state, None);

    // The same state again is an update (what it is doing now), not a transition.
    let mut busy = Docs::new();
    let using = |tool: &str| EventKind::AgentProcess {
        seat: 0,
        state: ProcessState::Running,
        reason: Some(format!("using {tool}")),
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    };
    run(
        &mut busy,
        &[
            ev(1, 0, summon(&[0])),
            ev(2, 1, register(0, "Lyra", "soul")),
            ev(3, 2, process(0, ProcessState::Starting)),
            ev(4, 3, process(0, ProcessState::Starting)),
            ev(5, 4, using("Bash")),
            ev(6, 5, using("Read")),
        ],
    );
    let d = seat(&busy, 0);
    assert_eq!(d.process_reason.as_deref(), Some("using Read"));
    assert!(d.last_problem.is_none(), "{:?}", d.last_problem);
    // The turn began with its first tool and goes on through the next; it ends when it does.
    assert_eq!(d.busy_since, Some(4));
    run(&mut busy, &[ev(7, 9, process(0, ProcessState::Idle))]);
    assert_eq!(seat(&busy, 0).busy_since, None);
    run(&mut busy, &[ev(8, 12, process(0, ProcessState::Running))]);
    assert_eq!(seat(&busy, 0).busy_since, Some(12));
}

#[test]
fn waking_an_interrupt_and_a_crash_are_noted_in_the_thread_and_the_notes_are_bounded() {
    use super::super::docs::NOTES_KEPT;
    let with = |state: ProcessState, why: &str| EventKind::AgentProcess {
        seat: 0,
        state,
        reason: Some(why.into()),
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    };
    let stopped = |why: &str| with(ProcessState::Stopped, why);
    let idle = |why: &str| with(ProcessState::Idle, why);
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0])),
            ev(2, 1, register(0, "Lyra", "soul")),
            ev(3, 2, process(0, ProcessState::Starting)),
            ev(4, 3, process(0, ProcessState::Running)),
            ev(5, 4, idle("interrupted")),
            ev(6, 5, stopped("dismissed")),
            ev(7, 6, process(0, ProcessState::Starting)),
            ev(8, 7, stopped("crashed with exit code 3")),
        ],
    );
    let notes: Vec<(String, u64)> = seat(&docs, 0)
        .notes
        .iter()
        .map(|n| (n.text.clone(), n.event_id))
        .collect();
    // A newborn's first start is no waking; a dismissal is no crash.
    assert_eq!(
        notes,
        [
            ("Lyra's turn was interrupted.".to_string(), 5),
            ("Lyra is waking up.".to_string(), 7),
            ("Lyra crashed with exit code 3.".to_string(), 8),
        ]
    );
    for i in 0..30 {
        run(
            &mut docs,
            &[
                ev(100 + 2 * i, 10, process(0, ProcessState::Starting)),
                ev(101 + 2 * i, 11, stopped("dismissed")),
            ],
        );
    }
    assert_eq!(seat(&docs, 0).notes.len(), NOTES_KEPT);
}
