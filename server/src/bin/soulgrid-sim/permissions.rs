//! The simulated agent's tool calls that ask first (with `--permission-prompt-tool stdio`, as
//! the real CLI does): `SIM_TOOL` one Bash call (`SIM_TOOL_RM`: `rm -rf build`, a call the
//! human keeps), `SIM_TOOLS:N` N calls at once, each asked, all answers awaited.

use serde_json::json;

use super::{Sim, Waited};

impl Sim {
    /// Asks for `n` Bash calls at once and waits for every answer; how many were allowed.
    pub(super) fn ask_many(&mut self, n: usize) -> usize {
        let ids: Vec<String> = (0..n)
            .map(|i| format!("sim-perm-{}-{}-{i}", crate::files::instance(), self.turns))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            let input = json!({"command": format!("echo {i}"), "description": "One of many"});
            self.emit(json!({"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool",
                "tool_name": "Bash", "display_name": "Bash", "input": input, "description": "One of many",
                "tool_use_id": format!("toolu_sim_{i}")}}));
        }
        let mut open: std::collections::HashSet<String> = ids.into_iter().collect();
        let mut allowed = 0;
        while !open.is_empty() {
            let got = self.wait_for(|v| {
                v["type"] == "control_response"
                    && v["response"]["request_id"]
                        .as_str()
                        .is_some_and(|id| id.starts_with("sim-perm-"))
            });
            let Waited::Got(v) = got else {
                return allowed;
            };
            if let Some(id) = v["response"]["request_id"].as_str() {
                if open.remove(id) && v["response"]["response"]["behavior"] == "allow" {
                    allowed += 1;
                }
            }
        }
        allowed
    }

    /// Calls Bash (`echo hi`), asking first when permissions are asked on stdio. `None` when the
    /// turn was interrupted meanwhile; else the output or why it was refused.
    pub(super) fn tool_call(&mut self, command: &str) -> Option<Result<String, String>> {
        let session = self.session_id.clone();
        let input = json!({"command": command, "description": "Say hi"});
        self.emit(
            json!({"type": "assistant", "message": {"id": "msg_sim_tool", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_sim", "name": "Bash", "input": input}]},
            "parent_tool_use_id": null, "session_id": session}),
        );
        let mut outcome = Ok("hi".to_string());
        let rule = format!("Bash({command})");
        if self.ask_permission && !self.allowed.contains(&rule) {
            let id = format!("sim-perm-{}-{}", crate::files::instance(), self.turns);
            self.emit(json!({"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool",
                "tool_name": "Bash", "display_name": "Bash", "input": input, "description": "Say hi",
                "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo hi"}],
                    "behavior": "allow", "destination": "localSettings"}],
                "tool_use_id": "toolu_sim"}}));
            let answer = match self.wait_for(|v| {
                v["type"] == "control_response" && v["response"]["request_id"] == id.as_str()
            }) {
                Waited::Got(v) => v,
                Waited::Interrupted => return None,
            };
            let answer = &answer["response"]["response"];
            if answer["behavior"] != "allow" {
                outcome = Err(answer["message"].as_str().unwrap_or("denied").to_string());
            }
            for update in answer["updatedPermissions"]
                .as_array()
                .into_iter()
                .flatten()
            {
                for rule in update["rules"].as_array().into_iter().flatten() {
                    self.allowed.push(format!(
                        "{}({})",
                        rule["toolName"].as_str().unwrap_or(""),
                        rule["ruleContent"].as_str().unwrap_or("")
                    ));
                }
            }
        }
        let (content, is_error) = match &outcome {
            Ok(out) => (out.clone(), false),
            Err(why) => (why.clone(), true),
        };
        self.emit(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_sim", "content": content, "is_error": is_error}]}, "parent_tool_use_id": null,
            "session_id": session}));
        Some(outcome)
    }
}
