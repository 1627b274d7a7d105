//! What `tools/list` gives follows where the agent stands, and the CLI is told when it changes.

use app::domain::events::EventKind;
use serde_json::{json, Value};
use soulgrid::runtime::turn::Output;

use super::{answered, lead, mcp, team, team_events};
use crate::common::recorded::text_line;

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
        project: None,
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
