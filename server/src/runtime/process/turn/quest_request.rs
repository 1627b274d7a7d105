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
        /// The file it is about (as the agent wrote it) and the line.
        at: Option<(String, Option<u32>)>,
    },
    StageDone {
        seat: Seat,
        from: String,
    },
    PostJob {
        seat: Seat,
        from: String,
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

impl QuestRequest {
    /// The seat of the agent that asked.
    pub fn asker(&self) -> Seat {
        match self {
            QuestRequest::Plan { .. }
            | QuestRequest::StageNext { .. }
            | QuestRequest::Report { .. } => app::domain::LEAD_SEAT,
            QuestRequest::Finding { seat, .. }
            | QuestRequest::StageDone { seat, .. }
            | QuestRequest::PostJob { seat, .. }
            | QuestRequest::Claim { seat, .. }
            | QuestRequest::JobDone { seat, .. } => *seat,
        }
    }

    /// What it is, as a refusal names it (`quest_plan`, `claim`, …).
    pub fn line(&self) -> &'static str {
        match self {
            QuestRequest::Plan { .. } => "quest_plan",
            QuestRequest::StageNext { .. } => "stage_next",
            QuestRequest::Report { .. } => "report",
            QuestRequest::Finding { .. } => "finding",
            QuestRequest::StageDone { .. } => "stage_done",
            QuestRequest::PostJob { .. } => "job",
            QuestRequest::Claim { .. } => "claim",
            QuestRequest::JobDone { .. } => "job_done",
        }
    }

    /// A refusal of it by marker is told to the asker as a message too (a marker gets no
    /// answer of its own): the lead's plan, moves and report, and a claim that came second.
    pub fn tells_asker(&self) -> bool {
        matches!(
            self,
            QuestRequest::Plan { .. }
                | QuestRequest::StageNext { .. }
                | QuestRequest::Report { .. }
                | QuestRequest::Claim { .. }
        )
    }
}
