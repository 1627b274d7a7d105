//! Why the runtime could not do what it was asked (shared by the rooms and the façade).

use app::domain::Seat;

/// Why the runtime could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("seat {0} already has a process (running or starting)")]
    SeatTaken(Seat),
    #[error("could not start {cmd}: {source}")]
    Spawn {
        cmd: String,
        #[source]
        source: std::io::Error,
    },
    #[error("seat {0} has no running agent")]
    NotRunning(Seat),
    #[error("seat {0} is not working on a turn: there is nothing to interrupt")]
    NotWorking(Seat),
    #[error("the agent in seat {0} is not taking input: {1}")]
    NotTakingInput(Seat, String),
    /// A budget is reached: no new turn until it is raised or its period turns.
    #[error("budget reached ({1}): its mail waits until the limit is raised or the period turns")]
    OverBudget(Seat, String),
}
