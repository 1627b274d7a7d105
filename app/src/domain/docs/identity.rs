//! The identity document of a seat, `agent-identity:{pos}`, and what it knows of itself (its
//! status with the lazy defaults of older documents, the lead's belief, its inbox name).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::palette::{seat_style, FaceVariant};
use super::super::process::ProcessState;
use super::super::status::{lenient_status, AgentStatus, LeadBelief};
use super::super::work_cycle::WorkState;
use super::super::{Millis, Seat};

pub const TYPE_IDENTITY: &str = "agent-identity";
/// A retired identity in the Hall (`hall:{id}`): the identity's fields, under a type of its own,
/// so that nothing reading seats by type meets an agent that left its seat. Its `gridPosition`
/// is the seat it last held. Stores written before this type read it back as this type
/// (`Doc::from_value`).
pub const TYPE_HALL: &str = "hall-entry";

/// `agent-identity:{pos}`: the deterministic id of a seat's identity.
pub fn identity_id(seat: Seat) -> String {
    format!("{TYPE_IDENTITY}:{seat}")
}

/// The identity of the agent in one seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentIdentity {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient_status",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<AgentStatus>,
    /// Legacy boolean of the original; read by `agent_status` when `status` is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hatching: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gender: Option<String>,
    pub grid_position: Seat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face_variant: Option<FaceVariant>,
    /// The soul: what the agent wrote when it chose its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub individuation_artifact: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub soul_version: u32,
    /// The current version of its knowledge vault (0: none yet).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub vault_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_alive_at: Option<Millis>,
    /// The server session the agent was last alive in; its transcript is read from it on wake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_session_id: Option<String>,
    /// The Claude Code session id of the agent's last process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_message_id: Option<String>,
    /// The parent this identity had before that one retired (`parentUuid` is the adopter now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adopted_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_state: Option<ProcessState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_reason: Option<String>,
    /// When its process began the turn it is working on (none between turns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_since: Option<crate::domain::Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_state: Option<WorkState>,
    /// Context tokens after the last turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// Cost of the current or last process, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The last thing that went wrong for this seat (a stuck turn, a bad marker, a mailbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_problem: Option<Problem>,
    /// What happened to its process that the human should read in its thread (it woke, a turn
    /// was interrupted, it crashed): the newest [`NOTES_KEPT`], oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// The stable id of the identity sitting here (22-char base64url; older documents: their
    /// `uuid`). Name, souls, messages and lineage belong to it, not to the seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_id: Option<String>,
    /// In the Hall: when it left its seat, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_reason: Option<String>,
    /// In the Hall: when it was recalled to a seat (it is seated again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recalled_at: Option<Millis>,
    /// The agent's inbox name (`teams/{team}/inboxes/{inbox}.json`), derived from its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox: Option<String>,
    /// What the lead last said of this agent in this session (never applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_belief: Option<LeadBelief>,
    /// An external agent: a program that connects over `/ws/agent` rather than a Claude
    /// process the server starts. It is awake while connected; nothing wakes it but itself.
    #[serde(default, skip_serializing_if = "is_false")]
    pub external: bool,
    /// An external agent's secret, as a SHA-256 hex digest (the secret itself is never kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_hash: Option<String>,
    /// What the agent may do without asking ("always allow `Bash(cargo test:*)`"), oldest
    /// first; each change is a new `rules_version`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<super::super::rules::KeptRule>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rules_version: u32,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AgentIdentity {
    /// A fresh identity for `seat`, wearing the seat's palette.
    pub fn new(seat: Seat, status: AgentStatus) -> Self {
        let style = seat_style(seat);
        AgentIdentity {
            id: identity_id(seat),
            category: Some("identity".into()),
            status: Some(status),
            hatching: None,
            name: None,
            color_name: style.map(|s| s.color_name.to_string()),
            color: style.map(|s| s.color.to_string()),
            gender: style.map(|s| s.gender.to_string()),
            grid_position: seat,
            face_variant: style.map(|s| s.face()),
            individuation_artifact: None,
            soul_version: 0,
            vault_version: 0,
            created_at: None,
            last_alive_at: None,
            last_session_id: None,
            claude_session_id: None,
            uuid: None,
            parent_uuid: None,
            fork_message_id: None,
            adopted_from: None,
            process_state: None,
            process_reason: None,
            busy_since: None,
            work_state: None,
            context_tokens: None,
            cost_usd: None,
            last_problem: None,
            notes: Vec::new(),
            identity_id: None,
            retired_at: None,
            retired_reason: None,
            recalled_at: None,
            inbox: None,
            lead_belief: None,
            external: false,
            secret_hash: None,
            rules: Vec::new(),
            rules_version: 0,
            extra: Map::new(),
        }
    }

    /// The one place that knows the lazy defaults of stored identities: an explicit `status`
    /// wins; otherwise the legacy `hatching: true` means hatching, and anything else (missing,
    /// `hatching: false`, or a status this version does not know, such as the original's
    /// `unknown`) means sleeping.
    pub fn status(&self) -> AgentStatus {
        match (self.status, self.hatching) {
            (Some(status), _) => status,
            (None, Some(true)) => AgentStatus::Hatching,
            (None, _) => AgentStatus::Sleeping,
        }
    }

    /// Sets the status explicitly and drops the legacy boolean it supersedes.
    pub fn set_status(&mut self, status: AgentStatus) {
        self.status = Some(status);
        self.hatching = None;
    }

    /// The inbox name: the stored one, else (data written before it was stored) the name
    /// lower-cased when that is a valid inbox name, as it was then.
    pub fn inbox(&self) -> Option<String> {
        self.inbox
            .clone()
            .or_else(|| super::super::names::legacy_inbox(self.name.as_deref()?))
    }

    /// The stable id of this identity: its `identityId`, else its `uuid`, else (a document
    /// from before either) one derived from its seat, which only it ever had.
    pub fn stable_id(&self) -> String {
        self.identity_id
            .clone()
            .or_else(|| self.uuid.clone())
            .unwrap_or_else(|| format!("seat-{}", self.grid_position))
    }

    pub fn has_name(&self) -> bool {
        self.name.as_deref().is_some_and(|n| !n.trim().is_empty())
    }

    /// What the lead believes of this agent when it differs from the truth: `Some(true)` if it
    /// believes a sleeping agent awake, `Some(false)` if it believes an awake one asleep.
    pub fn believed_otherwise(&self) -> Option<bool> {
        let belief = self.lead_belief.as_ref()?;
        let alive = self.status() == AgentStatus::Alive;
        (self.has_name() && belief.alive != alive).then_some(belief.alive)
    }

    /// "Julian believes Lyra is asleep": the lead's belief in words, where it differs.
    pub fn belief_text(&self, lead_name: &str) -> Option<String> {
        let alive = self.believed_otherwise()?;
        let name = self.name.as_deref().unwrap_or("this agent");
        let state = if alive { "awake" } else { "asleep" };
        Some(format!("{lead_name} believes {name} is {state}"))
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How many thread notes an identity keeps (older ones are let go).
pub const NOTES_KEPT: usize = 20;

/// A line in an agent's thread about its process, not a message: it woke, was interrupted,
/// crashed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub text: String,
    pub at: Millis,
    /// The event it was noted at (orders it among the messages of the same moment).
    pub event_id: u64,
}

/// Something that went wrong, as the UI shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// A sentence about the agent, for the human.
    pub message: String,
    pub at: Millis,
    /// What a developer needs (a refused marker's raw text and the parser's error), shown
    /// only under "Technical".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}
