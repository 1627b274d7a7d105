//! What an event is about: its `type` string and the seat it concerns.

use super::super::Seat;
use super::EventKind;

impl EventKind {
    /// The `type` string of this event.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::SessionStart { .. } => "session_start",
            EventKind::SessionEnd { .. } => "session_end",
            EventKind::AgentsSummoned { .. } => "agents_summoned",
            EventKind::AgentRegistered { .. } => "agent_registered",
            EventKind::AgentStatus { .. } => "agent_status",
            EventKind::AgentProcess { .. } => "agent_process",
            EventKind::HatchingExpired { .. } => "hatching_expired",
            EventKind::UserMessage { .. } => "user_message",
            EventKind::AgentMessage { .. } => "agent_message",
            EventKind::LeadText { .. } => "lead_text",
            EventKind::ToolUsed { .. } => "tool_used",
            EventKind::WorkState { .. } => "work_state",
            EventKind::MarkerError { .. } => "marker_error",
            EventKind::RuntimeError { .. } => "runtime_error",
            EventKind::PermissionRequest { .. } => "permission_request",
            EventKind::PermissionDecision { .. } => "permission_decision",
            EventKind::PermissionRouted { .. } => "permission_routed",
            EventKind::AgentKilled { .. } => "agent_killed",
            EventKind::AgentRecalled { .. } => "agent_recalled",
            EventKind::AgentForked { .. } => "agent_forked",
            EventKind::SoulRevised { .. } => "soul_revised",
            EventKind::VaultSaved { .. } => "vault_saved",
            EventKind::QuestStarted { .. } => "quest_started",
            EventKind::QuestPlanned { .. } => "quest_planned",
            EventKind::QuestMoved { .. } => "quest_moved",
            EventKind::StageJoined { .. } => "stage_joined",
            EventKind::StageAgentDone { .. } => "stage_agent_done",
            EventKind::StageEnded { .. } => "stage_ended",
            EventKind::FindingPosted { .. } => "finding_posted",
            EventKind::FindingMarked { .. } => "finding_marked",
            EventKind::ArtifactWritten { .. } => "artifact_written",
            EventKind::JobPosted { .. } => "job_posted",
            EventKind::JobClaimed { .. } => "job_claimed",
            EventKind::JobDone { .. } => "job_done",
            EventKind::AgentImported(_) => "agent_imported",
            EventKind::WorkCommitted { .. } => "work_committed",
            EventKind::ProjectLinked { .. } => "project_linked",
            EventKind::ProjectUnlinked { .. } => "project_unlinked",
            EventKind::WorktreeMade { .. } => "worktree_made",
            EventKind::WorktreeRemade { .. } => "worktree_remade",
            EventKind::WorktreeChanged { .. } => "worktree_changed",
            EventKind::ReviewCommented { .. } => "review_commented",
            EventKind::ReviewRequested { .. } => "review_requested",
            EventKind::ChangesRequested { .. } => "changes_requested",
            EventKind::BranchApproved { .. } => "branch_approved",
            EventKind::MergeMoved { .. } => "merge_moved",
            EventKind::FilesClaimed { .. } => "files_claimed",
            EventKind::InviteMade { .. } => "invite_made",
            EventKind::InviteUsed { .. } => "invite_used",
            EventKind::SecretRotated { .. } => "secret_rotated",
            EventKind::WatchMade { .. } => "watch_made",
            EventKind::WatchRevoked { .. } => "watch_revoked",
            EventKind::TeamMessage { .. } => "team_message",
            EventKind::AgentWrote { .. } => "agent_wrote",
            EventKind::RuleAdded { .. } => "rule_added",
            EventKind::RuleRemoved { .. } => "rule_removed",
            EventKind::BudgetSet { .. } => "budget_set",
            EventKind::BudgetCrossed { .. } => "budget_crossed",
            EventKind::Unknown => "unknown",
        }
    }

    /// The seat an event is about, when it is about one.
    pub fn seat(&self) -> Option<Seat> {
        match self {
            EventKind::AgentRegistered { seat, .. }
            | EventKind::AgentProcess { seat, .. }
            | EventKind::UserMessage { seat, .. }
            | EventKind::AgentMessage { seat, .. }
            | EventKind::ToolUsed { seat, .. }
            | EventKind::WorkState { seat, .. }
            | EventKind::PermissionRequest { seat, .. }
            | EventKind::PermissionDecision { seat, .. }
            | EventKind::PermissionRouted { seat, .. }
            | EventKind::AgentKilled { seat, .. }
            | EventKind::AgentRecalled { seat, .. }
            | EventKind::AgentForked { seat, .. }
            | EventKind::SoulRevised { seat, .. }
            | EventKind::WorkCommitted { seat, .. }
            | EventKind::FindingPosted { seat, .. }
            | EventKind::AgentWrote { to_seat: seat, .. } => Some(*seat),
            EventKind::TeamMessage { seat, .. } | EventKind::BudgetCrossed { seat, .. } => *seat,
            EventKind::LeadText { .. } => Some(super::super::LEAD_SEAT),
            EventKind::MarkerError { seat, .. } | EventKind::RuntimeError { seat, .. } => *seat,
            _ => None,
        }
    }
}
