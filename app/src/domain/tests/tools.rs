//! Soulgrid's tools: every one listed with a schema a model can follow, and a call is the marker
//! it mirrors (one rule, two syntaxes).

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::domain::markers::parse_line;
use crate::domain::tools::*;

#[test]
fn every_tool_has_an_object_schema_with_described_properties() {
    for t in TOOLS {
        let l = listed(t);
        assert_eq!(l["name"], t.name);
        assert!(l["description"].as_str().unwrap().len() > 20, "{}", t.name);
        let schema = &l["inputSchema"];
        assert_eq!(schema["type"], "object");
        for (name, ..) in t.params {
            assert!(
                schema["properties"][name]["description"].is_string(),
                "{}.{name}",
                t.name
            );
        }
    }
    // A member is not offered the lead's tools; a stage's and a quest's come with them.
    let member = Standing::default();
    assert!(tools_for(member).all(|t| !t.lead_only));
    assert!(tools_for(member).any(|t| t.name == "send_message"));
    assert!(!tools_for(member).any(|t| t.name == "post_finding"));
    let in_stage = Standing {
        in_stage: true,
        quest_running: true,
        ..member
    };
    assert!(tools_for(in_stage).any(|t| t.name == "post_finding"));
    assert!(!tools_for(in_stage).any(|t| t.name == "report"));
    let lead = Standing {
        lead: true,
        ..member
    };
    assert!(!tools_for(lead).any(|t| t.name == "quest_plan"));
    let everything = Standing {
        lead: true,
        in_stage: true,
        quest_running: true,
    };
    assert_eq!(tools_for(everything).count(), TOOLS.len());
}

#[test]
fn a_refused_call_says_what_to_do_instead() {
    assert_eq!(
        to_call("summon", &json!({}), false)
            .unwrap_err()
            .to_string(),
        "only the lead may use summon: ask the lead with send_message"
    );
    assert!(to_call("teleport", &json!({}), true)
        .unwrap_err()
        .to_string()
        .contains("no tool \"teleport\""));
    let missing = to_call("send_message", &json!({"to": "Lyra"}), false).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("send_message needs to (string, required), text (string, required)"),
        "{missing}"
    );
    let extra = to_call("stage_done", &json!({"now": true}), false).unwrap_err();
    assert!(
        extra
            .to_string()
            .contains("\"now\" is not one of its arguments"),
        "{extra}"
    );
    let typed = to_call("summon", &json!({"seats": "many"}), true).unwrap_err();
    assert!(
        typed.to_string().starts_with("summon needs seats (array)"),
        "{typed}"
    );
    assert_eq!(to_call("team", &Value::Null, false), Ok(Call::Team));
    assert_eq!(
        to_call("read_mail", &json!({}), false),
        Ok(Call::ReadMail { max: 10 })
    );
    let zero = to_call("read_mail", &json!({"max": 0}), false).unwrap_err();
    assert!(zero.to_string().contains("a whole number from 1"), "{zero}");
    // Over a stdin line: refused before anything reads it, with what to do instead.
    let huge = "x".repeat(MAX_ARGUMENT_BYTES);
    let too_large = to_call("send_message", &json!({"to": "Lyra", "text": huge}), false)
        .unwrap_err()
        .to_string();
    assert!(
        too_large.contains("more than a message may carry")
            && too_large.contains("write the long part into a file"),
        "{too_large}"
    );
}

#[test]
fn seats_are_numbered_as_team_numbers_them() {
    assert_eq!(seat_from_number(1), Ok(0));
    assert_eq!(seat_from_number(9), Ok(8));
    assert_eq!(seat_number(8), 9);
    assert!(seat_from_number(5).unwrap_err().contains("the lead's"));
    assert!(seat_from_number(0).unwrap_err().contains("no seat 0"));
    assert!(seat_from_number(10).unwrap_err().contains("no seat 10"));
}

/// Arguments for a tool's parameters, of their types.
fn args_for(t: &'static Tool) -> impl Strategy<Value = Value> {
    let fields: Vec<BoxedStrategy<(String, Option<Value>)>> = t
        .params
        .iter()
        .map(|(name, kind, _, needed)| {
            let value: BoxedStrategy<Value> = match *kind {
                "integer" => (0u8..11).prop_map(|n| json!(n)).boxed(),
                "boolean" => any::<bool>().prop_map(|b| json!(b)).boxed(),
                "array" if t.name == "quest_plan" => {
                    prop::collection::vec(prop::collection::vec("[A-Z][a-z]{1,6}", 1..3), 1..4)
                        .prop_map(|s| {
                            json!(s
                                .into_iter()
                                .map(|a| json!({"agents": a}))
                                .collect::<Vec<_>>())
                        })
                        .boxed()
                }
                "array" if t.name == "summon" => prop::collection::vec(0u8..11, 0..4)
                    .prop_map(|v| json!(v))
                    .boxed(),
                "array" => prop::collection::vec("[a-z]{1,8}", 0..3)
                    .prop_map(|v| json!(v))
                    .boxed(),
                _ => "[ -~]{0,40}".prop_map(|s| json!(s)).boxed(),
            };
            let name = name.to_string();
            match needed {
                true => value.prop_map(move |v| (name.clone(), Some(v))).boxed(),
                false => prop::option::of(value)
                    .prop_map(move |v| (name.clone(), v))
                    .boxed(),
            }
        })
        .collect();
    fields.prop_map(|fields| {
        Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| Some((k, v?)))
                .collect(),
        )
    })
}

proptest! {
    /// A tool call and the marker it mirrors are the same request: the same marker, or both
    /// refused.
    #[test]
    fn a_tool_call_is_the_marker_it_mirrors(
        (t, args) in (0..TOOLS.len()).prop_flat_map(|i| (Just(&TOOLS[i]), args_for(&TOOLS[i])))
    ) {
        let Some(action) = t.action() else { return Ok(()) };
        let mut marker = args.clone();
        marker["action"] = json!(action);
        let by_marker = parse_line(&format!("[ACTION] {marker}")).unwrap().ok();
        let by_tool = match to_call(t.name, &args, true) {
            Ok(Call::Marker(m)) => Some(m),
            _ => None,
        };
        prop_assert_eq!(by_tool, by_marker);
    }
}
