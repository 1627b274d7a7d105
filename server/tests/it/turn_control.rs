//! From stdout lines to events, for the control protocol: permission prompts the CLI asks the
//! host, control requests we refuse, and an interrupted turn (recorded from the real CLI).

use crate::common;

use app::domain::docs::Docs;
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use common::recorded::{out_lines, CLI, OURS};
use serde_json::Value;
use soulgrid::runtime::protocol::{parse_line, CliLine};
use soulgrid::runtime::turn::Translator;

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
fn a_recorded_permission_prompt_becomes_a_request_waiting_for_an_answer() {
    for file in ["permission-allow.jsonl", "permission-deny.jsonl"] {
        let mut t = Translator::new(3, Some("Wren".into()), false);
        let mut asked = Vec::new();
        let mut events = Vec::new();
        for line in recorded_out(file) {
            let out = t.on_line(&line, &Docs::new());
            asked.extend(out.asked);
            assert!(out.replies.is_empty(), "nothing is refused in {file}");
            events.extend(out.events);
        }
        let requests: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                EventKind::PermissionRequest {
                    seat,
                    request_id,
                    tool_name,
                    input,
                    description,
                    suggestions,
                    tool_use_id,
                } => Some((
                    *seat,
                    request_id,
                    tool_name,
                    input,
                    description,
                    suggestions,
                    tool_use_id,
                )),
                _ => None,
            })
            .collect();
        let [(seat, id, tool, input, description, suggestions, tool_use_id)] = &requests[..] else {
            panic!("{file}: {events:#?}")
        };
        assert_eq!((*seat, tool.as_str()), (3, "Write"));
        assert_eq!(asked, vec![id.to_string()], "the timeout is armed for it");
        assert!(input["file_path"].as_str().unwrap().ends_with(".txt"));
        assert!(description.as_deref().unwrap().ends_with(".txt"));
        assert_eq!(suggestions.as_ref().unwrap()[0]["mode"], "acceptEdits");
        assert!(tool_use_id.as_deref().unwrap().starts_with("toolu_"));
        assert!(
            events.iter().any(|e| matches!(e,
            EventKind::AgentProcess { reason: Some(r), .. } if r == "waiting for approval: Write"))
        );
    }
}

#[test]
fn a_control_request_we_do_not_know_is_refused_not_left_waiting() {
    let mut t = Translator::new(0, Some("Lyra".into()), false);
    let line = parse_line(
        r#"{"type":"control_request","request_id":"r9","request":{"subtype":"hook_callback","callback_id":"x"}}"#,
    )
    .unwrap();
    let out = t.on_line(&line, &Docs::new());
    assert!(out.events.is_empty());
    let [reply] = &out.replies[..] else {
        panic!("{out:?}")
    };
    let v: Value = serde_json::from_str(reply).unwrap();
    assert_eq!(v["response"]["subtype"], "error");
    assert_eq!(v["response"]["request_id"], "r9");
}

#[test]
fn a_recorded_interrupt_ends_the_turn_idle_and_is_not_an_error() {
    let lines = out_lines(OURS, "interrupt.jsonl");
    let mut t = Translator::new(0, Some("Lyra".into()), false);
    let events = run(&mut t, &lines, &Docs::new());
    let idles: Vec<Option<&str>> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::AgentProcess {
                state: ProcessState::Idle,
                reason,
                ..
            } => Some(reason.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(
        idles,
        vec![None, Some("interrupted"), None],
        "three turns: {events:#?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::RuntimeError { .. })),
        "an interrupt is not a fault: {events:#?}"
    );
    // The text streamed before the interrupt is kept.
    assert!(events
        .iter()
        .any(|e| matches!(e, EventKind::AgentMessage { text, .. } if text == "thinking...")));
}
