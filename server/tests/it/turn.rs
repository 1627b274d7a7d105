//! From stdout lines to events, on recorded CLI lines and on scripted ones (a newborn's name
//! and the lead's hall actions: `turn_names.rs`).

use app::domain::docs::{commit, Docs};
use app::domain::events::{Event, EventKind, SummonedSeat};
use app::domain::process::ProcessState;
use app::domain::reducer::apply;
use app::domain::work_cycle::WorkState;
use serde_json::json;
use soulgrid::runtime::protocol::{parse_line, CliLine};
use soulgrid::runtime::turn::{LeadRequest, Translator};

use crate::common;

use common::recorded::{out_lines, text_line, CLI};

fn recorded_out(name: &str) -> Vec<CliLine> {
    out_lines(CLI, name)
}

fn run(t: &mut Translator, lines: &[CliLine], docs: &Docs) -> Vec<EventKind> {
    lines
        .iter()
        .flat_map(|l| t.on_line(l, docs).events)
        .collect()
}

#[test]
fn a_recorded_turn_becomes_running_message_idle_with_cost() {
    let mut t = Translator::new(0, Some("Lyra".into()), false);
    let events = run(&mut t, &recorded_out("two-turns.jsonl")[..3], &Docs::new());
    let [EventKind::AgentProcess {
        state: ProcessState::Running,
        claude_session_id: Some(sid),
        ..
    }, EventKind::AgentMessage {
        seat: 0,
        speaker_name,
        text,
        ..
    }, EventKind::AgentProcess {
        state: ProcessState::Idle,
        context_tokens: Some(tokens),
        cost_usd: Some(cost),
        tool: None,
        usage: Some(usage),
        ..
    }] = &events[..]
    else {
        panic!("{events:#?}")
    };
    assert_eq!(sid, "67028d26-04d9-4a59-9826-da301b06a395");
    // The ledger's count of the turn: its context in, its answer out.
    assert_eq!(usage.input_tokens, *tokens);
    assert!(usage.output_tokens > 0);
    assert_eq!(speaker_name, "Lyra");
    assert!(!text.is_empty());
    assert!(*tokens > 0 && *cost > 0.0);
}

#[test]
fn the_leads_text_is_lead_text() {
    let mut t = Translator::new(4, Some("Julian".into()), false);
    let events = run(&mut t, &recorded_out("two-turns.jsonl")[..3], &Docs::new());
    assert!(events.iter().any(
        |e| matches!(e, EventKind::LeadText { speaker_name, .. } if speaker_name == "Julian")
    ));
}

#[test]
fn tool_use_shows_as_activity_and_is_counted_once() {
    let mut t = Translator::new(1, None, false);
    let events = run(&mut t, &recorded_out("bash-tool.jsonl"), &Docs::new());
    assert!(events.iter().any(|e| matches!(e,
        EventKind::AgentProcess { state: ProcessState::Running, reason: Some(r), .. } if r == "using Bash")));
    // The ledger counts the call from the event that names its tool: one call, one event.
    let calls = events
        .iter()
        .filter(|e| matches!(e, EventKind::AgentProcess { tool: Some(tool), .. } if tool == "Bash"))
        .count();
    assert_eq!(calls, 1);
    let turns_done = recorded_out("bash-tool.jsonl")
        .iter()
        .filter(|l| t.on_line(l, &Docs::new()).turn_done)
        .count();
    assert_eq!(turns_done, 1);
}

#[test]
fn subagent_lines_are_not_the_agents_words() {
    let mut t = Translator::new(2, Some("Wren".into()), false);
    let lines = recorded_out("subagent-and-sendmessage.jsonl");
    let from_parent = lines
        .iter()
        .filter(|l| matches!(l, CliLine::Assistant { parent_tool_use_id: None, message, .. }
            if message.content.iter().any(|b| matches!(b, soulgrid::runtime::protocol::ContentBlock::Text { .. }))))
        .count();
    let messages = run(&mut t, &lines, &Docs::new())
        .into_iter()
        .filter(|e| matches!(e, EventKind::AgentMessage { .. }))
        .count();
    assert_eq!(messages, from_parent);
}

#[test]
fn a_newborn_registers_with_the_text_before_the_marker_as_its_soul() {
    let mut t = Translator::new(3, None, true);
    let lines = [
        text_line("I am Orin.\nI chose it for the sound."),
        text_line("[ACTION] {\"action\":\"register\",\"name\":\"Orin\"}"),
    ];
    let events = run(&mut t, &lines, &Docs::new());
    let [EventKind::AgentRegistered {
        seat: 3,
        name,
        soul: Some(soul),
        ..
    }, EventKind::AgentMessage {
        speaker_name: first,
        text: said,
        ..
    }] = &events[..]
    else {
        panic!("{events:#?}")
    };
    assert_eq!(
        first, "Orin",
        "the words before the marker wait, then are signed with the name"
    );
    assert_eq!(said, "I am Orin.\nI chose it for the sound.");
    assert_eq!(name, "Orin");
    assert_eq!(soul, "I am Orin.\nI chose it for the sound.");
    assert_eq!(t.name(), Some("Orin"));
    // After registering, its words are signed with its name and a second register is refused.
    let again = run(
        &mut t,
        &[text_line(
            "hello\n[ACTION] {\"action\":\"register\",\"name\":\"X\"}",
        )],
        &Docs::new(),
    );
    assert!(
        matches!(&again[..], [EventKind::MarkerError { .. }, EventKind::AgentMessage { speaker_name, .. }] if speaker_name == "Orin")
    );
}

#[test]
fn a_newborn_that_never_registers_is_still_heard_when_its_turn_ends() {
    let mut t = Translator::new(6, None, true);
    let result = parse_line(
        &json!({"type": "result", "subtype": "success", "is_error": false, "session_id": "s"})
            .to_string(),
    )
    .unwrap();
    let events = run(
        &mut t,
        &[text_line("I would rather not choose a name yet."), result],
        &Docs::new(),
    );
    assert!(
        matches!(&events[0], EventKind::AgentMessage { speaker_name, text, .. } if speaker_name == "Seat 7" && text.contains("rather not")),
        "{events:#?}"
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, EventKind::AgentRegistered { .. })));
}

#[test]
fn the_leads_status_maps_names_to_seats() {
    let mut docs = Docs::new();
    for (id, kind) in [
        (
            1,
            EventKind::AgentsSummoned {
                seats: vec![
                    SummonedSeat {
                        seat: 0,
                        uuid: None,
                        secret_hash: None,
                    },
                    SummonedSeat {
                        seat: 5,
                        uuid: None,
                        secret_hash: None,
                    },
                ],
            },
        ),
        (
            2,
            EventKind::AgentRegistered {
                seat: 0,
                name: "Lyra".into(),
                color_name: None,
                soul: None,
                claude_session_id: None,
                inbox: None,
            },
        ),
        (
            3,
            EventKind::AgentRegistered {
                seat: 5,
                name: "Sable".into(),
                color_name: None,
                soul: None,
                claude_session_id: None,
                inbox: None,
            },
        ),
    ] {
        let e = Event {
            id,
            ts: 0,
            session_id: "s".into(),
            kind,
        };
        let w = apply(&docs, &e);
        commit(&mut docs, w);
    }
    let mut lead = Translator::new(4, Some("Julian".into()), false);
    let line = text_line("Team check.\n[ACTION] {\"action\":\"status\",\"agents\":[{\"name\":\"sable\",\"status\":\"alive\"},{\"name\":\"Lyra\",\"status\":\"sleeping\"},{\"name\":\"Ghost\"}]}");
    let events = run(&mut lead, &[line], &docs);
    assert!(
        events.contains(&EventKind::AgentStatus { seats: vec![5] }),
        "{events:#?}"
    );
    // Only the lead reports status.
    let mut agent = Translator::new(0, Some("Lyra".into()), false);
    let events = run(
        &mut agent,
        &[text_line("[AGENT_STATUS] {\"agents\":[]}")],
        &docs,
    );
    assert!(matches!(&events[..], [EventKind::MarkerError { .. }]));
}

#[test]
fn work_states_are_validated() {
    let mut t = Translator::new(6, Some("Tamsin".into()), false);
    let events = run(
        &mut t,
        &[text_line(
            "[STATE:bootstrap]\n[STATE:deep_work]\n[STATE:napping]\n[STATE:inbox]",
        )],
        &Docs::new(),
    );
    assert_eq!(events.len(), 4, "{events:#?}");
    assert_eq!(
        events[0],
        EventKind::WorkState {
            seat: 6,
            state: WorkState::Bootstrap
        }
    );
    assert!(
        matches!(&events[1], EventKind::MarkerError { error, .. } if error.contains("bootstrap -> deep_work"))
    );
    assert!(
        matches!(&events[2], EventKind::MarkerError { error, .. } if error.contains("unknown work state"))
    );
    assert_eq!(
        events[3],
        EventKind::WorkState {
            seat: 6,
            state: WorkState::Inbox
        }
    );
}

#[test]
fn lead_requests_are_handed_to_the_runtime() {
    let mut t = Translator::new(4, Some("Julian".into()), false);
    let out = t.on_line(
        &text_line("[ACTION] {\"action\":\"summon\"}\n[ACTION] {\"action\":\"route\",\"to\":\"Lyra\",\"text\":\"hi\"}\n[ACTION] {\"action\":\"dismiss\",\"name\":\"Lyra\"}"),
        &Docs::new(),
    );
    assert_eq!(
        out.requests,
        [
            LeadRequest::Summon {
                seats: None,
                count: None
            },
            LeadRequest::Route {
                seat: 4,
                from: "Julian".into(),
                to: "Lyra".into(),
                text: "hi".into()
            },
            LeadRequest::Dismiss {
                name: "Lyra".into()
            }
        ]
    );
    assert!(
        out.events.is_empty(),
        "markers are not shown: {:?}",
        out.events
    );
}

/// The simulated CLI with `args`, working in `cwd`, its stdin and stdout piped.
fn simulator(cwd: &std::path::Path, args: &[&str]) -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(env!("CARGO_BIN_EXE_soulgrid-sim"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn the_simulators_lines_parse_like_the_real_clis() {
    use std::io::Write;
    let cwd = tempfile::tempdir().unwrap();
    let mut child = simulator(cwd.path(), &["-p", "--session-id", "sim-1"]);
    let letter = soulgrid::runtime::protocol::user_message(
        "You sit in seat 8 of a 3×3 grid. End with [ACTION] {\"action\":\"register\",\"name\":\"<name>\"}",
        "u-1",
    );
    writeln!(child.stdin.take().unwrap(), "{letter}").unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<CliLine> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| parse_line(l).unwrap())
        .collect();
    let mut t = Translator::new(7, None, true);
    let events = run(&mut t, &lines, &Docs::new());
    assert!(events.iter().any(|e| matches!(e, EventKind::AgentRegistered { name, soul: Some(s), .. } if name == "Ember" && s.contains("I am Ember"))), "{events:#?}");
    assert!(matches!(
        events.last(),
        Some(EventKind::AgentProcess {
            state: ProcessState::Idle,
            ..
        })
    ));
}

/// The simulator is instant: a turn's lines (init, the echo of the message, the answer, the
/// result) reach its stdout in one write, as the real CLI's would if its model answered at
/// once, so what a benchmark measures of a turn is the server's (P8), not gaps the simulator
/// left between its lines.
#[test]
fn the_simulator_writes_a_turn_at_once() {
    use std::io::{Read, Write};
    let cwd = tempfile::tempdir().unwrap();
    let mut args = soulgrid::runtime::process::STREAM_JSON.to_vec();
    args.extend(["--replay-user-messages", "--session-id", "sim-1"]);
    let mut child = simulator(cwd.path(), &args);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let message = soulgrid::runtime::protocol::user_message("hello", "u-1");
    writeln!(stdin, "{message}").unwrap();
    // One read: whatever one write of the simulator put in the pipe (under a page: whole).
    let mut buf = vec![0; 64 * 1024];
    let n = stdout.read(&mut buf).unwrap();
    let got = String::from_utf8_lossy(&buf[..n]).into_owned();
    let kinds: Vec<String> = got
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["type"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(kinds, ["system", "user", "assistant", "result"], "{got}");
    drop(stdin);
    child.wait().unwrap();
}
