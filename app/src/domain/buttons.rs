//! The one button under the grid, derived from documents (DESIGN §4).

use super::docs::{identities, Docs};
use super::status::AgentStatus;
use super::LEAD_SEAT;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridButton {
    /// No agent is visible: the first ceremony.
    Summon,
    /// Some agent is sleeping.
    Wake,
    /// An operation is in flight (ephemeral UI state): shown disabled.
    Waking,
    /// Every agent is alive, or eggs are hatching: nothing to press.
    None,
}

impl GridButton {
    pub fn label(self) -> Option<&'static str> {
        match self {
            GridButton::Summon => Some("SUMMON"),
            GridButton::Wake => Some("WAKE"),
            GridButton::Waking => Some("WAKING…"),
            GridButton::None => None,
        }
    }
}

/// The button for the agents around the lead. `in_flight` is the UI's own state: a SUMMON or
/// WAKE it sent and has not seen completed.
pub fn grid_button(docs: &Docs, in_flight: bool) -> GridButton {
    if in_flight {
        return GridButton::Waking;
    }
    let visible: Vec<AgentStatus> = identities(docs)
        .filter(|d| d.grid_position != LEAD_SEAT)
        .map(|d| d.status())
        .filter(|s| s.is_visible())
        .collect();
    if visible.is_empty() {
        GridButton::Summon
    } else if visible.contains(&AgentStatus::Sleeping) {
        GridButton::Wake
    } else {
        GridButton::None
    }
}
