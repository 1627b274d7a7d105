//! What an agent asks of a quest or the job board with a marker, as the translator reads it
//! (the quest room carries it out).

use app::domain::Seat;

/// What an agent asks of a quest or the job board with a marker.
#[derive(Clone, Debug, PartialEq)]
pub enum QuestRequest {
    /// The lead's plan: a template, and per stage the agents by name.
    Plan {
        template: String,
        stages: Vec<Vec<String>>,
    },
    StageNext {
        summon: Vec<String>,
        dismiss: Vec<String>,
    },
    Report {
        title: String,
        body: String,
    },
    Finding {
        seat: Seat,
        from: String,
        title: String,
        body: String,
        severity: Option<String>,
    },
    StageDone {
        seat: Seat,
        from: String,
    },
    PostJob {
        title: String,
        text: String,
    },
    Claim {
        seat: Seat,
        from: String,
        job: String,
    },
    JobDone {
        seat: Seat,
        from: String,
        job: String,
        result: String,
    },
}
