//! `invite:{hash}`: an invite for an external agent. The human makes one for a seat (or the
//! first empty one); it seats one agent, once. Only its token's SHA-256 hex digest is kept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::{Millis, Seat};

pub const TYPE_INVITE: &str = "invite";

/// `invite:{first 16 hex digits of the token's digest}`.
pub fn invite_doc_id(token_hash: &str) -> String {
    let short: String = token_hash.chars().take(16).collect();
    format!("{TYPE_INVITE}:{short}")
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InviteDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub token_hash: String,
    /// The seat it is for; `None`: the first empty seat when it is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    pub created_at: Millis,
    /// When it seated its agent, and where: a used invite seats nobody again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_seat: Option<Seat>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InviteDoc {
    pub fn is_used(&self) -> bool {
        self.used_at.is_some()
    }
}
