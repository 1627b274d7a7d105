//! Permission requests: asked once, settled once, cancelled when nobody can answer any more.

use serde_json::json;

use super::super::docs::{of_seat, pending, request};
use super::super::docs::{Doc, Docs};
use super::super::events::EventKind;
use super::super::permissions::{updates_for, Decider, Decision, PermissionState};
use super::super::process::ProcessState;
use super::*;

fn ask(seat: Seat, id: &str) -> EventKind {
    EventKind::PermissionRequest {
        seat,
        request_id: id.into(),
        tool_name: "Write".into(),
        input: json!({"file_path": "/tmp/x", "content": "hi"}),
        description: Some("x".into()),
        suggestions: Some(
            json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]),
        ),
        tool_use_id: Some("toolu_1".into()),
    }
}

fn decide(seat: Seat, id: &str, decision: Decision, by: Decider) -> EventKind {
    EventKind::PermissionDecision {
        seat,
        request_id: id.into(),
        decision,
        message: (decision == Decision::Deny).then(|| "not that file".into()),
        decided_by: by,
        suggestion: None,
        rule: None,
    }
}

fn stopped(seat: Seat) -> EventKind {
    process(seat, ProcessState::Stopped)
}

fn process(seat: Seat, state: ProcessState) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state,
        reason: Some("crashed".into()),
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    }
}

#[test]
fn a_request_is_pending_until_the_first_answer() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 10, ask(2, "a"))]);
    let p = request(&docs, "a").unwrap();
    assert_eq!(
        (p.state, p.seat, p.tool_name.as_str()),
        (PermissionState::Pending, 2, "Write")
    );
    assert_eq!(p.input["file_path"], "/tmp/x");
    assert_eq!(p.outcome(), "waiting for your answer");
    assert_eq!(pending(&docs, 2).len(), 1);

    run(
        &mut docs,
        &[
            ev(2, 20, decide(2, "a", Decision::Allow, Decider::Human)),
            // A late timeout (or a second tab) does not overturn the answer.
            ev(3, 30, decide(2, "a", Decision::Deny, Decider::Timeout)),
        ],
    );
    let p = request(&docs, "a").unwrap();
    assert_eq!(p.state, PermissionState::Allowed);
    assert_eq!(
        (p.decided_by, p.decided_at),
        (Some(Decider::Human), Some(20))
    );
    assert_eq!(p.outcome(), "approved");
    assert!(pending(&docs, 2).is_empty());
}

#[test]
fn a_denial_keeps_its_message_and_says_who_denied() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 10, ask(1, "a")),
            ev(2, 11, ask(1, "b")),
            ev(3, 20, decide(1, "a", Decision::Deny, Decider::Human)),
            ev(4, 21, decide(1, "b", Decision::Deny, Decider::Timeout)),
        ],
    );
    assert_eq!(
        request(&docs, "a").unwrap().outcome(),
        "denied: not that file"
    );
    assert_eq!(
        request(&docs, "b").unwrap().outcome(),
        "denied automatically: not that file"
    );
}

#[test]
fn a_replayed_request_does_not_reopen_an_answered_one() {
    let mut docs = Docs::new();
    let events = [
        ev(1, 10, ask(3, "a")),
        ev(2, 20, decide(3, "a", Decision::Allow, Decider::Human)),
    ];
    run(&mut docs, &events);
    let before = docs.clone();
    run(&mut docs, &events[..1]);
    assert_eq!(docs, before);
}

#[test]
fn a_stopped_process_cancels_only_its_own_requests() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 10, ask(3, "a")),
            ev(2, 11, ask(5, "b")),
            ev(3, 12, stopped(3)),
        ],
    );
    let a = request(&docs, "a").unwrap();
    assert_eq!(a.state, PermissionState::Cancelled);
    assert_eq!(a.outcome(), "cancelled: the agent's process stopped");
    assert_eq!(request(&docs, "b").unwrap().state, PermissionState::Pending);
    // Nobody can approve what was cancelled.
    run(
        &mut docs,
        &[ev(4, 13, decide(3, "a", Decision::Allow, Decider::Human))],
    );
    assert_eq!(
        request(&docs, "a").unwrap().state,
        PermissionState::Cancelled
    );

    run(
        &mut docs,
        &[ev(5, 14, EventKind::SessionEnd { reason: None })],
    );
    assert_eq!(
        request(&docs, "b").unwrap().state,
        PermissionState::Cancelled
    );
    assert_eq!(of_seat(&docs, 5).len(), 1);
}

#[test]
fn a_permission_document_survives_json_as_its_own_type() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(7, 10, ask(0, "a"))]);
    let doc = docs.get("permission:a").unwrap();
    let value = doc.to_value();
    assert_eq!(value["type"], "permission");
    assert_eq!(value["state"], "pending");
    assert_eq!(value["requestId"], "a");
    assert_eq!(value["eventId"], 7);
    assert_eq!(&Doc::from_value(value).unwrap(), doc);
}

#[test]
fn events_keep_their_wire_names() {
    let e =
        serde_json::to_value(ev(1, 2, decide(0, "a", Decision::Deny, Decider::Timeout))).unwrap();
    assert_eq!(e["type"], "permission_decision");
    assert_eq!(e["requestId"], "a");
    assert_eq!(e["decision"], "deny");
    assert_eq!(e["decidedBy"], "timeout");
    let e = serde_json::to_value(ev(1, 2, ask(0, "a"))).unwrap();
    assert_eq!(e["type"], "permission_request");
    assert_eq!(e["toolName"], "Write");
}

#[test]
fn inputs_and_suggestions_read_as_words() {
    use super::super::permissions::{input_preview, suggestion_text, INPUT_PREVIEW_CHARS};
    assert_eq!(
        input_preview("Bash", &json!({"command": "ls -la", "description": "list"})),
        "ls -la"
    );
    assert_eq!(
        input_preview("Write", &json!({"file_path": "/a"})),
        "{\n  \"file_path\": \"/a\"\n}"
    );
    let long = input_preview(
        "Bash",
        &json!({"command": "é".repeat(INPUT_PREVIEW_CHARS + 5)}),
    );
    assert!(long.ends_with("… (5 more characters)"), "{long:.40}");

    assert_eq!(
        suggestion_text(
            &json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
        ),
        "switch to acceptEdits mode (session)"
    );
    assert_eq!(
        suggestion_text(
            &json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo hi"},
            {"toolName": "Read"}], "behavior": "allow", "destination": "localSettings"})
        ),
        "allow Bash(echo hi), Read (localSettings)"
    );
    assert_eq!(
        suggestion_text(&json!({"type": "addDirectories", "directories": ["/srv"]})),
        "give access to /srv"
    );
    assert_eq!(
        suggestion_text(&json!({"type": "new"})),
        r#"{"type":"new"}"#
    );
}

#[test]
fn a_turn_that_ends_takes_its_unanswered_request_with_it() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 10, ask(2, "a")),
            ev(2, 11, process(2, ProcessState::Starting)),
            ev(2, 11, process(2, ProcessState::Running)),
            ev(3, 12, process(2, ProcessState::Idle)),
        ],
    );
    let a = request(&docs, "a").unwrap();
    assert_eq!(
        a.state,
        PermissionState::Cancelled,
        "running keeps it, idle ends it"
    );
    assert_eq!(a.outcome(), "cancelled: the turn ended without an answer");
}

#[test]
fn always_allowing_remembers_all_suggestions_or_the_one_chosen() {
    let mut docs = Docs::new();
    let two = EventKind::PermissionRequest {
        seat: 2,
        request_id: "b".into(),
        tool_name: "Bash".into(),
        input: json!({"command": "touch x"}),
        description: None,
        suggestions: Some(json!([
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch x"}], "behavior": "allow"},
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
        ])),
        tool_use_id: None,
    };
    let chosen = EventKind::PermissionDecision {
        seat: 2,
        request_id: "b".into(),
        decision: Decision::AllowAlways,
        message: None,
        decided_by: Decider::Human,
        suggestion: Some(0),
        rule: None,
    };
    run(
        &mut docs,
        &[
            ev(1, 10, ask(2, "a")),
            ev(2, 20, decide(2, "a", Decision::AllowAlways, Decider::Human)),
            ev(3, 30, two),
            ev(4, 40, chosen.clone()),
        ],
    );
    let a = request(&docs, "a").unwrap();
    assert_eq!(a.state, PermissionState::Allowed);
    assert_eq!(
        a.outcome(),
        "approved, and from now on: switch to acceptEdits mode (session)"
    );
    let b = request(&docs, "b").unwrap();
    assert_eq!(
        b.outcome(),
        "approved, and from now on: allow Bash(touch x)",
        "only the chosen one"
    );
    assert_eq!(
        Doc::Permission(Box::new(b.clone())).to_value()["remembered"][0]["type"],
        "addRules"
    );
    let e = serde_json::to_value(ev(4, 40, chosen)).unwrap();
    assert_eq!(
        (e["decision"].as_str(), e["suggestion"].as_u64()),
        (Some("allow_always"), Some(0))
    );
    assert_eq!(updates_for(b, Some(5)), None, "no such suggestion");
}

#[test]
fn the_queue_is_every_seats_waiting_requests_oldest_first_each_in_one_line() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 30, ask(2, "late")),
            ev(2, 10, ask(5, "early")),
            ev(3, 20, ask(2, "answered")),
            ev(
                4,
                21,
                decide(2, "answered", Decision::Allow, Decider::Human),
            ),
        ],
    );
    let queue: Vec<&str> = crate::domain::docs::waiting(&docs)
        .iter()
        .map(|p| p.request_id.as_str())
        .collect();
    assert_eq!(queue, ["early", "late"]);
    use crate::domain::permissions::input_summary;
    assert_eq!(
        input_summary(&json!({"command": "cargo test\n  -p app"})),
        "cargo test -p app"
    );
    assert_eq!(
        input_summary(&json!({"file_path": "/x/y.rs", "content": "…"})),
        "/x/y.rs"
    );
    let long = input_summary(&json!({"command": "x".repeat(500)}));
    assert_eq!(long.chars().count(), 120);
    assert!(long.ends_with('…'));
    assert_eq!(input_summary(&json!({"a": 1})), r#"{"a":1}"#);
}
