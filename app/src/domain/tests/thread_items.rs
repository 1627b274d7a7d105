//! What a seat's thread shows (`thread_items`), as the `Thread` view draws it.

use super::super::events::EventKind;
use super::super::process::ProcessState;
use super::super::thread_items::{thread_items, ThreadItem};
use super::*;

fn asked(seat: Seat, request_id: &str) -> EventKind {
    EventKind::PermissionRequest {
        seat,
        request_id: request_id.into(),
        tool_name: "Bash".into(),
        input: serde_json::json!({"command": "ls"}),
        description: None,
        suggestions: None,
        tool_use_id: None,
    }
}

/// Each event a second after the one before.
fn docs_of(kinds: Vec<EventKind>) -> Docs {
    let events: Vec<Event> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| ev(i as u64 + 1, (i as i64 + 1) * 1000, k))
        .collect();
    let mut docs = Docs::new();
    run(&mut docs, &events);
    docs
}

fn texts(items: &[ThreadItem]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            ThreadItem::Message(l) => {
                let mark = match (l.queued, l.wake_here) {
                    (_, true) => " [queued, wake here]",
                    (true, false) => " [queued]",
                    _ => "",
                };
                format!("{}: {}{mark}", l.who, l.text)
            }
            ThreadItem::Permission(p, who) => format!("asks ({who}): {}", p.tool_name),
            ThreadItem::Problem(m, _) => format!("problem: {m}"),
            ThreadItem::Inherited(_, name, _) => format!("inherited from {name}"),
            ThreadItem::Note(t, _, _) => format!("note: {t}"),
        })
        .collect()
}

#[test]
fn messages_requests_and_notes_stand_in_the_order_they_happened() {
    let docs = docs_of(vec![
        summon(&[0]),
        register(0, "Lyra", "I am Lyra."),
        human_msg("m1", 0, "look at this"),
        asked(0, "r1"),
        agent_msg("m2", 0, "done"),
        EventKind::RuntimeError {
            seat: Some(0),
            message: "its name was taken".into(),
        },
    ]);
    assert_eq!(
        texts(&thread_items(&docs, 0)),
        [
            "Marcus: look at this",
            "asks (Lyra): Bash",
            "Lyra: done",
            "problem: its name was taken",
        ]
    );
}

#[test]
fn what_waits_for_a_sleeper_is_queued_and_wake_is_beside_the_newest() {
    let docs = docs_of(vec![
        summon(&[0]),
        process(0, ProcessState::Starting),
        register(0, "Lyra", "I am Lyra."),
        human_msg("m1", 0, "before she slept"),
        // She took it: her turn ran.
        process(0, ProcessState::Running),
        process(0, ProcessState::Stopped),
        human_msg("m2", 0, "first while asleep"),
        human_msg("m3", 0, "second while asleep"),
    ]);
    assert_eq!(
        texts(&thread_items(&docs, 0)),
        [
            "Marcus: before she slept",
            "Marcus: first while asleep [queued]",
            "Marcus: second while asleep [queued, wake here]",
        ]
    );
    // Awake again: nothing is queued.
    let mut awake = docs.clone();
    let again = [ProcessState::Starting, ProcessState::Running];
    let events: Vec<Event> = (9..)
        .zip(again)
        .map(|(i, s)| ev(i, i as i64 * 1000, process(0, s)))
        .collect();
    run(&mut awake, &events);
    assert!(thread_items(&awake, 0).iter().all(|i| match i {
        ThreadItem::Message(l) => !l.queued && !l.wake_here,
        _ => true,
    }));
}

#[test]
fn a_fork_shows_its_parents_conversation_first_by_reference() {
    let docs = docs_of(vec![
        summon_ids(&[(0, "lyra-id")]),
        register(0, "Lyra", "I am Lyra."),
        human_msg("m1", 0, "hello"),
        EventKind::AgentForked {
            seat: 1,
            uuid: "fork-id".into(),
            parent_id: "lyra-id".into(),
            fork_message_id: Some("m1".into()),
        },
        register(1, "Wren", "I am Wren."),
        human_msg("m2", 1, "welcome"),
    ]);
    let items = thread_items(&docs, 1);
    assert_eq!(
        texts(&items),
        ["inherited from Lyra", "Marcus: welcome"],
        "{items:#?}"
    );
}
