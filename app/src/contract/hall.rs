//! Retire, the Hall, recall and fork: their bodies and answers.

use serde::{Deserialize, Serialize};

use crate::domain::Seat;

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
    /// Who went to the Hall asleep to make room (every seat was taken; the one asleep
    /// longest goes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_room: Option<String>,
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

/// What bringing a bundle in did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Brought {
    pub id: String,
    /// Its name here.
    pub name: String,
    /// Its own name, when someone seated here has it (it got a suffix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    /// It was here already: nothing changed.
    pub already_here: bool,
}
