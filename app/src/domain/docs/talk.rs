//! An identity's talk document (`talk:{identity}`): whom it wrote to and heard from lately.
//! How it is counted is `domain::talk`'s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::Millis;

pub const TYPE_TALK: &str = "talk";

/// `talk:{identity}`.
pub fn talk_id(identity: &str) -> String {
    format!("{TYPE_TALK}:{identity}")
}

/// Whom an identity wrote to and heard from lately, by identity (so a seat change or a page of
/// the thread not loaded changes nothing), the last hour's as of its newest entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TalkDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub identity_id: String,
    /// Oldest first.
    #[serde(default)]
    pub recent: Vec<Talked>,
    /// The last event counted here: one with this id or older counts no more.
    #[serde(default)]
    pub last_event_id: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One letter or mention, from this identity (`wrote`) or to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Talked {
    pub with: String,
    pub at: Millis,
    #[serde(default)]
    pub wrote: bool,
}
