//! The stream-json parser against lines the real Claude Code CLI 2.1.330 wrote (recorded in
//! tests/fixtures), not only against what our simulator prints.

use serde_json::Value;
use soulgrid::runtime::protocol::{
    allow, deny, parse_line, user_message, CliLine, ContentBlock, ControlRequest,
};

use crate::common;

use common::recorded::{self, CLI};

/// (direction, protocol line) of a recorded session.
fn recorded(name: &str) -> Vec<(String, String)> {
    recorded::lines(CLI, name)
}

fn out_lines(name: &str) -> Vec<CliLine> {
    recorded::out_lines(CLI, name)
}

const ALL: [&str; 9] = [
    "two-turns.jsonl",
    "bash-tool.jsonl",
    "write-denied.jsonl",
    "write-accept-edits.jsonl",
    "partial-messages.jsonl",
    "subagent-and-sendmessage.jsonl",
    "permission-allow.jsonl",
    "permission-deny.jsonl",
    "resume.jsonl",
];

#[test]
fn every_recorded_stdout_line_parses_and_none_is_unknown() {
    for name in ALL {
        for line in out_lines(name) {
            assert_ne!(line, CliLine::Other, "{name}: a line type we do not model");
        }
    }
}

#[test]
fn each_turn_starts_with_init_and_ends_with_one_result() {
    for name in [
        "two-turns.jsonl",
        "bash-tool.jsonl",
        "write-accept-edits.jsonl",
    ] {
        let lines = out_lines(name);
        let inits = lines
            .iter()
            .filter(|l| matches!(l, CliLine::System { subtype, .. } if subtype == "init"))
            .count();
        let results = lines
            .iter()
            .filter(|l| matches!(l, CliLine::Result(_)))
            .count();
        assert_eq!(inits, results, "{name}");
        assert!(
            matches!(&lines[0], CliLine::System { subtype, session_id: Some(_) } if subtype == "init")
        );
        assert!(matches!(lines.last().unwrap(), CliLine::Result(_)));
    }
}

#[test]
fn two_turns_carry_text_session_and_cost() {
    let lines = out_lines("two-turns.jsonl");
    let CliLine::System {
        session_id: Some(session),
        ..
    } = &lines[0]
    else {
        panic!()
    };
    let CliLine::Assistant { message, .. } = &lines[1] else {
        panic!("{:?}", lines[1])
    };
    assert!(matches!(&message.content[..], [ContentBlock::Text { text }] if !text.is_empty()));
    let CliLine::Result(result) = &lines[2] else {
        panic!()
    };
    assert_eq!(result.session_id.as_ref(), Some(session));
    assert!(result.total_cost_usd.unwrap() > 0.0);
    assert!(result.usage.as_ref().unwrap().context_tokens() > 0);
    assert!(!result.is_error);
}

#[test]
fn one_block_per_assistant_line_and_tool_use_is_seen() {
    let lines = out_lines("bash-tool.jsonl");
    let blocks: Vec<&ContentBlock> = lines
        .iter()
        .filter_map(|l| match l {
            CliLine::Assistant { message, .. } => Some(&message.content),
            _ => None,
        })
        .inspect(|c| assert_eq!(c.len(), 1, "one block per line"))
        .flatten()
        .collect();
    assert!(blocks.iter().any(|b| matches!(b, ContentBlock::ToolUse { name, input, .. } if name == "Bash" && input["command"] == "echo hi")));
    let CliLine::Result(r) = lines.last().unwrap() else {
        panic!()
    };
    assert_eq!(r.num_turns, Some(2));
}

#[test]
fn permission_prompts_are_control_requests_and_our_answers_match_the_recording() {
    for (name, allowed) in [
        ("permission-allow.jsonl", true),
        ("permission-deny.jsonl", false),
    ] {
        let rec = recorded(name);
        let (request_id, input) = rec
            .iter()
            .filter(|(d, _)| d == "out")
            .find_map(|(_, l)| match parse_line(l).unwrap() {
                CliLine::ControlRequest {
                    request_id,
                    request:
                        ControlRequest::CanUseTool {
                            tool_name, input, ..
                        },
                } => {
                    assert_eq!(tool_name, "Write");
                    Some((request_id, input))
                }
                _ => None,
            })
            .expect("a can_use_tool request");
        // What the host wrote back, recorded; ours must say the same thing.
        let answer: Value = rec
            .iter()
            .filter(|(d, _)| d == "in")
            .map(|(_, l)| serde_json::from_str::<Value>(l).unwrap())
            .find(|v| v["type"] == "control_response")
            .unwrap();
        let ours: Value = if allowed {
            serde_json::from_str(&allow(&request_id, &input)).unwrap()
        } else {
            let msg = answer["response"]["response"]["message"]
                .as_str()
                .unwrap_or("denied")
                .to_string();
            serde_json::from_str(&deny(&request_id, &msg)).unwrap()
        };
        assert_eq!(
            ours["response"]["request_id"], answer["response"]["request_id"],
            "{name}"
        );
        assert_eq!(
            ours["response"]["response"]["behavior"], answer["response"]["response"]["behavior"],
            "{name}"
        );
    }
}

#[test]
fn our_user_line_has_the_recorded_shape() {
    let rec = recorded("permission-allow.jsonl");
    let theirs: Value = rec
        .iter()
        .filter(|(d, _)| d == "in")
        .map(|(_, l)| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "user")
        .unwrap();
    let ours: Value = serde_json::from_str(&user_message("hello", "u-1")).unwrap();
    assert_eq!(ours["type"], theirs["type"]);
    assert_eq!(ours["message"]["role"], theirs["message"]["role"]);
    assert_eq!(
        ours["uuid"], "u-1",
        "the id the CLI echoes when it takes the message"
    );
}

#[test]
fn subagent_lines_carry_their_parent() {
    let lines = out_lines("subagent-and-sendmessage.jsonl");
    assert!(lines.iter().any(|l| matches!(
        l,
        CliLine::Assistant {
            parent_tool_use_id: Some(_),
            ..
        }
    )));
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    assert!(parse_line("not json").is_err());
    assert!(parse_line("{\"type\":\"assistant\"}").is_err());
    assert_eq!(
        parse_line("{\"type\":\"brand_new\"}").unwrap(),
        CliLine::Other
    );
}
