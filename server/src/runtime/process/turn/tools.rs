//! The agent's `soulgrid` MCP server, answered in the translator: the CLI carries each
//! JSON-RPC message as a `control_request` `mcp_message` on the process's stdout (its own
//! stdout is the provenance: no port, no token) and takes the answer on stdin. A tool call
//! becomes the marker it mirrors (`domain::tools`) and goes the marker's way, so it is
//! validated, recorded and carried out as the marker is; a refusal answers `isError` with the
//! sentence the marker's error gives, and is recorded once. A call that asks the runtime for
//! something (a summon, a message, a claim, the inbox) is answered once that is carried out,
//! with what happened ([`PendingCall`]).
//!
//! The messages are few and small (initialize, the initialized notification, `tools/list`,
//! `tools/call`), answered synchronously between two lines of the same stream: their JSON
//! shapes are written here from the measured fixture rather than through an MCP library.

use app::domain::docs::Docs;
use app::domain::events::EventKind;
use app::domain::markers::Marker;
use app::domain::tools::{listed, team, to_call, tools_for, Call, Standing, Tool};
use serde_json::{json, Value};

use super::{LeadRequest, Output, Translator};
use crate::runtime::process::answer::PendingCall;
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
            let server: String = server.chars().take(60).collect();
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
            (Some("tools/call"), Some(id)) => {
                let params = &message["params"];
                let name = params["name"].as_str().unwrap_or_default();
                match self.call_tool(name, &params["arguments"], docs, out) {
                    Some((text, is_error)) => protocol::tool_result(&id, &text, is_error),
                    None => {
                        out.answer = Some(PendingCall {
                            request_id: request_id.to_string(),
                            rpc_id: id,
                        });
                        return;
                    }
                }
            }
            (Some(method), Some(id)) => match self.mcp_result(method, &message["params"], docs) {
                Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                None => {
                    let method: String = method.chars().take(60).collect();
                    self.refused_mcp(format!("the MCP method {method:?}"), out);
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND,
                    "message": format!("soulgrid has no method {method:?}")}})
                }
            },
            (None, id) => {
                self.refused_mcp("an MCP message that is not a JSON-RPC request".into(), out);
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_REQUEST,
                    "message": "not a JSON-RPC request: it has no method"}})
            }
        };
        out.replies
            .push(protocol::mcp_response(request_id, &answer));
    }

    /// The result of `method` (not a tool call), or `None` for a method soulgrid does not have.
    fn mcp_result(&mut self, method: &str, params: &Value, docs: &Docs) -> Option<Value> {
        Some(match method {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or(PROTOCOL_VERSION),
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": MCP_SERVER, "version": env!("CARGO_PKG_VERSION")},
            }),
            "ping" => json!({}),
            "tools/list" => {
                let tools: Vec<&Tool> = tools_for(self.standing(docs)).collect();
                self.listed = Some(tools.iter().map(|t| t.name).collect());
                json!({"tools": tools.into_iter().map(listed).collect::<Vec<_>>()})
            }
            _ => return None,
        })
    }

    /// Carries out the tool `name` with `args`: its answer (text, whether a refusal), or
    /// `None` when the answer waits for the request it made (the last of `out.requests`).
    pub(super) fn call_tool(
        &mut self,
        name: &str,
        args: &Value,
        docs: &Docs,
        out: &mut Output,
    ) -> Option<(String, bool)> {
        let checked = to_call(name, args, self.is_lead())
            .map_err(|r| r.to_string())
            .and_then(|c| self.still_acting(&c).map_or(Ok(c), Err));
        let call = match checked {
            Ok(call) => call,
            Err(refusal) => {
                let name: String = name.chars().take(60).collect();
                out.events.push(EventKind::MarkerError {
                    seat: Some(self.seat),
                    line: format!("tool {name}"),
                    error: refusal.clone(),
                });
                return Some((refusal, true));
            }
        };
        let seat = self.seat;
        match call {
            Call::Team => Some((team(docs), false)),
            Call::CheckMail => {
                out.requests.push(LeadRequest::CheckMail { seat });
                None
            }
            Call::ReadMail { max } => {
                out.requests.push(LeadRequest::ReadMail { seat, max });
                None
            }
            Call::Marker(marker) => {
                let (events, requests) = (out.events.len(), out.requests.len());
                self.on_marker(marker, docs, out);
                let done = &out.events[events..];
                if let Some(error) = done.iter().find_map(|e| match e {
                    EventKind::MarkerError { error, .. } => Some(error.clone()),
                    _ => None,
                }) {
                    return Some((error, true));
                }
                if out.requests.len() > requests {
                    return None;
                }
                Some((done_in_place(done), false))
            }
        }
    }

    /// Why a call can no longer act (`None`: it can): a process told to stop or sleep still
    /// writes its soul and its work state, and reads the team, nothing more.
    fn still_acting(&self, call: &Call) -> Option<String> {
        let reason = self.stopping.as_deref()?;
        let allowed = matches!(
            call,
            Call::Team | Call::Marker(Marker::State { .. } | Marker::Soul { .. })
        );
        (!allowed).then(|| {
            format!(
                "this process is stopping ({reason}): only your soul and your work state can \
                 still be written"
            )
        })
    }

    /// Where this agent stands in `docs`, for its tools.
    fn standing(&self, docs: &Docs) -> Standing {
        Standing::of(docs, self.seat, self.name.as_deref())
    }

    /// The line that tells the CLI its tools changed (`notifications/tools/list_changed`), when
    /// what the agent would be listed now differs from what it was listed last: the CLI then
    /// asks `tools/list` again. `None` before the first listing and while nothing changed.
    pub fn tools_changed(&mut self, docs: &Docs) -> Option<String> {
        let now: Vec<&'static str> = tools_for(self.standing(docs)).map(|t| t.name).collect();
        let before = self.listed.as_ref()?;
        if *before == now {
            return None;
        }
        self.listed = Some(now);
        self.notified += 1;
        Some(protocol::mcp_notification(
            &format!("soulgrid-tools-changed-{}", self.notified),
            "notifications/tools/list_changed",
        ))
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

/// The answer to a call carried out in the translator (a work state, a soul): what changed.
fn done_in_place(events: &[EventKind]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            EventKind::WorkState { state, .. } => {
                Some(format!("Your work state is now {}.", state.as_str()))
            }
            EventKind::SoulRevised { .. } => {
                Some("Your soul is rewritten; its old versions are kept.".to_string())
            }
            _ => None,
        })
        .unwrap_or_else(|| "Done.".to_string())
}
