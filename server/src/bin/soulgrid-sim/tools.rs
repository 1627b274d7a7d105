//! The simulated agent calls Soulgrid's tools as the real CLI does: when the host named its MCP
//! server in `initialize` (`sdkMcpServers`), a call is an `assistant` `tool_use` block for
//! `mcp__soulgrid__<name>`, then a `control_request` `mcp_message` `tools/call` that waits for
//! the host's `mcp_response`, then the `user` `tool_result` line (shapes as recorded from the
//! real CLI in `fixtures/claude-cli-2.1.330/mcp-tools.jsonl`). Without it, a marker.

use serde_json::{json, Value};

use super::{Sim, Waited};

impl Sim {
    /// Calls the tool `name` with `args` and gives its answer's text (`Err`: an error result);
    /// with no MCP server from the host, writes the marker `action` instead and gives `Ok("")`.
    /// An interrupt meanwhile cuts the turn ([`Sim::cut`]).
    pub(crate) fn use_tool(
        &mut self,
        name: &str,
        action: &str,
        args: Value,
    ) -> Result<String, String> {
        if !self.mcp {
            let mut marker = args;
            marker["action"] = json!(action);
            self.marker_lines.push(format!("[ACTION] {marker}"));
            return Ok(String::new());
        }
        self.calls += 1;
        let (session, n) = (self.session_id.clone(), self.calls);
        let tool_use = format!("toolu_sim_mcp_{n}");
        let request = format!("sim-mcp-{}-{n}", crate::files::instance());
        self.emit(json!({"type": "assistant", "message": {"id": format!("msg_sim_mcp_{n}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use, "name": format!("mcp__soulgrid__{name}"), "input": args}]},
            "parent_tool_use_id": null, "session_id": session}));
        self.emit(json!({"type": "control_request", "request_id": request, "request": {"subtype": "mcp_message",
            "server_name": "soulgrid", "message": {"method": "tools/call", "params": {"name": name, "arguments": args,
                "_meta": {"claudecode/toolUseId": tool_use}}, "jsonrpc": "2.0", "id": n}}}));
        let answer = match self.wait_for(|v| {
            v["type"] == "control_response" && v["response"]["request_id"] == request.as_str()
        }) {
            Waited::Got(v) => v,
            Waited::Interrupted => {
                self.cut = true;
                return Err("interrupted".into());
            }
        };
        let result = &answer["response"]["response"]["mcp_response"]["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let is_error = result["isError"] == true || result.is_null();
        self.emit(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": tool_use, "content": [{"type": "text", "text": text}], "is_error": is_error}]},
            "parent_tool_use_id": null, "session_id": session}));
        match is_error {
            true => Err(text),
            false => Ok(text),
        }
    }

    /// The host's `initialize`: whether it serves `soulgrid` tools.
    pub(crate) fn initialized(&mut self, request: &Value) {
        self.mcp = request["sdkMcpServers"]
            .as_array()
            .is_some_and(|s| s.iter().any(|n| n == "soulgrid"));
    }
}
