//! Who may call what, and every bad input: a sentence, recorded once, nothing else changed.

use serde_json::{json, Value};
use soulgrid::runtime::turn::{LeadRequest, Output};

use super::{answered, call, errors, lead, lyra, mcp, team};

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
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
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
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
