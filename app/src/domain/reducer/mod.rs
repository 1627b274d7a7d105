//! `apply(docs, event) -> writes`: the one place where events become documents (DESIGN §4).
//!
//! Laws the tests hold it to: applying the same event twice gives the documents of applying it
//! once (two tabs, a replayed stream); no event removes a document; an `expired` seat is never
//! brought back by a status report; a seat only becomes `alive` through `agent_registered` or a
//! live `agent_process` (the lead's `agent_status` is a belief, recorded and never applied).

mod external;
mod governance;
mod hall;
mod knowledge;
mod ledger;
mod message;
mod permission;
mod process;
mod project;
mod quest;
mod review;
mod seat;
mod session;
mod talk;
mod writes;

use super::docs::{DocWrite, Docs};
use super::events::{Event, EventKind};
use writes::Writes;

/// The documents a log of `kinds` makes, its events numbered from 1 at time 0 (for tests and
/// benchmarks that need a team without a store).
pub fn fold(kinds: impl IntoIterator<Item = EventKind>) -> Docs {
    let mut docs = Docs::new();
    for (i, kind) in kinds.into_iter().enumerate() {
        let e = Event {
            id: i as u64 + 1,
            ts: 0,
            session_id: "s".into(),
            kind,
        };
        let w = apply(&docs, &e);
        super::docs::commit(&mut docs, w);
    }
    docs
}

/// The writes `event` makes to `docs`. Pure: `docs` is not changed. Each area's events are
/// its module's.
pub fn apply(docs: &Docs, event: &Event) -> Vec<DocWrite> {
    let mut w = Writes::new(docs);
    match &event.kind {
        EventKind::SessionStart { lead_name, .. } => {
            session::session_start(&mut w, event, lead_name)
        }
        EventKind::SessionEnd { .. } => session::session_end(&mut w, event),
        EventKind::AgentsSummoned { seats } => session::summoned(&mut w, event, seats),
        EventKind::AgentRegistered { .. } => seat::registered(&mut w, event),
        EventKind::AgentStatus { seats } => seat::lead_belief(&mut w, event, seats),
        EventKind::AgentProcess { .. } => process::apply(&mut w, event),
        EventKind::HatchingExpired { seats } => session::hatching_expired(&mut w, event, seats),
        EventKind::WorkState { seat, state } => seat::work_state(&mut w, *seat, *state),
        EventKind::MarkerError { .. } | EventKind::RuntimeError { .. } => {
            seat::problem(&mut w, event)
        }
        EventKind::SoulRevised { seat, text } => seat::soul_revised(&mut w, event, *seat, text),
        EventKind::UserMessage { .. }
        | EventKind::AgentMessage { .. }
        | EventKind::TeamMessage { .. }
        | EventKind::AgentWrote { .. }
        | EventKind::ToolUsed { .. }
        | EventKind::LeadText { .. } => {
            message::apply(&mut w, event);
            talk::count(&mut w, event);
        }
        EventKind::PermissionRequest { .. }
        | EventKind::PermissionDecision { .. }
        | EventKind::PermissionRouted { .. } => permission::apply(&mut w, event),
        EventKind::AgentKilled { .. }
        | EventKind::AgentRecalled { .. }
        | EventKind::AgentForked { .. }
        | EventKind::AgentImported(_) => hall::apply(&mut w, event),
        EventKind::VaultSaved { .. } | EventKind::WorkCommitted { .. } => {
            knowledge::apply(&mut w, event)
        }
        EventKind::QuestStarted { .. }
        | EventKind::QuestPlanned { .. }
        | EventKind::QuestMoved { .. }
        | EventKind::StageJoined { .. }
        | EventKind::StageAgentDone { .. }
        | EventKind::StageEnded { .. }
        | EventKind::FindingPosted { .. }
        | EventKind::FindingMarked { .. }
        | EventKind::ArtifactWritten { .. }
        | EventKind::JobPosted { .. }
        | EventKind::JobClaimed { .. }
        | EventKind::JobDone { .. } => quest::apply(&mut w, event),
        EventKind::ProjectLinked { .. }
        | EventKind::ProjectUnlinked { .. }
        | EventKind::WorktreeMade { .. }
        | EventKind::WorktreeRemade { .. }
        | EventKind::WorktreeChanged { .. }
        | EventKind::ReviewCommented { .. }
        | EventKind::ReviewRequested { .. }
        | EventKind::ChangesRequested { .. }
        | EventKind::BranchApproved { .. }
        | EventKind::MergeMoved { .. }
        | EventKind::FilesClaimed { .. } => project::apply(&mut w, event),
        EventKind::InviteMade { .. }
        | EventKind::InviteUsed { .. }
        | EventKind::SecretRotated { .. }
        | EventKind::WatchMade { .. }
        | EventKind::WatchRevoked { .. } => external::apply(&mut w, event),
        EventKind::RuleAdded { .. }
        | EventKind::RuleRemoved { .. }
        | EventKind::BudgetSet { .. }
        | EventKind::BudgetCrossed { .. } => governance::apply(&mut w, event),
        EventKind::Unknown => {}
    }
    w.finish()
}
