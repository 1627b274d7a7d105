//! The Claude Code CLI's stream-json protocol (`-p --input-format stream-json
//! --output-format stream-json --verbose`), as recorded from the real CLI 2.1.330.
//!
//! Reading is lenient: the CLI adds fields between versions, so every struct ignores what it
//! does not need and unknown line types parse as [`CliLine::Other`].

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One line the CLI writes on stdout.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CliLine {
    /// `system/init` starts every turn and carries the session id; other subtypes
    /// (`status`, `task_*`, `permission_denied`, …) are informational.
    System {
        subtype: String,
        #[serde(default)]
        session_id: Option<String>,
    },
    /// One content block of the model's answer (a text and a tool_use of the same API message
    /// arrive as two lines sharing `message.id`).
    Assistant {
        message: AssistantMessage,
        #[serde(default)]
        parent_tool_use_id: Option<String>,
        #[serde(default)]
        session_id: Option<String>,
    },
    /// Tool results going back to the model, and the CLI's own notes in the conversation
    /// (`[Request interrupted by user]`).
    User {
        #[serde(default)]
        message: Option<Value>,
        #[serde(default)]
        parent_tool_use_id: Option<String>,
        /// With `--replay-user-messages`, the CLI echoes each user message it takes, with the
        /// `uuid` we gave it, as the turn that consumes it starts.
        #[serde(default)]
        uuid: Option<String>,
        #[serde(default, rename = "isReplay")]
        is_replay: bool,
    },
    /// Exactly one ends each turn.
    Result(TurnResult),
    /// The CLI asks the host something (`can_use_tool` permission prompts).
    ControlRequest {
        request_id: String,
        request: ControlRequest,
    },
    /// The CLI's answer to a control request of ours (`initialize`, `interrupt`).
    ControlResponse { response: Value },
    /// `--include-partial-messages` deltas.
    StreamEvent {},
    #[serde(other)]
    Other,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct AssistantMessage {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// The tokens of context the turn used.
    pub fn context_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TurnResult {
    #[serde(default)]
    pub subtype: Option<String>,
    #[serde(default)]
    pub is_error: bool,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub num_turns: Option<u32>,
    #[serde(default)]
    pub result: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    CanUseTool {
        tool_name: String,
        #[serde(default)]
        input: Value,
        #[serde(default)]
        description: Option<String>,
        #[serde(default)]
        permission_suggestions: Option<Value>,
        #[serde(default)]
        tool_use_id: Option<String>,
    },
    /// A JSON-RPC message for a host-resident MCP server the host named in `initialize`
    /// (`sdkMcpServers`): answered with [`mcp_response`].
    McpMessage {
        server_name: String,
        #[serde(default)]
        message: Value,
    },
    #[serde(other)]
    Other,
}

/// Parses one stdout line.
pub fn parse_line(line: &str) -> Result<CliLine, serde_json::Error> {
    serde_json::from_str(line)
}

/// Longest user message line we write on the CLI's stdin; a longer message goes by file
/// (see `runtime::outgoing`). Measured with the pinned CLI 2.1.330 and the fake Messages API
/// (2026-11-22): stdin lines of 150 KB, 300 KB and 1 MB (ASCII, and 200 KB of escaped
/// multi-byte text with newlines) reached the model whole in one request; 5 MB ended the turn
/// with "Prompt is too long" (the CLI's own context limit). Half the largest line seen whole.
pub const MAX_STDIN_LINE: usize = 512 * 1024;

/// The stdin line that gives the agent a user message, with the id the CLI echoes back when
/// it takes it (`--replay-user-messages`).
pub fn user_message(text: &str, uuid: &str) -> String {
    json!({"type": "user", "message": {"role": "user", "content": text}, "uuid": uuid}).to_string()
}

/// Allows a tool call asked for with `can_use_tool`.
pub fn allow(request_id: &str, input: &Value) -> String {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
        "response": {"behavior": "allow", "updatedInput": input}}})
    .to_string()
}

/// Allows a tool call and applies permission updates (the request's `permission_suggestions`),
/// so that calls like it are not asked again.
pub fn allow_always(request_id: &str, input: &Value, updates: &Value) -> String {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
        "response": {"behavior": "allow", "updatedInput": input, "updatedPermissions": updates}}})
    .to_string()
}

/// Denies a tool call, with the message the model sees.
pub fn deny(request_id: &str, message: &str) -> String {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
        "response": {"behavior": "deny", "message": message}}})
    .to_string()
}

/// Answers a control request we do not support, so the CLI does not wait for us.
pub fn unsupported(request_id: &str, what: &str) -> String {
    json!({"type": "control_response", "response": {"subtype": "error", "request_id": request_id,
        "error": format!("soulgrid does not support {what}")}})
    .to_string()
}

/// The name of the MCP server every agent process has in the host: its tools are
/// `mcp__soulgrid__<name>`.
pub const MCP_SERVER: &str = "soulgrid";

/// Starts the control protocol, sent before the first message as the SDKs do: it names the
/// host's MCP server (`sdkMcpServers`), which the CLI then opens over `mcp_message` requests
/// (measured with 2.1.330: `fixtures/claude-cli-2.1.330/mcp-tools.jsonl`).
pub fn initialize(request_id: &str) -> String {
    json!({"type": "control_request", "request_id": request_id,
        "request": {"subtype": "initialize", "sdkMcpServers": [MCP_SERVER]}})
    .to_string()
}

/// Answers an `mcp_message` control request with the JSON-RPC message `message`.
pub fn mcp_response(request_id: &str, message: &Value) -> String {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
        "response": {"mcp_response": message}}})
    .to_string()
}

/// A message of our own MCP server to the CLI (a notification such as
/// `notifications/tools/list_changed`): a `control_request` `mcp_message` the other way, which
/// the CLI acknowledges with an empty success (measured: `mcp-list-changed.jsonl`).
pub fn mcp_notification(request_id: &str, method: &str) -> String {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "mcp_message",
        "server_name": MCP_SERVER, "message": {"jsonrpc": "2.0", "method": method}}})
    .to_string()
}

/// A tool call's result (`tools/call`, JSON-RPC id `rpc_id`): one text, an error or not.
pub fn tool_result(rpc_id: &Value, text: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": rpc_id,
        "result": {"content": [{"type": "text", "text": text}], "isError": is_error}})
}

/// The CLI's note in the conversation when a turn was interrupted.
pub const INTERRUPTED_NOTE: &str = "[Request interrupted by user";

/// True when a `user` line is the CLI's note that the turn was interrupted.
pub fn is_interrupt_note(message: &Value) -> bool {
    match &message["content"] {
        Value::String(s) => s.starts_with(INTERRUPTED_NOTE),
        Value::Array(parts) => parts.iter().any(|p| {
            p["text"]
                .as_str()
                .is_some_and(|t| t.starts_with(INTERRUPTED_NOTE))
        }),
        _ => false,
    }
}

/// Asks the CLI to stop the current turn.
pub fn interrupt(request_id: &str) -> String {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "interrupt"}})
        .to_string()
}
