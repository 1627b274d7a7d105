//! One message of an inbox file, in Claude Code's inbox format
//! (`teams/{team}/inboxes/{name}.json` holds a JSON array of these).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An inbox entry. Fields this version does not know are kept, so rewriting a file never drops
/// what another writer (Claude Code itself) put there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InboxMessage {
    pub from: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// ISO-8601, as Claude Code writes it.
    pub timestamp: String,
    #[serde(default)]
    pub read: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The messages of an inbox that nobody has read yet, oldest first (file order).
pub fn unread(inbox: &[InboxMessage]) -> Vec<&InboxMessage> {
    inbox.iter().filter(|m| !m.read).collect()
}
