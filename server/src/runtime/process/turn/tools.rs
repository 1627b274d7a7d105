//! The agent's `soulgrid` MCP server, answered in the translator: the CLI carries each
//! JSON-RPC message as a `control_request` `mcp_message` on the process's stdout (its own
//! stdout is the provenance: no port, no token) and takes the answer on stdin. A tool call
//! becomes the marker it mirrors (`domain::tools`) and goes the marker's way, so it is
//! validated, recorded and carried out as the marker is; a refusal answers `isError` with the
//! sentence the marker's error gives, and is recorded once.
//!
//! The messages are few and small (initialize, the initialized notification, `tools/list`,
//! `tools/call`), answered synchronously between two lines of the same stream: their JSON
//! shapes are written here from the measured fixture rather than through an MCP library.

use app::domain::docs::Docs;
use app::domain::events::EventKind;
use app::domain::tools::{listed, team, to_marker, tools_for};
use serde_json::{json, Value};

use super::{Output, Translator};
use crate::runtime::process::protocol::{self, MCP_SERVER};

/// The MCP protocol version answered when the CLI names none (the one 2.1.330 asks for).
const PROTOCOL_VERSION: &str = "2025-11-25";

/// A JSON-RPC error: the request is not a request.
const INVALID_REQUEST: i64 = -32600;
/// A JSON-RPC error: no such method.
const METHOD_NOT_FOUND: i64 = -32601;

impl Translator {
    /// Answers one `mcp_message` (`request_id`) for the server `server`.
    pub(super) fn on_mcp(
        &mut self,
        request_id: &str,
        server: &str,
        message: &Value,
        docs: &Docs,
        out: &mut Output,
    ) {
        if server != MCP_SERVER {
            self.refused_mcp(
                format!("an MCP server named {server:?}, which soulgrid does not have"),
                out,
            );
            let what = format!("an MCP server named {server:?}");
            return out.replies.push(protocol::unsupported(request_id, &what));
        }
        let id = message.get("id").cloned().filter(|id| !id.is_null());
        let method = message.get("method").and_then(Value::as_str);
        let answer = match (method, id) {
            // A notification (`notifications/initialized`): acknowledged as the SDKs do.
            (Some(_), None) => json!({"jsonrpc": "2.0", "result": {}, "id": 0}),
            (Some(method), Some(id)) => {
                match self.mcp_result(method, &message["params"], docs, out) {
                    Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    None => {
                        self.refused_mcp(format!("the MCP method {method:?}"), out);
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND,
                        "message": format!("soulgrid has no method {method:?}")}})
                    }
                }
            }
            (None, id) => {
                self.refused_mcp("an MCP message that is not a JSON-RPC request".into(), out);
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_REQUEST,
                    "message": "not a JSON-RPC request: it has no method"}})
            }
        };
        out.replies
            .push(protocol::mcp_response(request_id, &answer));
    }

    /// The result of `method`, or `None` for a method soulgrid does not have.
    fn mcp_result(
        &mut self,
        method: &str,
        params: &Value,
        docs: &Docs,
        out: &mut Output,
    ) -> Option<Value> {
        Some(match method {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or(PROTOCOL_VERSION),
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": MCP_SERVER, "version": env!("CARGO_PKG_VERSION")},
            }),
            "ping" => json!({}),
            "tools/list" => {
                json!({"tools": tools_for(self.is_lead()).map(listed).collect::<Vec<_>>()})
            }
            "tools/call" => {
                let name = params["name"].as_str().unwrap_or_default();
                self.call_tool(name, &params["arguments"], docs, out)
            }
            _ => return None,
        })
    }

    /// Carries out the tool `name` with `args`: its marker, the way a marker goes.
    fn call_tool(&mut self, name: &str, args: &Value, docs: &Docs, out: &mut Output) -> Value {
        let said = |text: String, is_error: bool| json!({"content": [{"type": "text", "text": text}], "isError": is_error});
        let checked = to_marker(name, args, self.is_lead())
            .map_err(|r| r.to_string())
            .and_then(|m| self.nobody_called(name, args, docs).map_or(Ok(m), Err));
        match checked {
            Err(refusal) => {
                out.events.push(EventKind::MarkerError {
                    seat: Some(self.seat),
                    line: format!("tool {name}"),
                    error: refusal.clone(),
                });
                said(refusal, true)
            }
            Ok(None) => said(team(docs), false),
            Ok(Some(marker)) => {
                let before = out.events.len();
                self.on_marker(marker, docs, out);
                let refused = out.events[before..].iter().find_map(|e| match e {
                    EventKind::MarkerError { error, .. } => Some(error.clone()),
                    _ => None,
                });
                match refused {
                    Some(error) => said(error, true),
                    None => said(
                        format!("Done: {name} is carried out; the console shows it."),
                        false,
                    ),
                }
            }
        }
    }

    /// Why the agent a call names is nobody it can name there (`None`: it is someone): a
    /// message goes to a seated agent, the lead or the human; dismiss and retire take a seated
    /// agent; recall one in the Hall.
    fn nobody_called(&self, tool: &str, args: &Value, docs: &Docs) -> Option<String> {
        use app::domain::docs::{hall, seat_named};
        let field = match tool {
            "send_message" => "to",
            "dismiss" | "retire" | "recall" => "name",
            _ => return None,
        };
        let name = args[field].as_str()?.trim();
        let same = |n: &str| n.eq_ignore_ascii_case(name);
        let known = match tool {
            "recall" => hall(docs).any(|i| i.name.as_deref().is_some_and(same)),
            "send_message" => {
                seat_named(docs, name).is_some() || same(&self.lead_name) || same(&self.human_name)
            }
            _ => seat_named(docs, name).is_some(),
        };
        let place = match tool {
            "recall" => "in the Hall",
            _ => "on the team",
        };
        (!known).then(|| format!("nobody {place} is called {name:?}: call team for the names"))
    }

    /// Records an MCP message soulgrid cannot answer (the process keeps running).
    fn refused_mcp(&self, what: String, out: &mut Output) {
        out.events.push(EventKind::MarkerError {
            seat: Some(self.seat),
            line: "mcp_message".into(),
            error: format!("the agent's CLI asked for {what}"),
        });
    }
}
