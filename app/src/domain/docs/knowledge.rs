//! The documents of what an identity knows: every version of its knowledge vault
//! (`vault:{identity}:{version}`, the whole vault each time, never overwritten) and every commit
//! of its work cycle (`work-commit:{sha}`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::{Millis, Seat};

pub const TYPE_KNOWLEDGE: &str = "vault";
pub const TYPE_WORK_COMMIT: &str = "work-commit";

/// A vault's files: path inside `knowledge/` → text.
pub type KnowledgeFiles = BTreeMap<String, String>;

/// `vault:{identity}:{version}`; versions are zero-padded so that they sort in order.
pub fn knowledge_doc_id(identity: &str, version: u32) -> String {
    format!("{TYPE_KNOWLEDGE}:{identity}:{version:06}")
}

/// `work-commit:{sha}`.
pub fn work_commit_id(sha: &str) -> String {
    format!("{TYPE_WORK_COMMIT}:{sha}")
}

/// Who wrote a vault version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Author {
    /// The agent, with its own tools (captured from its folder).
    Agent,
    /// The human, in the console.
    Human,
}

/// One version of an identity's vault: all of it, and which files changed from the one before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub identity_id: String,
    pub version: u32,
    pub author: Author,
    /// The human's name, for a human's edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_name: Option<String>,
    pub created_at: Millis,
    /// When it was captured: "deep_work", "dismissed", "edited"…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub files: KnowledgeFiles,
    /// Paths added, changed or removed since the version before.
    #[serde(default)]
    pub changed: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One commit of an agent's work cycle in its folder's git repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkCommitDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub sha: String,
    pub identity_id: String,
    pub seat: Seat,
    /// The work state it reports (`[STATE:x]`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    pub summary: String,
    /// Files the commit changed.
    #[serde(default)]
    pub files: Vec<String>,
    /// Made by the agent itself (else by the server at a validated transition).
    #[serde(default)]
    pub by_agent: bool,
    pub created_at: Millis,
    #[serde(default)]
    pub event_id: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
