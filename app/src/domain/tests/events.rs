//! An event as the log writes it (one flat JSON object, its `type` among its fields) and reads
//! it back (`events/read.rs`).

use serde_json::json;

use super::super::docs::{hall, souls_of, thread_of};
use super::super::events::{Event, EventKind};
use super::super::imported::{ImportedAgent, Lived};
use super::*;

fn read(value: serde_json::Value) -> Result<Event, serde_json::Error> {
    serde_json::from_value(value)
}

#[test]
fn an_event_is_written_as_one_flat_object_and_read_back_as_itself() {
    let event = ev(
        3,
        5,
        EventKind::UserMessage {
            message_id: "m1".into(),
            speaker_name: "Human".into(),
            seat: 4,
            text: "hello".into(),
            target_agent: None,
        },
    );
    let text = serde_json::to_string(&event).unwrap();
    assert_eq!(
        text,
        r#"{"id":3,"ts":5,"sessionId":"session-1","type":"user_message","messageId":"m1","speakerName":"Human","seat":4,"text":"hello"}"#
    );
    assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), event);
    // The fields in any order, and ones this version does not know, read the same.
    let shuffled = read(json!({
        "text": "hello", "type": "user_message", "seat": 4, "sessionId": "session-1", "id": 3,
        "speakerName": "Human", "ts": 5, "messageId": "m1", "mood": "cheerful"
    }));
    assert_eq!(shuffled.unwrap(), event);
}

#[test]
fn an_imported_agent_is_read_back_with_everything_it_lived() {
    let docs = {
        let mut docs = Docs::new();
        run(
            &mut docs,
            &[
                ev(1, 0, summon_ids(&[(0, "lyra-id")])),
                ev(2, 1, register(0, "Lyra", "I chose Lyra.")),
                ev(
                    3,
                    2,
                    EventKind::AgentKilled {
                        seat: 0,
                        reason: None,
                    },
                ),
            ],
        );
        docs
    };
    let identity = hall(&docs).next().unwrap().clone();
    let imported = ImportedAgent {
        name: "Lyra".into(),
        inbox: "lyra".into(),
        from_team: Some("elsewhere".into()),
        lived: Lived {
            souls: souls_of(&docs, &identity).into_iter().cloned().collect(),
            messages: thread_of(&docs, &identity).into_iter().cloned().collect(),
            ..Lived::default()
        },
        identity,
    };
    assert_eq!(imported.lived.souls.len(), 1);
    let event = ev(4, 3, EventKind::AgentImported(Box::new(imported)));
    let text = serde_json::to_string(&event).unwrap();
    assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), event);

    let mut without_inbox = serde_json::to_value(&event).unwrap();
    without_inbox.as_object_mut().unwrap().remove("inbox");
    let error = read(without_inbox).unwrap_err().to_string();
    assert!(error.contains("missing field `inbox`"), "{error}");
}

#[test]
fn an_unknown_type_is_read_whatever_its_fields_and_a_known_one_must_hold_together() {
    let unknown = read(json!({
        "id": 2, "ts": 1, "sessionId": "s", "type": "agent_teleported", "to": [1, 2]
    }));
    assert_eq!(unknown.unwrap().kind, EventKind::Unknown);

    let missing =
        read(json!({"id": 2, "ts": 1, "sessionId": "s", "type": "soul_revised", "seat": 1}));
    let error = missing.unwrap_err().to_string();
    assert!(error.contains("missing field `text`"), "{error}");

    let malformed = read(json!({
        "id": 2, "ts": 1, "sessionId": "s", "type": "soul_revised", "seat": "one", "text": "t"
    }));
    assert!(malformed.is_err());

    for (without, value) in [
        (
            "id",
            json!({"ts": 1, "sessionId": "s", "type": "session_end"}),
        ),
        (
            "ts",
            json!({"id": 1, "sessionId": "s", "type": "session_end"}),
        ),
        (
            "sessionId",
            json!({"id": 1, "ts": 1, "type": "session_end"}),
        ),
        ("type", json!({"id": 1, "ts": 1, "sessionId": "s"})),
    ] {
        let error = read(value).unwrap_err().to_string();
        assert!(
            error.contains(&format!("missing field `{without}`")),
            "{error}"
        );
    }
    assert!(serde_json::from_str::<Event>("[1, 2]").is_err());
}
