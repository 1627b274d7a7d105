//! The life of an identity: its ledger and Claude sessions counted from process reports (once,
//! however often an event is replayed), its lineage tree, what a fork carries into its wake,
//! and the view `GET /api/agents/{id}` answers with.

use super::super::docs::Docs;
use super::super::events::{EventKind, TurnUsage};
use super::super::life::{lineage, sessions_of, LedgerView};
use super::super::process::ProcessState::{self, *};
use super::super::wake::{wake_payload, wake_prompt, INHERITED_BUDGET};
use super::*;
use crate::contract::agent_view;

/// A process report with everything the ledger counts.
fn report(
    seat: Seat,
    state: ProcessState,
    session: Option<&str>,
    cost: Option<f64>,
    tool: Option<&str>,
    usage: Option<(u64, u64)>,
) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state,
        reason: (state == Stopped).then(|| "dismissed".to_string()),
        claude_session_id: session.map(str::to_owned),
        context_tokens: None,
        cost_usd: cost,
        tool: tool.map(str::to_owned),
        usage: usage.map(|(input_tokens, output_tokens)| TurnUsage {
            input_tokens,
            output_tokens,
        }),
    }
}

fn said(seat: Seat, id: &str, who: &str, text: &str) -> EventKind {
    EventKind::AgentMessage {
        message_id: id.into(),
        seat,
        speaker_name: who.into(),
        text: text.into(),
        target_agent: None,
        aside: None,
    }
}

/// Lyra (`lyra-id`, seat 0) lives two processes: the first calls Bash twice over two turns,
/// the second reads a file in one turn.
fn lyra_lived() -> Vec<Event> {
    vec![
        ev(1, 0, summon_ids(&[(0, "lyra-id")])),
        ev(2, 1, register(0, "Lyra", "I am Lyra.")),
        ev(3, 10, report(0, Starting, None, None, None, None)),
        ev(4, 11, report(0, Running, Some("s1"), None, None, None)),
        ev(5, 12, report(0, Running, None, None, Some("Bash"), None)),
        ev(
            6,
            13,
            report(0, Idle, Some("s1"), Some(0.25), None, Some((1000, 50))),
        ),
        ev(7, 14, report(0, Running, Some("s1"), None, None, None)),
        ev(8, 15, report(0, Running, None, None, Some("Bash"), None)),
        ev(
            9,
            16,
            report(0, Idle, Some("s1"), Some(0.5), None, Some((2000, 70))),
        ),
        ev(10, 17, report(0, Stopped, None, None, None, None)),
        ev(11, 20, report(0, Starting, None, None, None, None)),
        ev(12, 21, report(0, Running, Some("s2"), None, None, None)),
        ev(13, 22, report(0, Running, None, None, Some("Read"), None)),
        ev(
            14,
            23,
            report(0, Idle, Some("s2"), Some(0.125), None, Some((500, 5))),
        ),
    ]
}

#[test]
fn the_ledger_counts_cost_tokens_turns_and_tools_over_every_process() {
    let mut docs = Docs::new();
    run(&mut docs, &lyra_lived());
    let v = agent_view(&docs, "lyra-id").unwrap();
    let l = &v.ledger;
    // Each process reports its total so far: 0.25 then 0.5 is 0.5 in all, and 0.125 more.
    assert_eq!(l.cost_usd, 0.625);
    assert_eq!((l.input_tokens, l.output_tokens, l.turns), (3500, 125, 3));
    assert_eq!(
        l.tool_calls.iter().collect::<Vec<_>>(),
        [(&"Bash".to_string(), &2), (&"Read".to_string(), &1)]
    );
}

/// A tool call is counted once, as a tool (its `agent_process` report), never as a message:
/// its line in the thread is the call shown, not something the agent said.
#[test]
fn a_tool_line_is_a_tool_call_not_a_message() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
            ev(3, 2, said(0, "m1", "Lyra", "Looking.")),
            ev(4, 3, report(0, Starting, None, None, None, None)),
            ev(
                5,
                4,
                report(
                    0,
                    Running,
                    Some("s1"),
                    None,
                    Some("mcp__soulgrid__team"),
                    None,
                ),
            ),
            ev(
                6,
                5,
                EventKind::ToolUsed {
                    message_id: "t1".into(),
                    seat: 0,
                    speaker_name: "Lyra".into(),
                    line: crate::domain::tool_lines::ToolLine::new(
                        "mcp__soulgrid__team",
                        &serde_json::json!({}),
                        "- seat 1: Lyra",
                        false,
                    ),
                },
            ),
        ],
    );
    let l = agent_view(&docs, "lyra-id").unwrap().ledger;
    assert_eq!(l.messages_sent, 1, "its words, not the tool line");
    assert_eq!(l.tool_calls.get("mcp__soulgrid__team"), Some(&1));
}

#[test]
fn each_claude_session_says_when_it_began_and_ended_why_and_what_it_used() {
    let mut docs = Docs::new();
    run(&mut docs, &lyra_lived());
    let s = sessions_of(&docs, "lyra-id");
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].claude_session_id, "s1");
    assert_eq!((s[0].started_at, s[0].ended_at), (11, Some(17)));
    assert_eq!(s[0].end_reason.as_deref(), Some("dismissed"));
    assert_eq!((s[0].turns, s[0].tool_calls, s[0].processes), (2, 2, 1));
    assert_eq!((s[0].input_tokens, s[0].output_tokens), (3000, 120));
    assert_eq!(s[0].cost_usd(), 0.5);
    assert_eq!(
        (s[1].started_at, s[1].ended_at),
        (21, None),
        "still running"
    );
    // The session ends with the server session too.
    run(
        &mut docs,
        &[ev(15, 30, EventKind::SessionEnd { reason: None })],
    );
    let s = sessions_of(&docs, "lyra-id");
    assert_eq!(s[1].ended_at, Some(30));
    assert_eq!(s[1].end_reason.as_deref(), Some("session ended"));
}

#[test]
fn a_resumed_session_is_one_session_lived_by_two_processes() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
            ev(3, 2, report(0, Starting, None, None, None, None)),
            ev(
                4,
                3,
                report(0, Idle, Some("s1"), Some(0.25), None, Some((10, 1))),
            ),
            ev(5, 4, report(0, Stopped, None, None, None, None)),
            ev(6, 5, report(0, Starting, None, None, None, None)),
            ev(
                7,
                6,
                report(0, Idle, Some("s1"), Some(0.125), None, Some((10, 1))),
            ),
        ],
    );
    let s = sessions_of(&docs, "lyra-id");
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].processes, s[0].turns, s[0].ended_at), (2, 2, None));
    assert_eq!(s[0].cost_usd(), 0.375, "a new process counts from zero");
}

#[test]
fn a_replayed_event_counts_nothing_twice() {
    let events = lyra_lived();
    let mut once = Docs::new();
    run(&mut once, &events);
    let mut twice = Docs::new();
    for e in &events {
        run(&mut twice, &[e.clone(), e.clone()]);
    }
    assert_eq!(once, twice);
    // And a stream resumed from an older event (a tab's replay) changes nothing either.
    let mut again = once.clone();
    run(&mut again, &events[5..]);
    assert_eq!(once, again);
}

#[test]
fn the_ledger_stays_with_the_identity_through_the_hall() {
    let mut docs = Docs::new();
    run(&mut docs, &lyra_lived());
    run(
        &mut docs,
        &[
            ev(15, 30, said(0, "m1", "Lyra", "mine")),
            ev(
                16,
                31,
                EventKind::UserMessage {
                    message_id: "m2".into(),
                    speaker_name: "Marcus".into(),
                    seat: 0,
                    text: "to Lyra".into(),
                    target_agent: None,
                },
            ),
            ev(
                17,
                32,
                EventKind::AgentKilled {
                    seat: 0,
                    reason: None,
                },
            ),
            // A newcomer in the seat starts a ledger of its own.
            ev(18, 33, summon_ids(&[(0, "wren-id")])),
            ev(19, 34, register(0, "Wren", "I am Wren.")),
            ev(20, 35, report(0, Starting, None, None, None, None)),
            ev(
                21,
                36,
                report(0, Idle, Some("s3"), Some(0.5), Some("Bash"), Some((1, 1))),
            ),
        ],
    );
    let lyra = agent_view(&docs, "lyra-id").unwrap();
    assert_eq!(lyra.status, "retired");
    assert_eq!(lyra.ledger.cost_usd, 0.625);
    assert_eq!(
        (lyra.ledger.messages_sent, lyra.ledger.messages_received),
        (1, 1)
    );
    assert_eq!(
        sessions_of(&docs, "lyra-id")[1].end_reason.as_deref(),
        Some("retired"),
        "its running session ended when it left"
    );
    let wren = agent_view(&docs, "wren-id").unwrap();
    assert_eq!(wren.ledger.cost_usd, 0.5);
    assert_eq!(wren.ledger.tool_calls.get("Bash"), Some(&1));
    assert_eq!(
        (wren.ledger.messages_sent, wren.ledger.messages_received),
        (0, 0)
    );
    assert_eq!(wren.seat, Some(0));
}

#[test]
fn an_identity_nobody_has_has_no_view_and_a_fresh_one_an_empty_ledger() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
        ],
    );
    assert!(agent_view(&docs, "nobody").is_none());
    let v = agent_view(&docs, "lyra-id").unwrap();
    assert_eq!(v.ledger, LedgerView::default());
    assert!(v.sessions.is_empty());
    assert_eq!(v.souls.len(), 1);
}

fn fork(seat: Seat, uuid: &str, parent: &str, point: Option<&str>) -> EventKind {
    EventKind::AgentForked {
        seat,
        uuid: uuid.into(),
        parent_id: parent.into(),
        fork_message_id: point.map(str::to_owned),
    }
}

#[test]
fn the_lineage_tree_runs_from_the_oldest_ancestor_down_and_shows_adoptions() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "a")])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 2, fork(1, "b", "a", None)),
            ev(4, 3, register(1, "B", "b")),
            ev(5, 4, fork(2, "c", "b", None)),
            ev(6, 5, register(2, "C", "c")),
            ev(7, 6, fork(3, "d", "a", None)),
            ev(8, 7, register(3, "D", "d")),
        ],
    );
    let tree = lineage(&docs, "c").unwrap();
    assert_eq!(tree.id, "a", "from the oldest ancestor");
    let kids: Vec<_> = tree.children.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(kids, ["b", "d"]);
    assert_eq!(tree.children[0].children[0].id, "c");
    assert_eq!(tree.children[0].forked_at, Some(2));
    let v = agent_view(&docs, "a").unwrap();
    assert_eq!(v.children, ["b", "d"]);
    assert_eq!(v.fork_point, None, "A was summoned, not forked");
    // B retires: C is adopted by A and says from whom; B stays in the tree, in the Hall.
    run(
        &mut docs,
        &[ev(
            9,
            8,
            EventKind::AgentKilled {
                seat: 1,
                reason: None,
            },
        )],
    );
    let tree = lineage(&docs, "c").unwrap();
    let kids: Vec<_> = tree.children.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(kids, ["b", "c", "d"]);
    let c = &tree.children[1];
    assert_eq!(c.adopted_from.as_deref(), Some("b"));
    assert_eq!(tree.children[0].retired_at, Some(8));
    assert_eq!(tree.children[0].seat, None);
}

#[test]
fn waking_a_fork_carries_what_it_inherited_up_to_the_fork_point() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
            ev(3, 2, said(0, "m1", "Lyra", "the harp has eleven strings")),
            ev(4, 3, said(0, "m2", "Lyra", "the twelfth is silence")),
            ev(5, 4, fork(1, "kid", "lyra-id", Some("message:m2"))),
            ev(6, 5, register(1, "Pip", "I am Pip.")),
            // After the fork: not inherited.
            ev(
                7,
                6,
                said(0, "m3", "Lyra", "something the fork never heard"),
            ),
        ],
    );
    let p = wake_payload(&docs, 1, &[]).unwrap();
    let inherited = p.inherited.clone().unwrap();
    assert_eq!(inherited.from, "Lyra");
    let texts: Vec<_> = inherited
        .transcript
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(
        texts,
        ["the harp has eleven strings", "the twelfth is silence"]
    );
    let prompt = wake_prompt(&p, "Marcus", "Julian");
    assert!(prompt.contains("You began as a fork of Lyra"), "{prompt}");
    assert!(prompt.contains("the twelfth is silence"));
    assert!(!prompt.contains("never heard"));
    // A summoned agent inherits nothing.
    assert!(wake_payload(&docs, 0, &[]).unwrap().inherited.is_none());
}

#[test]
fn an_inheritance_past_the_budget_keeps_its_newest_lines_and_says_how_many_are_left_out() {
    let mut docs = Docs::new();
    let long = "x".repeat(INHERITED_BUDGET / 4);
    let mut events = vec![
        ev(1, 0, summon_ids(&[(0, "lyra-id")])),
        ev(2, 1, register(0, "Lyra", "I am Lyra.")),
    ];
    for i in 0..10u64 {
        events.push(ev(
            3 + i,
            2 + i as i64,
            said(0, &format!("m{i}"), "Lyra", &format!("{i}{long}")),
        ));
    }
    events.push(ev(20, 20, fork(1, "kid", "lyra-id", Some("message:m9"))));
    events.push(ev(21, 21, register(1, "Pip", "I am Pip.")));
    run(&mut docs, &events);
    let inherited = wake_payload(&docs, 1, &[]).unwrap().inherited.unwrap();
    assert_eq!(inherited.transcript.len(), 3);
    assert_eq!(inherited.left_out, 7);
    assert!(inherited.transcript[2].text.starts_with('9'));
    let prompt = wake_prompt(&wake_payload(&docs, 1, &[]).unwrap(), "Marcus", "Julian");
    assert!(prompt.contains("7 older messages are not shown"));
}

#[test]
fn a_named_agent_rewrites_its_soul_as_a_new_version_and_the_old_one_stays() {
    let mut docs = Docs::new();
    let revise = |seat: Seat, text: &str| EventKind::SoulRevised {
        seat,
        text: text.into(),
    };
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id"), (1, "egg-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
            ev(3, 2, revise(0, "I am Lyra.\nI keep the lighthouse now.")),
            // Nameless (an egg) or the same text again: nothing.
            ev(4, 3, revise(1, "I am nobody yet.")),
            ev(5, 4, revise(0, "I am Lyra.\nI keep the lighthouse now.")),
        ],
    );
    let v = agent_view(&docs, "lyra-id").unwrap();
    let versions: Vec<_> = v
        .souls
        .iter()
        .map(|s| (s.version, s.text.as_str()))
        .collect();
    assert_eq!(
        versions,
        [
            (1, "I am Lyra."),
            (2, "I am Lyra.\nI keep the lighthouse now.")
        ]
    );
    assert_eq!(
        seat(&docs, 0).individuation_artifact.as_deref(),
        Some("I am Lyra.\nI keep the lighthouse now.")
    );
    assert_eq!(seat(&docs, 1).soul_version, 0);
}

#[test]
fn a_fork_started_from_its_parents_session_counts_in_a_session_of_its_own() {
    let mut docs = Docs::new();
    run(&mut docs, &lyra_lived()[..6]);
    run(
        &mut docs,
        &[
            ev(20, 30, fork(7, "kid", "lyra-id", None)),
            // Started to resume Lyra's session as a fork; the CLI then says its own.
            ev(21, 31, report(7, Starting, Some("s1"), None, None, None)),
            ev(22, 32, report(7, Running, Some("k1"), None, None, None)),
            ev(
                23,
                33,
                report(7, Idle, Some("k1"), Some(0.25), None, Some((10, 1))),
            ),
            // A CLI that reported its parent's session after all: counted, not in hers.
            ev(
                24,
                34,
                report(7, Idle, Some("s1"), Some(0.5), None, Some((10, 1))),
            ),
        ],
    );
    let lyra = sessions_of(&docs, "lyra-id");
    assert_eq!(lyra.len(), 1);
    assert_eq!((lyra[0].processes, lyra[0].turns, lyra[0].seat), (1, 1, 0));
    let kid = sessions_of(&docs, "kid");
    let ids: Vec<_> = kid.iter().map(|s| s.claude_session_id.as_str()).collect();
    assert_eq!(ids, ["k1"]);
    assert_eq!(agent_view(&docs, "kid").unwrap().ledger.turns, 2);
}
