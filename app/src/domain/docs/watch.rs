//! `watch-link:{hash}`: a watch link, a revocable capability to look at the team live and
//! change nothing. Only its token's SHA-256 hex digest is kept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::Millis;

pub const TYPE_WATCH: &str = "watch-link";

/// `watch-link:{first 16 hex digits of the token's digest}`: also the link's id in lists.
pub fn watch_doc_id(token_hash: &str) -> String {
    let short: String = token_hash.chars().take(16).collect();
    format!("{TYPE_WATCH}:{short}")
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub token_hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<Millis>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl WatchDoc {
    pub fn is_revoked(&self) -> bool {
        self.revoked_at.is_some()
    }
}
