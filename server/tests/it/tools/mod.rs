//! The agent's `soulgrid` MCP server through the translator: the recorded CLI's messages are
//! answered, a call is its marker (validated, recorded, carried out as the marker is), and every
//! tool call becomes a line of the thread. `refusals.rs`: who may call what, and every bad input
//! gets a sentence, is recorded once and changes nothing else; `listing.rs`: what is listed
//! follows where the agent stands.

mod listing;
mod refusals;

use app::domain::docs::Docs;
use app::domain::events::{EventKind, SummonedSeat};
use serde_json::{json, Value};
use soulgrid::runtime::protocol::{parse_line, CliLine};
use soulgrid::runtime::turn::{LeadRequest, Output, QuestRequest, Translator};

use crate::common;

use common::recorded::{out_lines, text_line, CLI};

/// Lyra (seat 0) and Kael (seat 1) seated, the lead Julian.
pub(super) fn team() -> Docs {
    app::domain::reducer::fold(team_events())
}

pub(super) fn team_events() -> Vec<EventKind> {
    let mut events = vec![
        EventKind::SessionStart {
            lead_name: Some("Julian".into()),
            human_name: None,
        },
        EventKind::AgentsSummoned {
            seats: [0, 1]
                .into_iter()
                .map(|seat| SummonedSeat {
                    seat,
                    uuid: None,
                    secret_hash: None,
                })
                .collect(),
        },
    ];
    for (seat, name) in [(0u8, "Lyra"), (1, "Kael")] {
        events.push(EventKind::AgentRegistered {
            seat,
            name: name.into(),
            color_name: None,
            soul: None,
            claude_session_id: None,
            inbox: Some(name.to_lowercase()),
        });
    }
    events
}

pub(super) fn lyra() -> Translator {
    Translator::new(0, Some("Lyra".into()), false).with_team_names("Julian", "Marcus")
}

pub(super) fn lead() -> Translator {
    Translator::new(4, Some("Julian".into()), false).with_team_names("Julian", "Marcus")
}

pub(super) fn mcp(server: &str, message: Value) -> CliLine {
    parse_line(
        &json!({"type": "control_request", "request_id": "r1",
            "request": {"subtype": "mcp_message", "server_name": server, "message": message}})
        .to_string(),
    )
    .unwrap()
}

pub(super) fn call(tool: &str, args: Value) -> CliLine {
    mcp(
        "soulgrid",
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": {"claudecode/toolUseId": "toolu_1"}}}),
    )
}

/// The one reply written back: the JSON-RPC message in it.
pub(super) fn answered(out: &Output) -> Value {
    assert_eq!(out.replies.len(), 1, "{:?}", out.replies);
    let reply: Value = serde_json::from_str(&out.replies[0]).unwrap();
    assert_eq!(reply["type"], "control_response");
    assert!(reply["response"]["request_id"].is_string());
    reply["response"]["response"]["mcp_response"].clone()
}

pub(super) fn errors(out: &Output) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            EventKind::MarkerError { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_recorded_cli_opens_the_server_lists_the_tools_and_calls_them() {
    let docs = team();
    let mut t = lyra();
    let mut calls = 0;
    for line in out_lines(CLI, "mcp-tools.jsonl") {
        let CliLine::ControlRequest { request_id, .. } = &line else {
            continue;
        };
        let out = t.on_line(&line, &docs);
        // `send_message` to nobody: carried to the runtime, which answers it (with the
        // refusal) once it has looked.
        if let Some(pending) = &out.answer {
            assert_eq!(&pending.request_id, request_id);
            assert!(out.replies.is_empty());
            assert!(matches!(&out.requests[..], [LeadRequest::Route { to, .. }] if to == "nobody"));
            calls += 1;
            continue;
        }
        let answer = answered(&out);
        assert!(
            out.replies[0].contains(request_id.as_str()),
            "answered to its request"
        );
        match answer.get("result") {
            Some(r) if r.get("protocolVersion").is_some() => {
                assert_eq!(r["protocolVersion"], "2025-11-25");
                assert_eq!(r["capabilities"]["tools"]["listChanged"], true);
                assert_eq!(answer["id"], 0);
            }
            Some(r) if r.get("tools").is_some() => {
                let names: Vec<&str> = r["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap())
                    .collect();
                assert!(
                    names.contains(&"send_message") && names.contains(&"team"),
                    "{names:?}"
                );
                assert!(
                    !names.contains(&"summon"),
                    "a member is not offered the lead's tools"
                );
            }
            Some(r) if r.get("content").is_some() => {
                calls += 1;
                let text = r["content"][0]["text"].as_str().unwrap();
                match calls {
                    // `team`: who sits where.
                    1 => {
                        assert_eq!(r["isError"], false);
                        assert!(
                            text.contains("seat 1: Lyra")
                                && text.contains("seat 2: Kael")
                                && text.contains("In the Hall: nobody."),
                            "{text}"
                        );
                    }
                    _ => unreachable!("{text}"),
                }
            }
            // The initialized notification, acknowledged.
            _ => assert_eq!(answer, json!({"jsonrpc": "2.0", "result": {}, "id": 0})),
        }
    }
    assert_eq!(calls, 2);
}

#[test]
fn a_call_is_the_marker_it_mirrors() {
    let docs = team();
    // One rule, two syntaxes: the same requests and events.
    let cases = [
        (
            "send_message",
            json!({"to": "Kael", "text": "tea?"}),
            json!({"action": "route", "to": "Kael", "text": "tea?"}),
        ),
        (
            "post_finding",
            json!({"title": "A", "body": "b"}),
            json!({"action": "finding", "title": "A", "body": "b"}),
        ),
        (
            "set_work_state",
            json!({"state": "bootstrap", "summary": "looking"}),
            json!({"action": "state", "state": "bootstrap", "summary": "looking"}),
        ),
        ("stage_done", json!({}), json!({"action": "stage_done"})),
        (
            "claim_job",
            json!({"job": "j1"}),
            json!({"action": "claim", "job": "j1"}),
        ),
    ];
    for (tool, args, marker) in cases {
        let by_tool = lyra().on_line(&call(tool, args), &docs);
        let by_marker = lyra().on_line(&text_line(&format!("[ACTION] {marker}")), &docs);
        assert_eq!(by_tool.requests, by_marker.requests, "{tool}");
        // A call that asks the runtime is answered when it is carried out; one carried out
        // here at once.
        match by_tool.requests.is_empty() {
            true => assert_eq!(answered(&by_tool)["result"]["isError"], false, "{tool}"),
            false => assert!(
                by_tool.answer.is_some() && by_tool.replies.is_empty(),
                "{tool}"
            ),
        }
        let kinds = |o: &Output| {
            o.events
                .iter()
                .filter(|e| !matches!(e, EventKind::AgentMessage { .. }))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&by_tool), kinds(&by_marker), "{tool}");
    }
    let out = lyra().on_line(
        &call("send_message", json!({"to": "kael", "text": "tea?"})),
        &docs,
    );
    assert_eq!(
        out.requests,
        [LeadRequest::Route {
            seat: 0,
            from: "Lyra".into(),
            to: "kael".into(),
            text: "tea?".into()
        }]
    );
    assert!(matches!(
        &lead()
            .on_line(&call("report", json!({"title": "T", "body": "B"})), &docs)
            .requests[..],
        [LeadRequest::Quest(QuestRequest::Report { .. })]
    ));
}

#[test]
fn every_tool_call_becomes_a_line_of_the_thread_with_what_came_of_it() {
    let docs = team();
    let mut t = lyra();
    let used: Vec<EventKind> = out_lines(CLI, "bash-tool.jsonl")
        .iter()
        .flat_map(|l| t.on_line(l, &docs).events)
        .filter(|e| matches!(e, EventKind::ToolUsed { .. }))
        .collect();
    let [EventKind::ToolUsed {
        seat: 0,
        speaker_name,
        line,
        ..
    }] = &used[..]
    else {
        panic!("{used:#?}");
    };
    assert_eq!(speaker_name, "Lyra");
    assert_eq!(line.name, "Bash");
    assert!(
        line.summary().starts_with("Bash echo"),
        "{}",
        line.summary()
    );
    assert_eq!(line.result(), "1 line, 2 B");
    assert_eq!(line.output, "hi");
    assert!(!line.is_error);

    // Ours too, with our answer as its result; an error as an error; a long output cut, said.
    let mut t = lyra();
    let use_line = |id: &str, name: &str, input: Value| {
        parse_line(&json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]},
            "parent_tool_use_id": null, "session_id": "s"}).to_string()).unwrap()
    };
    let result_line = |id: &str, content: Value, is_error: bool| {
        parse_line(&json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}]},
            "parent_tool_use_id": null, "session_id": "s"}).to_string()).unwrap()
    };
    t.on_line(&use_line("a", "mcp__soulgrid__team", json!({})), &docs);
    t.on_line(
        &use_line(
            "b",
            "Read",
            json!({"file_path": "/w/notes.md", "offset": 10, "limit": 20}),
        ),
        &docs,
    );
    let ours = t.on_line(
        &result_line(
            "a",
            json!([{"type": "text", "text": "- seat 1: Lyra\nIn the Hall: nobody."}]),
            false,
        ),
        &docs,
    );
    let read = t.on_line(&result_line("b", json!("x".repeat(40_000)), true), &docs);
    let line_of = |o: &Output| match &o.events[..] {
        [EventKind::ToolUsed { line, .. }] => line.clone(),
        other => panic!("{other:#?}"),
    };
    assert_eq!(line_of(&ours).summary(), "team → 2 lines, 35 B");
    let read = line_of(&read);
    assert!(
        read.summary()
            .starts_with("Read /w/notes.md (lines 10–30) → error: xxxx"),
        "{}",
        read.summary()
    );
    assert!(
        read.output_cut()
            && read.output_bytes == 40_000
            && read.output.len() == app::domain::tool_lines::KEPT_BYTES
    );
}
