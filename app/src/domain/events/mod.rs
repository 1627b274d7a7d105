//! The events of the durable log (DESIGN §4): `{id, ts, sessionId, type, ...}`.
//!
//! Types are only ever added, never renamed. An event of a type this version does not know
//! deserializes as [`EventKind::Unknown`] and the reducer ignores it, so an old tab keeps working
//! against a newer server.

use serde::{Deserialize, Serialize};

mod about;
mod read;

pub use super::docs::Aside;
use super::docs::{
    ArtifactKind, Author, KnowledgeFiles, MergeState, QuestStatus, Severity, StageDoc,
};
use super::permissions::{Decider, Decision};
use super::process::ProcessState;
use super::work_cycle::WorkState;
use super::{Millis, Seat};

/// One entry of the log. `id` is assigned by the store: strictly increasing and gap-free.
/// Read by `read.rs`: the event's fields as a JSON object, its kind from the rest.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    pub id: u64,
    pub ts: Millis,
    #[serde(rename = "sessionId")]
    pub session_id: String,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// The tokens one turn used (from its `result`): what went in (input, cache writes and reads)
/// and what came out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A seat given a hatching placeholder by `agents_summoned`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummonedSeat {
    pub seat: Seat,
    /// The placeholder's 22-character base64url uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Seated by an invite: an external agent, with its secret's SHA-256 hex digest.
    #[serde(
        default,
        rename = "secretHash",
        skip_serializing_if = "Option::is_none"
    )]
    pub secret_hash: Option<String>,
}

/// Declares `EventKind` written as the log holds it (internally tagged: `type` among the
/// fields) and, from the same variants, [`read::Read`], which reads it (DESIGN §4).
///
/// serde reads an internally tagged enum by buffering every event into its generic `Content`
/// first, which compiled every variant's fields twice more (most of the browser's event code);
/// `Read` is the same enum externally tagged, read from the event's fields as a JSON object
/// (see `read.rs`). The compiler keeps the two equal: `Read` is `EventKind`'s serde remote.
macro_rules! event_kinds {
    ($(#[$meta:meta])* pub enum EventKind { $($variants:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
        pub enum EventKind { $($variants)* }

        /// `EventKind`'s variants externally tagged, for reading (see `event_kinds!`).
        #[derive(Deserialize)]
        #[serde(remote = "EventKind", rename_all = "snake_case", rename_all_fields = "camelCase")]
        enum Read { $($variants)* }
    };
}

event_kinds! {
/// What happened: the event's `type` and its fields.
pub enum EventKind {
    SessionStart {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lead_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        human_name: Option<String>,
    },
    SessionEnd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Hatching placeholders, written only for empty or expired seats.
    AgentsSummoned {
        seats: Vec<SummonedSeat>,
    },
    /// An agent chose its name and wrote its soul.
    AgentRegistered {
        seat: Seat,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        color_name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            alias = "individuationArtifact"
        )]
        soul: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claude_session_id: Option<String>,
        /// The inbox name the runtime derived for the name (unique); older events have none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox: Option<String>,
    },
    /// The lead's belief: the seats it says are alive. Recorded and reconciled, not trusted.
    AgentStatus {
        seats: Vec<Seat>,
    },
    /// What the server observed of a Claude process.
    AgentProcess {
        seat: Seat,
        state: ProcessState,
        /// Why it stopped, or what it is doing ("using Bash").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claude_session_id: Option<String>,
        /// Context size after the turn, from the turn's `result` usage.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
        /// The process's cost so far, from the turn's `result`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        /// A tool call began (its tool's name): counted in the identity's ledger.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// A turn ended (`result`): the tokens it used, counted in the ledger.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<TurnUsage>,
    },
    /// Seats whose nameless placeholder may have outlived the hatching deadline; the reducer
    /// checks each against the event's `ts`.
    HatchingExpired {
        seats: Vec<Seat>,
    },
    UserMessage {
        message_id: String,
        speaker_name: String,
        /// The seat of the thread: the target agent's, or the lead's.
        seat: Seat,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_agent: Option<String>,
    },
    AgentMessage {
        message_id: String,
        seat: Seat,
        speaker_name: String,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_agent: Option<String>,
        /// Words that answer the server, not the human (never counted unread).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aside: Option<Aside>,
    },
    /// A tool call an agent made and what came of it, from the CLI's stream: a line of its
    /// thread (counted in its ledger).
    ToolUsed {
        message_id: String,
        seat: Seat,
        speaker_name: String,
        line: super::tool_lines::ToolLine,
    },
    /// Streamed lead output, markers stripped.
    LeadText {
        message_id: String,
        speaker_name: String,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aside: Option<Aside>,
    },
    WorkState {
        seat: Seat,
        state: WorkState,
    },
    MarkerError {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        line: String,
        error: String,
    },
    RuntimeError {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        message: String,
    },
    /// A waiting request goes to the lead, or to the human and why (`--approvals lead-first`).
    PermissionRouted {
        seat: Seat,
        request_id: String,
        to: super::permissions::Approver,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// An agent asks to use a tool (`can_use_tool`, with `--permissions ui`) and waits.
    PermissionRequest {
        seat: Seat,
        request_id: String,
        tool_name: String,
        #[serde(default)]
        input: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestions: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
    /// The answer to a permission request; only the first answer to a request counts.
    PermissionDecision {
        seat: Seat,
        request_id: String,
        decision: Decision,
        /// For a denial: what the agent is told.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        decided_by: Decider,
        /// For `allow_always`: which of the request's suggestions was applied (none: all).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestion: Option<usize>,
        /// Decided by a rule of the agent's: the rule, as written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// An identity retired: it leaves its seat (to the Hall) with everything it was.
    AgentKilled {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A new identity forked from `parent_id` hatches in an empty `seat`, carrying the parent's
    /// conversation up to `fork_message_id` (the parent's last message at fork time).
    AgentForked {
        seat: Seat,
        uuid: String,
        parent_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fork_message_id: Option<String>,
    },
    /// A named agent rewrote its soul: a new version of it (the old ones are kept).
    SoulRevised {
        seat: Seat,
        text: String,
    },
    /// An identity's knowledge vault as it is now (captured from its folder, or edited by the
    /// human): a new version when it differs from the last one.
    VaultSaved {
        identity_id: String,
        author: Author,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        author_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        files: KnowledgeFiles,
    },
    /// A commit of an agent's work cycle in its folder (the server's at a validated transition,
    /// or the agent's own).
    WorkCommitted {
        seat: Seat,
        identity_id: String,
        sha: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<String>,
        summary: String,
        #[serde(default)]
        files: Vec<String>,
        #[serde(default)]
        by_agent: bool,
    },
    /// The human submits a problem: a quest begins, analysed by the lead.
    QuestStarted {
        quest_id: String,
        problem: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        folder: Option<String>,
        /// A linked project's id: its agents read it in their own worktrees.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
    },
    /// The lead's plan: a process template and the agents of each stage.
    QuestPlanned {
        quest_id: String,
        template: String,
        stages: Vec<StageDoc>,
    },
    /// The quest moves (`analysing → stage N → reporting → done | abandoned`), as the quest
    /// machine allows; anything else is not applied.
    QuestMoved {
        quest_id: String,
        status: QuestStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stage: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// An agent joins a running stage: a reinforcement once it has a name (taking the place
    /// of the role it was summoned for, `replaces`).
    StageJoined {
        quest_id: String,
        stage: u32,
        agent: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replaces: Option<String>,
    },
    /// An agent ends its part of a stage (`stage_done`).
    StageAgentDone {
        quest_id: String,
        stage: u32,
        agent: String,
    },
    /// A stage ends: all its agents are done, the lead moved on, or no progress for too long.
    StageEnded {
        quest_id: String,
        stage: u32,
        reason: String,
    },
    /// An agent posts a finding on the quest's board (`finding`).
    FindingPosted {
        quest_id: String,
        finding_id: String,
        stage: u32,
        seat: Seat,
        agent: String,
        title: String,
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        severity: Option<Severity>,
        /// The file of the quest's project (relative to its root) and the line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
    },
    /// The human pins or strikes a finding, or comments on it.
    FindingMarked {
        quest_id: String,
        finding_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pinned: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        struck: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        comment: Option<String>,
    },
    /// A stage's output or the report: a new version of the artifact `name`.
    ArtifactWritten {
        quest_id: String,
        name: String,
        kind: ArtifactKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stage: Option<u32>,
        title: String,
        text: String,
    },
    /// A job offered on the board (by the human or the lead).
    JobPosted {
        job_id: String,
        title: String,
        text: String,
        posted_by: String,
    },
    /// An agent claims a job; only the first claim of an open job counts.
    JobClaimed {
        job_id: String,
        by: String,
    },
    /// The agent that claimed a job finishes it.
    JobDone {
        job_id: String,
        by: String,
        result: String,
    },
    /// An identity brought from another team (a soul bundle) enters the Hall.
    AgentImported(Box<super::imported::ImportedAgent>),
    /// A retired identity is seated again (sleeping, until it is woken).
    AgentRecalled {
        identity_id: String,
        seat: Seat,
    },
    /// The human links a local git repository as a project.
    ProjectLinked {
        project_id: String,
        name: String,
        path: String,
        base: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        check: Option<String>,
    },
    /// The human unlinks a project; its branches and worktrees stay.
    ProjectUnlinked { project_id: String },
    /// An identity is put to work on a project: its worktree on its own branch.
    WorktreeMade {
        project_id: String,
        identity_id: String,
        agent: String,
        branch: String,
        path: String,
        started_from: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_branch: Option<String>,
    },
    /// A worktree removed or broken by hand is made again from its branch (`head`).
    WorktreeRemade {
        project_id: String,
        identity_id: String,
        head: String,
        why: String,
        /// Where it is now, when that moved (a team restored into another data directory).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// What git sees in a worktree now (the watcher, coalesced; only when it changed).
    WorktreeChanged {
        project_id: String,
        identity_id: String,
        head: String,
        changed: Vec<String>,
        #[serde(default)]
        uncommitted: Vec<String>,
        changed_count: u32,
        ahead: u32,
        /// Files the base changed since the branch began that the branch changes too: where a
        /// merge may conflict.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        base_overlaps: Vec<String>,
    },
    /// The human comments on a line of an agent's diff.
    ReviewCommented {
        project_id: String,
        identity_id: String,
        comment_id: String,
        file: String,
        line: u32,
        text: String,
        #[serde(default)]
        code: String,
    },
    /// The agent (`request_review`) or the human asks for a review of the branch.
    ReviewRequested {
        project_id: String,
        identity_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The open comments are sent to the agent in one message.
    ChangesRequested {
        project_id: String,
        identity_id: String,
    },
    /// The human approves the branch at `head`: ready to merge.
    BranchApproved {
        project_id: String,
        identity_id: String,
        head: String,
        /// The base's head when it was approved (a merge refuses a base moved since).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_head: Option<String>,
    },
    /// A merge moves: queued, checking (with the check's output so far), merging, merged or
    /// refused (with why, the conflicting files or the check's output).
    MergeMoved {
        project_id: String,
        identity_id: String,
        state: MergeState,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strategy: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commit: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit: Option<i32>,
    },
    /// An agent says which files it means to change, and why (`claim_files`); no paths: the
    /// claim is let go (its time is up).
    FilesClaimed {
        project_id: String,
        identity_id: String,
        paths: Vec<String>,
        why: String,
        until: Millis,
    },
    /// The human made an invite for an external agent (its token's SHA-256 hex digest; the
    /// token itself is shown once and never kept), for a seat or the first empty one.
    InviteMade {
        token_hash: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// An invite seated an external agent: it is spent.
    InviteUsed { token_hash: String, seat: Seat },
    /// An external agent's secret was replaced (the old one no longer connects), seated or in
    /// the Hall.
    SecretRotated {
        identity_id: String,
        secret_hash: String,
    },
    /// The human made a watch link (its token's SHA-256 hex digest), with a label.
    WatchMade {
        token_hash: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    /// A watch link was revoked: it shows nothing any more.
    WatchRevoked { token_hash: String },
    /// A message in #team, from the human (no `seat`) or the agent in `seat`; `mentioned`:
    /// the seats whose inboxes it was filed in.
    TeamMessage {
        message_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        speaker_name: String,
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mentioned: Vec<Seat>,
    },
    /// One agent's message to another (`send_message`): shown in both threads, "from → to".
    AgentWrote {
        message_id: String,
        from_seat: Seat,
        to_seat: Seat,
        speaker_name: String,
        to_name: String,
        text: String,
    },
    /// The human gave an identity (seated or in the Hall) a rule: the calls it covers are
    /// allowed without asking anyone. `n`: its number, given by the server (the rules version
    /// it makes), so that no later reading of the rule renumbers anything.
    RuleAdded {
        identity_id: String,
        rule: String,
        by: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        n: Option<u32>,
    },
    /// One of an identity's rules (by its number) was taken away.
    RuleRemoved {
        identity_id: String,
        n: u32,
        by: String,
    },
    /// The human set a budget: the identity `agent`'s, or (none) the team's; the limits as
    /// they are now (none: no limit).
    BudgetSet {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_day_micro_usd: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_month_micro_usd: Option<u64>,
    },
    /// A turn brought an agent (or, no `agent`, the team) to 80 % of a limit, or to it
    /// (`reached`): told once per period and level (`told`, e.g. `day:2026-11-27:near`);
    /// `seat`: the agent's, which says so.
    BudgetCrossed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        told: String,
        words: String,
        #[serde(default)]
        reached: bool,
    },
    /// Any type this version does not know (written by a newer version). Ignored by
    /// the reducer.
    #[serde(other)]
    Unknown,
}
}
