//! An external agent's answer to a turn, translated as a Claude process's output is: its
//! words (`say`) shown as they are (an external agent speaks in typed actions, so nothing in
//! its words is read as a marker), its name (`register`) under the newborn's rules, each tool
//! action through the same call as the MCP tool of that name (validated, recorded and carried
//! out the same way), and the turn's end as a `result`.

use app::domain::docs::Docs;
use app::domain::events::EventKind;
use app::domain::markers::Marker;
use app::domain::tool_lines::ToolLine;
use serde_json::Value;

use super::{Output, Translator};
use crate::runtime::process::answer::PendingCall;
use crate::runtime::process::protocol::{CliLine, TurnResult};

/// What an action got: answered now (the text, whether a refusal), or later.
pub type Answered = Option<(String, bool)>;

impl Translator {
    /// `say {text}`: the agent's words, shown in its thread (held, as a newborn's are, until
    /// it has a name).
    pub fn said(&mut self, text: &str) -> Output {
        let mut out = Output::default();
        let text = text.trim();
        if text.is_empty() {
            return out;
        }
        if !self.turn_text.is_empty() {
            self.turn_text.push_str("\n\n");
        }
        self.turn_text.push_str(text);
        self.pending.push(text.to_string());
        if !self.summoning {
            self.flush(&mut out);
        }
        out
    }

    /// `register {name, soul?}`: a newcomer's name, by the rules every newborn's is chosen by
    /// (a name refused is said, and asked again once).
    pub fn register(&mut self, name: String, soul: Option<String>, docs: &Docs) -> Output {
        let mut out = Output::default();
        let marker = Marker::Register {
            name,
            color_name: None,
            soul,
            grid_position: None,
        };
        self.on_marker(marker, docs, &mut out);
        if !self.summoning {
            self.flush(&mut out);
        }
        out
    }

    /// A tool action: answered now, or (`None`) once the request it made is carried out, when
    /// its answer comes as the `mcp_response` of `request_id`.
    pub fn act(
        &mut self,
        tool: &str,
        args: &Value,
        request_id: &str,
        docs: &Docs,
    ) -> (Output, Answered) {
        let mut out = Output::default();
        let answered = self.call_tool(tool, args, docs, &mut out);
        if answered.is_none() {
            out.answer = Some(PendingCall {
                request_id: request_id.to_string(),
                rpc_id: Value::from(0),
            });
        }
        (out, answered)
    }

    /// A tool action and what came of it, as a line of the agent's thread (as a Claude agent's
    /// tool calls are).
    pub fn tool_line(&self, tool: &str, args: &Value, output: &str, is_error: bool) -> EventKind {
        EventKind::ToolUsed {
            message_id: crate::store::new_message_id(),
            seat: self.seat,
            speaker_name: self.speaker(),
            line: ToolLine::new(tool, args, output, is_error),
        }
    }

    /// The turn's end, as a `result` ends a Claude turn; `why`: the seat's reason when it
    /// did not answer (a recorded wait).
    pub fn turn_over(&mut self, why: Option<String>, docs: &Docs) -> Output {
        let result = CliLine::Result(TurnResult {
            subtype: Some("success".into()),
            is_error: false,
            session_id: None,
            total_cost_usd: None,
            usage: None,
            num_turns: None,
            result: None,
        });
        let mut out = self.on_line(&result, docs);
        // No MCP client to tell its tools changed.
        out.replies.clear();
        if let Some(why) = why {
            for e in &mut out.events {
                if let EventKind::AgentProcess { reason, .. } = e {
                    *reason = Some(why.clone());
                }
            }
        }
        out
    }
}
