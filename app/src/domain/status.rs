//! Seat status and the lazy defaults of old documents.

use serde::{Deserialize, Deserializer, Serialize};

use super::docs::AgentIdentity;
use super::Millis;

/// The status of a seat's identity document (DESIGN §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentStatus {
    Hatching,
    Alive,
    Sleeping,
    Expired,
}

impl AgentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Hatching => "hatching",
            AgentStatus::Alive => "alive",
            AgentStatus::Sleeping => "sleeping",
            AgentStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hatching" => Some(Self::Hatching),
            "alive" => Some(Self::Alive),
            "sleeping" => Some(Self::Sleeping),
            "expired" => Some(Self::Expired),
            _ => None,
        }
    }

    /// A visible seat shows an agent (egg or face) in the grid.
    pub fn is_visible(self) -> bool {
        !matches!(self, AgentStatus::Expired)
    }
}

/// The one place that knows the lazy defaults of stored identities:
/// an explicit `status` wins; otherwise the legacy `hatching: true` means hatching, and anything
/// else (missing, `hatching: false`, or a status this version does not know, such as the
/// original's `unknown`) means sleeping.
pub fn agent_status(doc: &AgentIdentity) -> AgentStatus {
    match (doc.status, doc.hatching) {
        (Some(status), _) => status,
        (None, Some(true)) => AgentStatus::Hatching,
        (None, _) => AgentStatus::Sleeping,
    }
}

/// Reads `status` leniently: an unknown string becomes `None`, so `agent_status` applies the
/// default instead of the whole document failing to load.
pub(crate) fn lenient_status<'de, D>(de: D) -> Result<Option<AgentStatus>, D::Error>
where
    D: Deserializer<'de>,
{
    let raw: Option<serde_json::Value> = Option::deserialize(de)?;
    Ok(raw
        .as_ref()
        .and_then(|v| v.as_str())
        .and_then(AgentStatus::parse))
}

/// What the lead last said of an agent (its `status` marker): a belief, recorded and shown
/// where it differs from the truth, never applied (liveness comes from the process).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeadBelief {
    pub alive: bool,
    pub at: Millis,
}

/// What the lead believes of `doc` when it differs from the truth: `Some(true)` if it
/// believes a sleeping agent awake, `Some(false)` if it believes an awake one asleep.
pub fn believed_otherwise(doc: &AgentIdentity) -> Option<bool> {
    let belief = doc.lead_belief.as_ref()?;
    let alive = doc.status() == AgentStatus::Alive;
    (doc.has_name() && belief.alive != alive).then_some(belief.alive)
}

/// "Julian believes Lyra is asleep": the lead's belief in words, where it differs.
pub fn belief_text(doc: &AgentIdentity, lead_name: &str) -> Option<String> {
    let alive = believed_otherwise(doc)?;
    let name = doc.name.as_deref().unwrap_or("this agent");
    let state = if alive { "awake" } else { "asleep" };
    Some(format!("{lead_name} believes {name} is {state}"))
}
