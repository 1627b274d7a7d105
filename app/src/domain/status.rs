//! Seat status and the lazy defaults of old documents.

use serde::{Deserialize, Deserializer, Serialize};

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

/// Reads `status` leniently: an unknown string becomes `None`, so `AgentIdentity::status` applies the
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
