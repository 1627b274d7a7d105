//! The answer a tool call waits for while the runtime carries out what it asked (a summon,
//! a message, a claim): the CLI holds the call open until its `mcp_response` comes on stdin,
//! so the result can say what happened (the seats filled, the job's id, whether the message
//! reached its reader), or why nothing did.

use serde_json::Value;
use tokio::sync::mpsc;

use crate::runtime::process::pipes::STDIN_SEND_TIMEOUT;
use crate::runtime::process::protocol;

/// What became of a request: a sentence saying what was done, or (`Err`) why not and what to
/// do instead.
pub type Outcome = Result<String, Refused>;

/// Why a request was not carried out, in one sentence; `fault`: the asker did something wrong
/// (recorded on its seat), not merely came second (a claim another made first).
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub why: String,
    pub fault: bool,
}

impl Refused {
    /// Not done, and nobody's fault: the asker lost a race.
    pub fn lost(why: String) -> Self {
        Refused { why, fault: false }
    }
}

impl From<String> for Refused {
    fn from(why: String) -> Self {
        Refused { why, fault: true }
    }
}

impl From<&str> for Refused {
    fn from(why: &str) -> Self {
        why.to_string().into()
    }
}

/// A tool call not answered yet: its control request and its JSON-RPC id.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    pub request_id: String,
    pub rpc_id: Value,
}

/// Where a pending call's answer goes: its process's stdin.
#[derive(Debug)]
pub struct Answer {
    pub call: PendingCall,
    pub stdin: mpsc::Sender<String>,
}

impl Answer {
    /// Writes the result on the process's stdin (bounded; a process gone meanwhile has nobody
    /// left to answer).
    pub async fn give(self, outcome: &Outcome) {
        let (text, is_error) = match outcome {
            Ok(done) => (done.as_str(), false),
            Err(refused) => (refused.why.as_str(), true),
        };
        let result = protocol::tool_result(&self.call.rpc_id, text, is_error);
        let line = protocol::mcp_response(&self.call.request_id, &result);
        if self
            .stdin
            .send_timeout(line, STDIN_SEND_TIMEOUT)
            .await
            .is_err()
        {
            tracing::info!(request = %self.call.request_id, "a tool call's process was gone before its answer");
        }
    }
}
