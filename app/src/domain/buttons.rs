//! The one button under the grid, derived from documents (DESIGN §4).

use super::docs::{identities, Docs};
use super::status::AgentStatus;
use super::{LEAD_SEAT, SEATS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridButton {
    /// Some agent seat is empty (at first, all of them: the first ceremony).
    Summon,
    /// Some agent is sleeping.
    Wake,
    /// An operation is in flight (ephemeral UI state): shown disabled.
    Waking,
    /// Every seat holds an agent that is alive or hatching: nothing to press.
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
    let seats = usize::from(SEATS) - 1;
    if visible.contains(&AgentStatus::Sleeping) {
        GridButton::Wake
    } else if visible.len() < seats {
        // Empty seats (never filled, an egg that expired, an agent retired): SUMMON fills them.
        GridButton::Summon
    } else {
        GridButton::None
    }
}

/// How many Claude sessions pressing `button` begins (each costs), said before it is pressed:
/// SUMMON one per empty seat, WAKE one per sleeping agent.
pub fn sessions_begun(docs: &Docs, button: GridButton) -> usize {
    let around = || identities(docs).filter(|d| d.grid_position != LEAD_SEAT);
    match button {
        GridButton::Summon => {
            let filled = around().filter(|d| d.status().is_visible()).count();
            (usize::from(SEATS) - 1).saturating_sub(filled)
        }
        GridButton::Wake => around()
            .filter(|d| d.status() == AgentStatus::Sleeping)
            .count(),
        GridButton::Waking | GridButton::None => 0,
    }
}

/// What starting a quest may begin, said on its form before it starts: the lead's turn (a
/// session when it is asleep), then per stage a turn of each agent the lead picks, a new
/// session for each sleeper among them and for each newcomer a stage seats (a plan naming
/// agents the team lacks summons one into an empty seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuestSessions {
    pub lead_asleep: bool,
    pub awake: usize,
    pub sleeping: usize,
    /// Agent seats a newcomer may be summoned into.
    pub empty: usize,
}

impl QuestSessions {
    /// The new Claude sessions it may begin at once: the lead's if asleep, every sleeper's and
    /// a newcomer's in every empty seat (an agent a stage dismisses and a later stage wakes
    /// begins another).
    pub fn at_most(self) -> usize {
        usize::from(self.lead_asleep) + self.sleeping + self.empty
    }

    pub fn said(self) -> String {
        let lead = match self.lead_asleep {
            true => "a session of the lead (asleep now)",
            false => "a turn of the lead",
        };
        let n = self.at_most();
        format!(
            "Starting it begins {lead}; each stage then begins a turn of the agents the lead \
             picks ({} awake), and a new session for each sleeper it picks ({}) or newcomer \
             it seats ({} empty seat{}): at most {n} new session{} at once.",
            self.awake,
            self.sleeping,
            self.empty,
            if self.empty == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" }
        )
    }
}

pub fn quest_sessions(docs: &Docs) -> QuestSessions {
    let lead_asleep = identities(docs)
        .find(|d| d.grid_position == LEAD_SEAT)
        .is_none_or(|d| d.status() == AgentStatus::Sleeping);
    let (mut awake, mut sleeping) = (0, 0);
    for d in identities(docs).filter(|d| d.grid_position != LEAD_SEAT) {
        match d.status() {
            AgentStatus::Sleeping if d.has_name() => sleeping += 1,
            s if s.is_visible() => awake += 1,
            _ => {}
        }
    }
    QuestSessions {
        lead_asleep,
        awake,
        sleeping,
        empty: (usize::from(SEATS) - 1).saturating_sub(awake + sleeping),
    }
}
