//! Every tool call an agent makes (Read, Edit, Bash, … and Soulgrid's own) as a line of its
//! thread: the call is kept when the model makes it, and recorded with what came of it when
//! the CLI hands the result back to the model (`domain::tool_lines`).

use app::domain::events::EventKind;
use app::domain::tool_lines::ToolLine;
use serde_json::Value;

use super::{Output, Translator};

/// How many calls may wait for their results (a model calls a few at once; more is a stream
/// that lost its results, and the oldest are let go).
const IN_FLIGHT: usize = 64;

impl Translator {
    /// The model called a tool: kept until its result comes.
    pub(super) fn tool_started(&mut self, id: &str, name: &str, input: &Value) {
        if self.tools_in_flight.len() >= IN_FLIGHT {
            self.tools_in_flight.remove(0);
        }
        self.tools_in_flight
            .push((id.to_string(), name.to_string(), input.clone()));
    }

    /// A `user` line of tool results: each answered call becomes a `tool_used` event.
    pub(super) fn tool_results(&mut self, message: &Value, out: &mut Output) {
        let Some(parts) = message["content"].as_array() else {
            return;
        };
        for part in parts.iter().filter(|p| p["type"] == "tool_result") {
            let id = part["tool_use_id"].as_str().unwrap_or_default();
            let Some(at) = self.tools_in_flight.iter().position(|(i, ..)| i == id) else {
                continue;
            };
            let (_, name, input) = self.tools_in_flight.remove(at);
            let output = match &part["content"] {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let is_error = part["is_error"] == true;
            out.events.push(EventKind::ToolUsed {
                message_id: crate::store::new_message_id(),
                seat: self.seat,
                speaker_name: self.speaker(),
                line: ToolLine::new(&name, &input, &output, is_error),
            });
        }
    }
}
