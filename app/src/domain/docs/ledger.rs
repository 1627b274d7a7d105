//! The documents of what an identity used over its whole life: its ledger (`ledger:{identity}`: cost, tokens,
//! turns, tool calls by tool) and each Claude session it lived in (`claude-session:{id}`: when
//! it started and ended, why, and what it used). Both are counted by the reducer from
//! `agent_process` events; each remembers the last event it counted, so a replayed event counts
//! once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::{Millis, Seat};

pub const TYPE_LEDGER: &str = "ledger";
pub const TYPE_CLAUDE_SESSION: &str = "claude-session";

/// `ledger:{identity}`.
pub fn ledger_id(identity: &str) -> String {
    format!("{TYPE_LEDGER}:{identity}")
}

/// `claude-session:{session}`.
pub fn claude_session_doc_id(session: &str) -> String {
    format!("{TYPE_CLAUDE_SESSION}:{session}")
}

/// Dollars as whole micro-dollars: sums of integers are exact and survive JSON unchanged.
pub fn micro_usd(usd: f64) -> u64 {
    if usd.is_finite() && usd > 0.0 {
        (usd * 1_000_000.0).round() as u64
    } else {
        0
    }
}

/// What one identity used over its whole life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub identity_id: String,
    #[serde(default)]
    pub cost_micro_usd: u64,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub turns: u64,
    /// Messages in its thread it wrote, and the others (the human's, the lead's to it).
    #[serde(default)]
    pub messages_sent: u64,
    #[serde(default)]
    pub messages_received: u64,
    /// Tool calls begun, by tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, u64>,
    /// What the running process had cost at its last report (a process reports its total).
    #[serde(default)]
    pub process_cost_micro_usd: u64,
    /// The Claude session of the running process, once it said which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_session: Option<String>,
    /// The last event counted here: an event with this id or an older one counts no more.
    #[serde(default)]
    pub last_event_id: u64,
    /// What it spent in its last day of spending (UTC, `2026-11-27`), for budgets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_day: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub day_micro_usd: u64,
    /// What it spent in its last month of spending (UTC, `2026-11`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_month: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub month_micro_usd: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl LedgerDoc {
    pub fn new(identity: &str) -> Self {
        LedgerDoc {
            id: ledger_id(identity),
            identity_id: identity.to_string(),
            cost_micro_usd: 0,
            input_tokens: 0,
            output_tokens: 0,
            turns: 0,
            messages_sent: 0,
            messages_received: 0,
            tools: BTreeMap::new(),
            process_cost_micro_usd: 0,
            current_session: None,
            last_event_id: 0,
            spend_day: None,
            day_micro_usd: 0,
            spend_month: None,
            month_micro_usd: 0,
            extra: Map::new(),
        }
    }

    pub fn cost_usd(&self) -> f64 {
        self.cost_micro_usd as f64 / 1_000_000.0
    }

    pub fn tool_calls(&self) -> u64 {
        self.tools.values().sum()
    }
}

/// One Claude session an identity lived in. The lead resumes its session across processes:
/// one document, `processes` counting them, ended when the last one stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeSessionDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub claude_session_id: String,
    pub identity_id: String,
    pub seat: Seat,
    pub started_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    #[serde(default)]
    pub processes: u32,
    #[serde(default)]
    pub turns: u64,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cost_micro_usd: u64,
    #[serde(default)]
    pub tool_calls: u64,
    #[serde(default)]
    pub last_event_id: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClaudeSessionDoc {
    pub fn new(session: &str, identity: &str, seat: Seat, at: Millis) -> Self {
        ClaudeSessionDoc {
            id: claude_session_doc_id(session),
            claude_session_id: session.to_string(),
            identity_id: identity.to_string(),
            seat,
            started_at: at,
            ended_at: None,
            end_reason: None,
            processes: 0,
            turns: 0,
            input_tokens: 0,
            output_tokens: 0,
            cost_micro_usd: 0,
            tool_calls: 0,
            last_event_id: 0,
            extra: Map::new(),
        }
    }

    pub fn cost_usd(&self) -> f64 {
        self.cost_micro_usd as f64 / 1_000_000.0
    }
}
