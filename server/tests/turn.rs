//! From stdout lines to events, on recorded CLI lines and on scripted ones.

use app::domain::docs::{commit, Docs};
use app::domain::events::{Event, EventKind, SummonedSeat};
use app::domain::process::ProcessState;
use app::domain::reducer::apply;
use app::domain::work_cycle::WorkState;
use serde_json::json;
use soulgrid::runtime::protocol::{parse_line, CliLine};
use soulgrid::runtime::turn::{LeadRequest, Translator};

mod common;

use common::recorded::{out_lines, CLI};

fn recorded_out(name: &str) -> Vec<CliLine> {
    out_lines(CLI, name)
}

fn text_line(text: &str) -> CliLine {
    parse_line(
        &json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null, "session_id": "s"})
        .to_string(),
    )
    .unwrap()
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
                    },
                    SummonedSeat {
                        seat: 5,
                        uuid: None,
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
            LeadRequest::Summon,
            LeadRequest::Route {
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

#[test]
fn the_simulators_lines_parse_like_the_real_clis() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let cwd = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_soulgrid-sim"))
        .args(["-p", "--session-id", "sim-1"])
        .current_dir(cwd.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let letter = soulgrid::runtime::protocol::user_message(
        "You sit at position 7. End with [ACTION] {\"action\":\"register\",\"name\":\"<name>\"}",
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

fn registered_docs(names: &[(u8, &str)]) -> Docs {
    let mut docs = Docs::new();
    let mut events = vec![EventKind::AgentsSummoned {
        seats: (0..9)
            .filter(|s| *s != 4)
            .map(|seat| SummonedSeat { seat, uuid: None })
            .collect(),
    }];
    for (seat, name) in names {
        events.push(EventKind::AgentRegistered {
            seat: *seat,
            name: name.to_string(),
            color_name: None,
            soul: None,
            claude_session_id: None,
            inbox: Some(app::domain::names::slug(name)),
        });
    }
    for (i, kind) in events.into_iter().enumerate() {
        let e = Event {
            id: i as u64 + 1,
            ts: 0,
            session_id: "s".into(),
            kind,
        };
        let w = apply(&docs, &e);
        commit(&mut docs, w);
    }
    docs
}

fn register_line(name: &str) -> CliLine {
    text_line(&format!(
        "I chose.\n[ACTION] {}",
        json!({"action": "register", "name": name})
    ))
}

#[test]
fn a_newborn_asking_for_a_taken_name_is_told_why_and_asked_once_more() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "first.last");
    for taken in ["lyra", "JULIAN", "First.Last"] {
        let mut t = Translator::new(3, None, true).with_team_names("Julian", "first.last");
        let out = t.on_line(&register_line(taken), &docs);
        assert!(
            !out.events
                .iter()
                .any(|e| matches!(e, EventKind::AgentRegistered { .. })),
            "{taken}: {out:#?}"
        );
        assert!(out.stop.is_none());
    }
    let out = t.on_line(&register_line("<chosen name>"), &docs);
    let error = out
        .events
        .iter()
        .find_map(|e| match e {
            EventKind::MarkerError {
                seat: Some(3),
                error,
                ..
            } => Some(error.clone()),
            _ => None,
        })
        .expect("a marker error on the seat");
    assert!(error.contains("cannot contain '<'"), "{error}");
    let [reply] = &out.replies[..] else {
        panic!("one message asking again: {out:#?}")
    };
    let reply: serde_json::Value = serde_json::from_str(reply).unwrap();
    let asked = reply["message"]["content"].as_str().unwrap();
    assert!(asked.contains("Choose another name"), "{asked}");
    assert!(out.stop.is_none() && t.is_summoning());

    // The second chance, taken: the name, and an inbox of its own.
    let out = t.on_line(&register_line("  Zoë "), &docs);
    assert!(
        out.events.iter().any(|e| matches!(e, EventKind::AgentRegistered { seat: 3, name, inbox: Some(inbox), .. } if name == "Zoë" && inbox == "zoe")),
        "{out:#?}"
    );
}

#[test]
fn a_newborn_refused_twice_is_stopped() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "Marcus");
    let first = t.on_line(&register_line("Lyra"), &docs);
    assert!(first.stop.is_none() && first.replies.len() == 1);
    let second = t.on_line(&register_line("LYRA"), &docs);
    assert!(second.replies.is_empty());
    assert_eq!(second.stop.as_deref(), Some("chose no name it could have"));
}

#[test]
fn a_name_like_a_seated_one_gets_an_inbox_of_its_own() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "Marcus");
    let out = t.on_line(&register_line("Lyra!"), &docs);
    assert!(
        out.events.iter().any(|e| matches!(e, EventKind::AgentRegistered { inbox: Some(inbox), .. } if inbox == "lyra-2")),
        "{out:#?}"
    );
}

#[test]
fn only_the_lead_retires_and_recalls() {
    let kill = text_line("[ACTION] {\"action\":\"kill\",\"name\":\"Lyra\"}");
    let recall = text_line("[ACTION] {\"action\":\"recall\",\"name\":\"Lyra\"}");
    let mut lead = Translator::new(4, Some("Julian".into()), false);
    assert_eq!(
        lead.on_line(&kill, &Docs::new()).requests,
        [LeadRequest::Kill {
            name: "Lyra".into()
        }]
    );
    assert_eq!(
        lead.on_line(&recall, &Docs::new()).requests,
        [LeadRequest::Recall {
            name: "Lyra".into()
        }]
    );
    let mut agent = Translator::new(0, Some("Kael".into()), false);
    for line in [kill, recall] {
        let out = agent.on_line(&line, &Docs::new());
        assert!(out.requests.is_empty());
        assert!(out.events.iter().any(
            |e| matches!(e, EventKind::MarkerError { error, .. } if error.contains("only the lead"))
        ));
    }
}
