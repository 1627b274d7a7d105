use super::super::docs::{identity_id, soul_id, Doc, Docs};
use super::super::status::AgentStatus;
use serde_json::json;

fn identity(v: serde_json::Value) -> super::super::docs::AgentIdentity {
    match Doc::from_value(v).unwrap() {
        Doc::Identity(d) => *d,
        other => panic!("not an identity: {other:?}"),
    }
}

#[test]
fn missing_status_defaults_to_sleeping() {
    let d = identity(
        json!({"_id": "agent-identity:0", "type": "agent-identity", "gridPosition": 0, "name": "A"}),
    );
    assert_eq!(d.status(), AgentStatus::Sleeping);
}

#[test]
fn legacy_hatching_boolean_is_read() {
    let t = identity(
        json!({"_id": "agent-identity:1", "type": "agent-identity", "gridPosition": 1, "hatching": true}),
    );
    assert_eq!(t.status(), AgentStatus::Hatching);
    let f = identity(
        json!({"_id": "agent-identity:1", "type": "agent-identity", "gridPosition": 1, "hatching": false}),
    );
    assert_eq!(f.status(), AgentStatus::Sleeping);
    let explicit = identity(
        json!({"_id": "agent-identity:1", "type": "agent-identity", "gridPosition": 1, "hatching": true, "status": "alive"}),
    );
    assert_eq!(
        explicit.status(),
        AgentStatus::Alive,
        "an explicit status wins"
    );
}

#[test]
fn the_originals_unknown_status_reads_as_sleeping() {
    let d = identity(
        json!({"_id": "agent-identity:2", "type": "agent-identity", "gridPosition": 2, "status": "unknown"}),
    );
    assert_eq!(d.status(), AgentStatus::Sleeping);
}

#[test]
fn grid_position_defaults_from_the_id() {
    let d = identity(json!({"_id": "agent-identity:6", "type": "agent-identity"}));
    assert_eq!(d.grid_position, 6);
}

#[test]
fn unknown_fields_and_unknown_types_survive_a_round_trip() {
    let v = json!({
        "_id": "agent-identity:3", "type": "agent-identity", "gridPosition": 3,
        "status": "alive", "name": "Wren", "favouriteTea": "oolong", "nested": {"a": [1, 2]}
    });
    assert_eq!(Doc::from_value(v.clone()).unwrap().to_value(), v);
    let other = json!({"_id": "omen:1", "type": "omen", "title": "x"});
    let doc = Doc::from_value(other.clone()).unwrap();
    assert!(matches!(doc, Doc::Other(_)));
    assert_eq!(doc.to_value(), other);
    assert_eq!(doc.id(), Some("omen:1"));
}

#[test]
fn documents_serialize_in_camel_case_with_their_type() {
    let mut d = super::super::docs::AgentIdentity::new(0, AgentStatus::Hatching);
    d.created_at = Some(5);
    let v = Doc::Identity(Box::new(d)).to_value();
    assert_eq!(v["type"], "agent-identity");
    assert_eq!(v["_id"], "agent-identity:0");
    assert_eq!(v["gridPosition"], 0);
    assert_eq!(v["createdAt"], 5);
    assert_eq!(v["colorName"], "Violet Heaven");
    assert_eq!(v["faceVariant"]["eyes"], "standard");
    assert_eq!(v["category"], "identity");
}

#[test]
fn a_malformed_known_document_is_an_error_not_a_panic() {
    assert!(Doc::from_value(json!({"_id": "message:1", "type": "message", "text": 5})).is_err());
    assert!(Doc::from_value(json!([1, 2])).is_err());
    let docs: Result<Docs, _> = serde_json::from_str(r#"{"a": {"type": "soul"}}"#);
    assert!(docs.is_err());
}

#[test]
fn deterministic_ids() {
    assert_eq!(identity_id(4), "agent-identity:4");
    assert_eq!(soul_id(2, 3), "soul:2:3");
}

#[test]
fn a_document_is_no_larger_than_a_message_needs() {
    // Every message is a document, hundreds of thousands of them: a variant larger than a
    // message is boxed, or every message pays for it (the identity made each one 640 bytes).
    let message = std::mem::size_of::<super::super::docs::MessageDoc>();
    assert!(
        std::mem::size_of::<Doc>() <= message + 8,
        "a Doc is {} bytes, a message {message}",
        std::mem::size_of::<Doc>()
    );
}
