//! The request and response bodies of the JSON API, shared by the handlers and the UI.

use serde::{Deserialize, Serialize};

use crate::domain::permissions::{Decision, PermissionState};
use crate::domain::Seat;

/// `POST /api/send`: a message from the human. It addresses a seat (`seat`); `targetAgent`, a
/// name compared case- and Unicode-folded, is kept for callers that know only names. With
/// neither, it goes to the lead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_agent: Option<String>,
}

/// `POST /api/agents/{pos}/kill`: retire the identity in a seat (`cascade`: its seated
/// descendants too, deepest first).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KillRequest {
    #[serde(default)]
    pub cascade: bool,
}

/// The answer to a kill: the ids retired.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KillResponse {
    pub retired: Vec<String>,
}

/// One identity in the Hall (`GET /api/hall`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HallEntry {
    pub id: String,
    pub name: Option<String>,
    pub retired_at: crate::domain::Millis,
    pub reason: Option<String>,
    /// The first lines of its soul.
    pub soul: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

/// `POST /api/hall/{id}/recall`: into `seat`, or the first empty one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecallRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
}

/// The seat an operation filled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatResponse {
    pub seat: Seat,
}

/// A Hall entry from a retired identity document.
pub fn hall_entry(d: &crate::domain::docs::AgentIdentity) -> HallEntry {
    HallEntry {
        id: d.stable_id(),
        name: d.name.clone(),
        retired_at: d.retired_at.unwrap_or_default(),
        reason: d.retired_reason.clone(),
        soul: d
            .individuation_artifact
            .as_deref()
            .map(|s| s.lines().take(3).collect::<Vec<_>>().join("\n")),
        parent_id: d.parent_uuid.clone(),
    }
}

/// What happened to a message for an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Written to the running process's stdin.
    Delivered,
    /// The lead was not running: it was started with the message.
    Started,
    /// The agent sleeps: the message waits for its wake.
    Queued,
    /// The agent's process cannot be started: the lead was given the message instead.
    Relayed,
}

/// The answer to `POST /api/send` (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendResponse {
    pub event_id: u64,
    pub seat: Seat,
    pub delivery: Delivery,
}

/// The seats SUMMON or WAKE started (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatsResponse {
    pub seats: Vec<Seat>,
}

/// `POST /api/permissions/{id}`: the human's answer to a permission request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionAnswer {
    pub decision: Decision,
    /// For a denial: what the agent is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// With `allow_always`: the index of the one suggestion to apply (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<usize>,
}

/// Where a permission request stands after the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAnswered {
    pub request_id: String,
    pub state: PermissionState,
}

/// `POST /api/session/end`: the events that ended the session and began the next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnded {
    pub end_event_id: u64,
    pub session: String,
    pub start_event_id: u64,
}

/// `POST /api/agents/{pos}/fork`: a child from this agent's history, into `seat` or the first
/// empty one, with an optional first message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForkRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
}
