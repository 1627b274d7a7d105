//! T1: a Soulgrid tool call's round trip in the server: the CLI's `mcp_message` line as read
//! from its stdout, parsed, answered by the translator (the call validated, its events made),
//! to the `control_response` line handed to the process's stdin writer. The CLI's own part and
//! the pipe are not in it. Calls answered there: `team`, a work state, a refusal; a call that
//! asks the runtime (a summon, a message) is answered when that is done, and takes what the
//! operation takes (its own rows).

use std::time::Instant;

use app::domain::docs::Docs;
use app::domain::events::{EventKind, SummonedSeat};
use serde_json::json;
use soulgrid::runtime::protocol::parse_line;
use soulgrid::runtime::turn::Translator;

use crate::table::Row;

/// Eight agents seated, the lead named.
pub fn team() -> Docs {
    let mut kinds = vec![
        EventKind::SessionStart {
            lead_name: Some("Julian".into()),
            human_name: None,
        },
        EventKind::AgentsSummoned {
            seats: app::domain::agent_seats()
                .map(|seat| SummonedSeat {
                    seat,
                    uuid: None,
                    secret_hash: None,
                })
                .collect(),
        },
    ];
    for (i, seat) in app::domain::agent_seats().enumerate() {
        kinds.push(EventKind::AgentRegistered {
            seat,
            name: format!("Agent{i}"),
            color_name: None,
            soul: None,
            claude_session_id: None,
            inbox: Some(format!("agent{i}")),
        });
    }
    app::domain::reducer::fold(kinds)
}

pub fn round_trip(quick: bool) -> Row {
    let calls = if quick { 500 } else { 5_000 };
    eprintln!("T1: {calls} tool calls through the translator…");
    let docs = team();
    let mut t =
        Translator::new(0, Some("Agent0".into()), false).with_team_names("Julian", "Marcus");
    let lines: Vec<String> = (0..calls)
        .map(|i| {
            let (name, args) = match i % 3 {
                0 => ("team", json!({})),
                1 => ("set_work_state", json!({"state": "bootstrap", "summary": format!("step {i}")})),
                _ => ("summon", json!({"seats": [2]})),
            };
            json!({"type": "control_request", "request_id": format!("r{i}"), "request": {"subtype": "mcp_message",
                "server_name": "soulgrid", "message": {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}}})
            .to_string()
        })
        .collect();
    let mut took = Vec::with_capacity(calls);
    for line in &lines {
        let at = Instant::now();
        let parsed = parse_line(line).expect("a control request");
        let out = t.on_line(&parsed, &docs);
        std::hint::black_box(&out.replies);
        took.push(at.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(out.replies.len(), 1);
    }
    Row::new(
        "T1",
        "a soulgrid tool call in the server: its mcp_message line read → its answer for stdin",
        "p95 ≤ 1 ms",
    )
    .p95_within(took, 1.0)
}
