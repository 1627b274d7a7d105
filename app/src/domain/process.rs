//! The state of one Claude process (DESIGN §5.2): `starting → running → idle → running …`,
//! `→ stopped` from any state. Liveness comes from here, not from anyone's report.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessState {
    Starting,
    Running,
    Idle,
    Stopped,
}

impl ProcessState {
    /// `running` and `idle` mean a live process: the seat is alive.
    pub fn is_live(self) -> bool {
        matches!(self, ProcessState::Running | ProcessState::Idle)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProcessState::Starting => "starting",
            ProcessState::Running => "running",
            ProcessState::Idle => "idle",
            ProcessState::Stopped => "stopped",
        }
    }
}

/// Whether a process may move from `from` (`None`: no process yet) to `to`. The reducer
/// applies nothing else (the same state again is an update, not a transition).
pub fn can_transition(from: Option<ProcessState>, to: ProcessState) -> bool {
    use ProcessState::*;
    match (from, to) {
        (None | Some(Stopped), Starting) => true,
        // A start that failed before it was recorded as starting.
        (None, Stopped) => true,
        (Some(Starting), Running | Idle) => true,
        (Some(Running), Idle) | (Some(Idle), Running) => true,
        // A process can be stopped in any state, including one that never got going.
        (Some(Starting | Running | Idle), Stopped) => true,
        _ => false,
    }
}
