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
    // A member is not offered the lead's tools.
    assert!(tools_for(false).all(|t| !t.lead_only));
    assert!(tools_for(false).any(|t| t.name == "send_message"));
    assert_eq!(tools_for(true).count(), TOOLS.len());
}

#[test]
fn a_refused_call_says_what_to_do_instead() {
    assert_eq!(
        to_marker("summon", &json!({}), false)
            .unwrap_err()
            .to_string(),
        "only the lead may use summon: ask the lead with send_message"
    );
    assert!(to_marker("teleport", &json!({}), true)
        .unwrap_err()
        .to_string()
        .contains("no tool \"teleport\""));
    let missing = to_marker("send_message", &json!({"to": "Lyra"}), false).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("send_message needs to (string, required), text (string, required)"),
        "{missing}"
    );
    let extra = to_marker("stage_done", &json!({"now": true}), false).unwrap_err();
    assert!(
        extra
            .to_string()
            .contains("\"now\" is not one of its arguments"),
        "{extra}"
    );
    let typed = to_marker("summon", &json!({"count": "many"}), true).unwrap_err();
    assert!(
        typed
            .to_string()
            .starts_with("summon needs count (integer)"),
        "{typed}"
    );
    assert_eq!(to_marker("team", &Value::Null, false), Ok(None));
}

/// Arguments for a tool's parameters, of their types.
fn args_for(t: &'static Tool) -> impl Strategy<Value = Value> {
    let fields: Vec<BoxedStrategy<(String, Option<Value>)>> = t
        .params
        .iter()
        .map(|(name, kind, _, needed)| {
            let value: BoxedStrategy<Value> = match *kind {
                "integer" => (0u8..9).prop_map(|n| json!(n)).boxed(),
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
        let Some(action) = t.action else { return Ok(()) };
        let mut marker = args.clone();
        marker["action"] = json!(action);
        let by_marker = parse_line(&format!("[ACTION] {marker}")).unwrap().ok();
        let by_tool = to_marker(t.name, &args, true).ok().flatten();
        prop_assert_eq!(by_tool, by_marker);
    }
}
