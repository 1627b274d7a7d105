//! The work cycle an agent reports with `[STATE:…]` markers (DESIGN §5.3):
//! `bootstrap → inbox → distill → deep_work | idle | logout`; `deep_work → inbox`;
//! `idle → inbox`; `logout` ends.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkState {
    Bootstrap,
    Inbox,
    Distill,
    DeepWork,
    Idle,
    Logout,
}

impl WorkState {
    pub const ALL: [WorkState; 6] = [
        WorkState::Bootstrap,
        WorkState::Inbox,
        WorkState::Distill,
        WorkState::DeepWork,
        WorkState::Idle,
        WorkState::Logout,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WorkState::Bootstrap => "bootstrap",
            WorkState::Inbox => "inbox",
            WorkState::Distill => "distill",
            WorkState::DeepWork => "deep_work",
            WorkState::Idle => "idle",
            WorkState::Logout => "logout",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.as_str() == s)
    }
}

/// Why a reported transition was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid work-cycle transition {from} -> {to}")]
pub struct InvalidTransition {
    pub from: String,
    pub to: String,
}

/// Validates a reported transition; `from = None` means the agent has reported nothing yet, and
/// every session starts with `bootstrap`.
pub fn transition(from: Option<WorkState>, to: WorkState) -> Result<WorkState, InvalidTransition> {
    use WorkState::*;
    let ok = match from {
        None => to == Bootstrap,
        Some(Bootstrap) => to == Inbox,
        Some(Inbox) => to == Distill,
        Some(Distill) => matches!(to, DeepWork | Idle | Logout),
        Some(DeepWork) | Some(Idle) => to == Inbox,
        Some(Logout) => false,
    };
    if ok {
        Ok(to)
    } else {
        Err(InvalidTransition {
            from: from.map_or("none", WorkState::as_str).to_string(),
            to: to.as_str().to_string(),
        })
    }
}
