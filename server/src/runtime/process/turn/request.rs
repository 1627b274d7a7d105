//! What an agent asks of the runtime (by marker or tool), as the translator reads it: the
//! runtime's switchboard carries it out.

use app::domain::{Seat, LEAD_SEAT};

use super::QuestRequest;

/// A request an agent made (by marker or tool) that the runtime carries out; the lead's
/// (`summon`, `dismiss`, `kill`, `recall`) are refused to others before they get here.
#[derive(Clone, Debug, PartialEq)]
pub enum LeadRequest {
    /// Newborns into the empty seats among `seats` (every one when `None`), at most `count`.
    Summon {
        seats: Option<Vec<Seat>>,
        count: Option<u8>,
    },
    Dismiss {
        name: String,
    },
    /// Retire the agent called `name` to the Hall (`cascade`: its descendants too, deepest
    /// first, as the HTTP route does).
    Kill {
        name: String,
        cascade: bool,
    },
    /// Seat the retired identity called `name` again (in `seat`, or the first empty one),
    /// and wake it.
    Recall {
        name: String,
        seat: Option<Seat>,
    },
    /// Fork the agent in `seat` into `into` (or the first empty seat); `from` (in `by`) asked,
    /// and signs the first message.
    Fork {
        seat: Seat,
        by: Seat,
        from: String,
        prompt: Option<String>,
        into: Option<Seat>,
    },
    /// A message for another agent (or the lead, or the human), from the one in `seat`.
    Route {
        seat: Seat,
        from: String,
        to: String,
        text: String,
    },
    /// What waits in the inbox of the agent in `seat` (a tool's answer).
    CheckMail {
        seat: Seat,
    },
    /// Up to `max` of its unread mail not on its way to it yet, marked read (a tool's answer).
    ReadMail {
        seat: Seat,
        max: u32,
    },
    /// Quests and jobs (the lead's plan, moves and report; anyone's findings and claims).
    Quest(QuestRequest),
    /// The agent in `seat` asks for a review of its branch (in `project`, or its only one).
    RequestReview {
        seat: Seat,
        project: Option<String>,
        note: Option<String>,
    },
    /// The agent in `seat` says which files it means to change, and why.
    ClaimFiles {
        seat: Seat,
        project: Option<String>,
        paths: Vec<String>,
        why: String,
    },
    /// The lead puts the agent called `agent` to work on the project called `project`.
    PutToWork {
        agent: String,
        project: String,
    },
    /// The lead decides the permission request `request` (`allow` or `deny`).
    DecidePermission {
        request: String,
        decision: String,
        reason: Option<String>,
    },
}

impl LeadRequest {
    /// The seat of the agent that asked.
    pub fn asker(&self) -> Seat {
        match self {
            LeadRequest::Summon { .. }
            | LeadRequest::Dismiss { .. }
            | LeadRequest::Kill { .. }
            | LeadRequest::Recall { .. }
            | LeadRequest::PutToWork { .. }
            | LeadRequest::DecidePermission { .. } => LEAD_SEAT,
            LeadRequest::Fork { by, .. } => *by,
            LeadRequest::Route { seat, .. }
            | LeadRequest::CheckMail { seat }
            | LeadRequest::ReadMail { seat, .. }
            | LeadRequest::RequestReview { seat, .. }
            | LeadRequest::ClaimFiles { seat, .. } => *seat,
            LeadRequest::Quest(q) => q.asker(),
        }
    }

    /// What it is, as a refusal recorded on the asker's seat names it.
    pub fn line(&self) -> String {
        match self {
            LeadRequest::Summon { .. } => "summon".into(),
            LeadRequest::Dismiss { name } => format!("dismiss {name}"),
            LeadRequest::Kill { name, .. } => format!("kill {name}"),
            LeadRequest::Recall { name, .. } => format!("recall {name}"),
            LeadRequest::Fork { .. } => "fork".into(),
            LeadRequest::Route { to, .. } => format!("route to {to}"),
            LeadRequest::CheckMail { .. } => "check_mail".into(),
            LeadRequest::ReadMail { .. } => "read_mail".into(),
            LeadRequest::Quest(q) => q.line().into(),
            LeadRequest::RequestReview { .. } => "request_review".into(),
            LeadRequest::ClaimFiles { .. } => "claim_files".into(),
            LeadRequest::PutToWork { agent, .. } => format!("put_to_work {agent}"),
            LeadRequest::DecidePermission { request, .. } => format!("decide_permission {request}"),
        }
    }
}
