//! Permission prompts: a tool call an agent asked to make (`can_use_tool`, with
//! `--permissions ui`) and what became of it. One document per request,
//! `permission:{requestId}`, written `pending` by `permission_request` and settled exactly once
//! by `permission_decision` (the human's, or the timeout's), or cancelled when the process that
//! asked is gone: nobody can answer it any more.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Millis, Seat};

pub const TYPE_PERMISSION: &str = "permission";

/// `permission:{requestId}`.
pub fn permission_id(request_id: &str) -> String {
    format!("{TYPE_PERMISSION}:{request_id}")
}

/// Where a request stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionState {
    Pending,
    Allowed,
    Denied,
    /// The asking process stopped before anyone answered.
    Cancelled,
}

impl PermissionState {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionState::Pending => "pending",
            PermissionState::Allowed => "allowed",
            PermissionState::Denied => "denied",
            PermissionState::Cancelled => "cancelled",
        }
    }
}

/// The answer given to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    /// Allow, and apply the CLI's suggestions (all, or the one chosen) so that calls like it
    /// are not asked again.
    AllowAlways,
    Deny,
}

/// Who answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decider {
    /// Someone at the console.
    Human,
    /// Nobody answered in time.
    Timeout,
    /// A rule of the agent's covered the call: nobody was asked.
    Rule,
    /// The lead (`--approvals lead-first`, its `decide_permission`).
    Lead,
    /// The server was shutting down: nobody would answer.
    Shutdown,
}

/// Who a waiting request is with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Approver {
    Lead,
    Human,
}

/// One permission request and its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub seat: Seat,
    pub request_id: String,
    pub tool_name: String,
    /// The tool's input as the agent wrote it (a command, a file and its content…).
    #[serde(default)]
    pub input: Value,
    /// The CLI's one-line summary of the call (e.g. the file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Rules the CLI suggests for not asking again (e.g. `setMode acceptEdits`), as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    pub state: PermissionState,
    /// The deny message the agent was given, or why the request was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<Decider>,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<Millis>,
    /// The suggestions applied with the answer (`allow_always`): calls like it are no longer
    /// asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remembered: Vec<Value>,
    /// The id of the event that asked: orders requests with equal timestamps.
    #[serde(default)]
    pub event_id: u64,
    /// The identity that asked (older requests: whoever held the seat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_id: Option<String>,
    /// Allowed by this rule of the agent's, without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Who it waits for (`--approvals lead-first`; none: the human, as always).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<Approver>,
    /// Why it is with the human rather than the lead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routed_why: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionDoc {
    pub fn is_pending(&self) -> bool {
        self.state == PermissionState::Pending
    }

    /// The outcome in words, for the thread.
    pub fn outcome(&self) -> String {
        let message = self.message.as_deref().filter(|m| !m.trim().is_empty());
        match (self.state, self.decided_by) {
            (PermissionState::Pending, _) if self.with == Some(Approver::Lead) => {
                "with the lead".into()
            }
            (PermissionState::Pending, _) => match &self.routed_why {
                Some(why) => format!("waiting for your answer: {why}"),
                None => "waiting for your answer".into(),
            },
            (PermissionState::Allowed, _) if !self.remembered.is_empty() => {
                let rules: Vec<String> = self.remembered.iter().map(suggestion_text).collect();
                format!("approved, and from now on: {}", rules.join("; "))
            }
            (PermissionState::Allowed, Some(Decider::Rule)) => format!(
                "allowed by its rule {}",
                self.rule.as_deref().unwrap_or("(removed since)")
            ),
            (PermissionState::Allowed, Some(Decider::Lead)) => match message {
                Some(m) => format!("approved by the lead: {m}"),
                None => "approved by the lead".into(),
            },
            (PermissionState::Allowed, _) => "approved".into(),
            (PermissionState::Denied, Some(Decider::Lead)) => match message {
                Some(m) => format!("denied by the lead: {m}"),
                None => "denied by the lead".into(),
            },
            (PermissionState::Denied, Some(Decider::Shutdown)) => {
                "denied: the server was shutting down".into()
            }
            (PermissionState::Denied, Some(Decider::Timeout)) => {
                format!(
                    "denied automatically: {}",
                    message.unwrap_or("no answer in time")
                )
            }
            (PermissionState::Denied, _) => match message {
                Some(m) => format!("denied: {m}"),
                None => "denied".into(),
            },
            (PermissionState::Cancelled, _) => {
                format!("cancelled: {}", message.unwrap_or("the agent stopped"))
            }
        }
    }
}

/// The longest input preview shown in the thread; the rest is elided.
pub const INPUT_PREVIEW_CHARS: usize = 4000;

/// A tool's input as the human reads it: a Bash command as the command, anything else as
/// indented JSON; long inputs are cut with a note of how much was left out.
pub fn input_preview(tool_name: &str, input: &Value) -> String {
    let text = match (tool_name, input["command"].as_str()) {
        ("Bash", Some(command)) => command.to_string(),
        _ => serde_json::to_string_pretty(input).unwrap_or_default(),
    };
    let total = text.chars().count();
    if total <= INPUT_PREVIEW_CHARS {
        return text;
    }
    let cut: String = text.chars().take(INPUT_PREVIEW_CHARS).collect();
    format!("{cut}\n… ({} more characters)", total - INPUT_PREVIEW_CHARS)
}

/// The longest input summary in the approval queue, in characters.
pub const SUMMARY_CHARS: usize = 120;

/// A tool's input in one line, for the queue: a Bash command, a file's path, a URL, a search
/// pattern, else the input as compact JSON; cut at [`SUMMARY_CHARS`] with an ellipsis.
pub fn input_summary(input: &Value) -> String {
    let key = [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "pattern",
        "query",
        "path",
    ]
    .iter()
    .find_map(|k| input[*k].as_str());
    let text = match key {
        Some(s) => s.to_string(),
        None => serde_json::to_string(input).unwrap_or_default(),
    };
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.chars().count() > SUMMARY_CHARS {
        true => format!(
            "{}…",
            line.chars().take(SUMMARY_CHARS - 1).collect::<String>()
        ),
        false => line,
    }
}

/// One of the CLI's `permission_suggestions` in words: what approving it for good would change.
pub fn suggestion_text(s: &Value) -> String {
    let place = s["destination"]
        .as_str()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    match s["type"].as_str() {
        Some("setMode") => format!(
            "switch to {} mode{place}",
            s["mode"].as_str().unwrap_or("another")
        ),
        Some("addRules") | Some("replaceRules") => {
            let rules: Vec<String> = s["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    let tool = r["toolName"].as_str().unwrap_or("?");
                    match r["ruleContent"].as_str() {
                        Some(c) => format!("{tool}({c})"),
                        None => tool.to_string(),
                    }
                })
                .collect();
            let behavior = s["behavior"].as_str().unwrap_or("allow");
            format!("{behavior} {}{place}", rules.join(", "))
        }
        Some("addDirectories") => {
            let dirs: Vec<&str> = s["directories"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!("give access to {}{place}", dirs.join(", "))
        }
        _ => s.to_string(),
    }
}

/// The permission updates an `allow_always` answer applies: the suggestion at `index`, or all
/// of them. `None` when there is nothing to apply (no suggestions, or no such index).
pub fn updates_for(p: &PermissionDoc, index: Option<usize>) -> Option<Vec<Value>> {
    let all = p.suggestions.as_ref()?.as_array()?;
    let chosen = match index {
        Some(i) => vec![all.get(i)?.clone()],
        None => all.clone(),
    };
    (!chosen.is_empty()).then_some(chosen)
}

/// Every suggestion of a request, in words.
pub fn suggestion_texts(p: &PermissionDoc) -> Vec<String> {
    p.suggestions
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(suggestion_text)
        .collect()
}
