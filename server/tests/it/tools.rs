//! The agent's `soulgrid` MCP server through the translator: the recorded CLI's messages are
//! answered, a call is its marker (validated, recorded, carried out as the marker is), and every
//! bad input gets a sentence, is recorded once and changes nothing else.

use app::domain::docs::Docs;
use app::domain::events::{EventKind, SummonedSeat};
use serde_json::{json, Value};
use soulgrid::runtime::protocol::{parse_line, CliLine};
use soulgrid::runtime::turn::{LeadRequest, Output, QuestRequest, Translator};

use crate::common;

use common::recorded::{out_lines, text_line, CLI};

/// Lyra (seat 0) and Kael (seat 1) seated, the lead Julian.
fn team() -> Docs {
    app::domain::reducer::fold(team_events())
}

fn team_events() -> Vec<EventKind> {
    let mut events = vec![
        EventKind::SessionStart {
            lead_name: Some("Julian".into()),
            human_name: None,
        },
        EventKind::AgentsSummoned {
            seats: [0, 1]
                .into_iter()
                .map(|seat| SummonedSeat { seat, uuid: None })
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

fn lyra() -> Translator {
    Translator::new(0, Some("Lyra".into()), false).with_team_names("Julian", "Marcus")
}

fn lead() -> Translator {
    Translator::new(4, Some("Julian".into()), false).with_team_names("Julian", "Marcus")
}

fn mcp(server: &str, message: Value) -> CliLine {
    parse_line(
        &json!({"type": "control_request", "request_id": "r1",
            "request": {"subtype": "mcp_message", "server_name": server, "message": message}})
        .to_string(),
    )
    .unwrap()
}

fn call(tool: &str, args: Value) -> CliLine {
    mcp(
        "soulgrid",
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": {"claudecode/toolUseId": "toolu_1"}}}),
    )
}

/// The one reply written back: the JSON-RPC message in it.
fn answered(out: &Output) -> Value {
    assert_eq!(out.replies.len(), 1, "{:?}", out.replies);
    let reply: Value = serde_json::from_str(&out.replies[0]).unwrap();
    assert_eq!(reply["type"], "control_response");
    assert!(reply["response"]["request_id"].is_string());
    reply["response"]["response"]["mcp_response"].clone()
}

fn errors(out: &Output) -> Vec<String> {
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
fn the_leads_tools_are_the_leads() {
    let docs = team();
    let out = lyra().on_line(&call("summon", json!({})), &docs);
    let r = answered(&out)["result"].clone();
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        "only the lead may use summon: ask the lead with send_message"
    );
    assert!(out.requests.is_empty());
    assert_eq!(errors(&out).len(), 1);

    let out = lead().on_line(&call("summon", json!({})), &docs);
    assert!(out.answer.is_some(), "answered once the summon is made");
    assert_eq!(
        out.requests,
        [LeadRequest::Summon {
            seats: None,
            count: None
        }]
    );
    // Seats as `team` numbers them: 1-9, the lead's 5 not an agent's.
    let out = lead().on_line(&call("summon", json!({"seats": [1, 9]})), &docs);
    assert_eq!(
        out.requests,
        [LeadRequest::Summon {
            seats: Some(vec![0, 8]),
            count: None
        }]
    );
    let out = lead().on_line(&call("summon", json!({"seats": [5]})), &docs);
    assert_eq!(
        answered(&out)["result"]["content"][0]["text"],
        "seat 5 is the lead's: the agents' seats are 1-4 and 6-9"
    );
    assert!(out.requests.is_empty() && out.answer.is_none());
    assert_eq!(errors(&out).len(), 1);
    let out = lead().on_line(&call("retire", json!({"agent": "Kael"})), &docs);
    assert_eq!(
        out.requests,
        [LeadRequest::Kill {
            name: "Kael".into(),
            cascade: false
        }]
    );
    let out = lead().on_line(&call("recall", json!({"agent": "Kael", "seat": 3})), &docs);
    assert_eq!(
        out.requests,
        [LeadRequest::Recall {
            name: "Kael".into(),
            seat: Some(2)
        }]
    );
    // The lead forks another agent into a seat it names; a member forks only itself.
    let out = lead().on_line(&call("fork", json!({"agent": "Kael", "seat": 7})), &docs);
    assert_eq!(
        out.requests,
        [LeadRequest::Fork {
            seat: 1,
            by: 4,
            from: "Julian".into(),
            prompt: None,
            into: Some(6)
        }]
    );
    let out = lyra().on_line(&call("fork", json!({"agent": "Kael"})), &docs);
    assert!(answered(&out)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("only the lead may fork another agent"));
    assert!(out.requests.is_empty());
    let out = lyra().on_line(
        &call("fork", json!({"agent": "lyra", "prompt": "go"})),
        &docs,
    );
    assert!(matches!(
        &out.requests[..],
        [LeadRequest::Fork { seat: 0, by: 0, .. }]
    ));
    let listed = lead().on_line(
        &mcp(
            "soulgrid",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ),
        &docs,
    );
    assert!(answered(&listed)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "summon"));
}

#[test]
fn bad_input_gets_a_sentence_is_recorded_once_and_changes_nothing_else() {
    let docs = team();
    let is_error_with = |out: &Output, said: &str| {
        let r = answered(out)["result"].clone();
        assert_eq!(r["isError"], true, "{r}");
        assert!(
            r["content"][0]["text"].as_str().unwrap().contains(said),
            "{r}"
        );
        assert_eq!(errors(out).len(), 1);
        assert!(out.requests.is_empty());
    };
    is_error_with(
        &lyra().on_line(&call("teleport", json!({})), &docs),
        "there is no tool \"teleport\"",
    );
    is_error_with(
        &lyra().on_line(&call("send_message", json!({"to": "Kael"})), &docs),
        "send_message needs to (string, required), text (string, required)",
    );
    is_error_with(
        &lyra().on_line(&call("send_message", json!({"to": 3, "text": "x"})), &docs),
        "send_message needs",
    );
    is_error_with(
        &lyra().on_line(
            &call("set_work_state", json!({"state": "deep_work"})),
            &docs,
        ),
        "transition",
    );
    is_error_with(
        &lyra().on_line(&call("claim_job", json!("j1")), &docs),
        "an object of arguments",
    );
    // An argument over a stdin line's limit: refused before it is carried anywhere.
    let huge = "x".repeat(600 * 1024);
    is_error_with(
        &lyra().on_line(
            &call("send_message", json!({"to": "Kael", "text": huge})),
            &docs,
        ),
        "more than a message may carry",
    );
    // A call after the process was told to stop: nothing more acts on the team; its soul and
    // its work state can still be written (the note before sleep).
    let mut stopping = lyra();
    stopping.set_stopping(Some("retired by the lead".into()));
    is_error_with(
        &stopping.on_line(
            &call("send_message", json!({"to": "Kael", "text": "one more"})),
            &docs,
        ),
        "this process is stopping (retired by the lead)",
    );
    let out = stopping.on_line(
        &call("set_work_state", json!({"state": "bootstrap"})),
        &docs,
    );
    assert_eq!(
        answered(&out)["result"]["content"][0]["text"],
        "Your work state is now bootstrap."
    );

    // Not a JSON-RPC request, an unknown method, a server we did not declare.
    let out = lyra().on_line(&mcp("soulgrid", json!({"jsonrpc": "2.0", "id": 3})), &docs);
    assert_eq!(answered(&out)["error"]["code"], -32600);
    assert_eq!(errors(&out).len(), 1);
    let out = lyra().on_line(
        &mcp(
            "soulgrid",
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}),
        ),
        &docs,
    );
    assert_eq!(answered(&out)["error"]["code"], -32601);
    assert_eq!(errors(&out).len(), 1);
    let out = lyra().on_line(
        &mcp(
            "elsewhere",
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
        ),
        &docs,
    );
    let reply: Value = serde_json::from_str(&out.replies[0]).unwrap();
    assert_eq!(reply["response"]["subtype"], "error");
    assert!(reply["response"]["error"]
        .as_str()
        .unwrap()
        .contains("\"elsewhere\""));
    assert_eq!(errors(&out).len(), 1);
    assert!(out.requests.is_empty());
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

/// The lead's list changes when a quest begins (its moves are listed then): the CLI is told
/// with `notifications/tools/list_changed` (the way the pinned CLI takes it, measured in
/// `mcp-list-changed.jsonl`), once, and only after it has listed the tools at all.
#[test]
fn a_changed_standing_tells_the_cli_its_tools_changed() {
    let docs = team();
    let mut t = lead();
    let list = mcp(
        "soulgrid",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    let names = |out: &Output| -> Vec<String> {
        answered(out)["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let quiet = text_line("thinking");
    assert!(
        t.on_line(&quiet, &docs).replies.is_empty(),
        "nothing listed yet"
    );
    let before = names(&t.on_line(&list, &docs));
    assert!(!before.contains(&"quest_plan".to_string()), "{before:?}");
    assert!(
        t.on_line(&quiet, &docs).replies.is_empty(),
        "nothing changed"
    );

    let mut events = team_events();
    events.push(EventKind::QuestStarted {
        quest_id: "q1".into(),
        problem: "Why is the build slow?".into(),
        folder: None,
    });
    let docs = app::domain::reducer::fold(events);
    let out = t.on_line(&quiet, &docs);
    assert_eq!(out.replies.len(), 1, "{:?}", out.replies);
    let note: Value = serde_json::from_str(&out.replies[0]).unwrap();
    assert_eq!(note["type"], "control_request");
    assert_eq!(note["request"]["subtype"], "mcp_message");
    assert_eq!(note["request"]["server_name"], "soulgrid");
    assert_eq!(
        note["request"]["message"],
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert!(t.on_line(&quiet, &docs).replies.is_empty(), "told once");
    let after = names(&t.on_line(&list, &docs));
    assert!(after.contains(&"quest_plan".to_string()), "{after:?}");
}
