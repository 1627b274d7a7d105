//! The request and response bodies of the JSON API, shared by the handlers and the UI.

use serde::{Deserialize, Serialize};

use crate::domain::permissions::{Decision, PermissionState};
use crate::domain::Seat;

/// Every error of the API: `{"error": "..."}` with a fitting status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    pub error: String,
}

/// `POST /api/send`: a message from the human. It addresses a seat (`seat`); `targetAgent`, a
/// name compared case- and Unicode-folded, is kept for callers that know only names. With
/// neither, it goes to the lead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_agent: Option<String>,
}

/// `POST /api/agents/{pos}/kill`: retire the identity in a seat (`cascade`: its seated
/// descendants too, deepest first).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KillRequest {
    #[serde(default)]
    pub cascade: bool,
}

/// The answer to a kill: the ids retired.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KillResponse {
    pub retired: Vec<String>,
}

/// One identity in the Hall (`GET /api/hall`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HallEntry {
    pub id: String,
    pub name: Option<String>,
    pub retired_at: crate::domain::Millis,
    pub reason: Option<String>,
    /// The first lines of its soul.
    pub soul: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

/// `POST /api/hall/{id}/recall`: into `seat`, or the first empty one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecallRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
}

/// The seat an operation filled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatResponse {
    pub seat: Seat,
}

/// A Hall entry from a retired identity document.
pub fn hall_entry(d: &crate::domain::docs::AgentIdentity) -> HallEntry {
    HallEntry {
        id: d.stable_id(),
        name: d.name.clone(),
        retired_at: d.retired_at.unwrap_or_default(),
        reason: d.retired_reason.clone(),
        soul: d
            .individuation_artifact
            .as_deref()
            .map(|s| s.lines().take(3).collect::<Vec<_>>().join("\n")),
        parent_id: d.parent_uuid.clone(),
    }
}

/// What happened to a message for an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Written to the running process's stdin.
    Delivered,
    /// The lead was not running: it was started with the message.
    Started,
    /// The agent sleeps: the message waits for its wake.
    Queued,
    /// The agent's process cannot be started: the lead was given the message instead.
    Relayed,
}

/// The answer to `POST /api/send` (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendResponse {
    pub event_id: u64,
    pub seat: Seat,
    pub delivery: Delivery,
}

/// `POST /api/agents/summon`: fill these empty seats (every empty seat when absent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummonRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<Seat>>,
}

/// `POST /api/agents/wake`: wake the sleeping agents in these seats (all of them when absent).
/// Other fields (payloads older pages sent) are ignored: the server builds every wake prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WakeRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<Seat>>,
}

/// The seats SUMMON or WAKE started (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatsResponse {
    pub seats: Vec<Seat>,
}

/// `POST /api/permissions/{id}`: the human's answer to a permission request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionAnswer {
    pub decision: Decision,
    /// For a denial: what the agent is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// With `allow_always`: the index of the one suggestion to apply (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<usize>,
}

/// Where a permission request stands after the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAnswered {
    pub request_id: String,
    pub state: PermissionState,
}

/// `POST /api/session/end`: the events that ended the session and began the next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnded {
    pub end_event_id: u64,
    pub session: String,
    pub start_event_id: u64,
}

/// `POST /api/agents/{pos}/fork`: a child from this agent's history, into `seat` or the first
/// empty one, with an optional first message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForkRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
}

/// One version of an identity's soul.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SoulVersion {
    pub version: u32,
    pub text: String,
    pub created_at: crate::domain::Millis,
}

/// One Claude session an identity lived in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub claude_session_id: String,
    pub started_at: crate::domain::Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<crate::domain::Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    /// Processes that lived in it (the lead resumes its session across processes).
    pub processes: u32,
    pub turns: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    pub tool_calls: u64,
}

/// Where a fork began: when, and the parent's last message then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkPoint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<crate::domain::Millis>,
}

/// `GET /api/agents/{id}`: one identity's whole life, seated or in the Hall.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    pub id: String,
    pub name: Option<String>,
    /// Its seat's status (`hatching | alive | sleeping`), or `retired` in the Hall.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<crate::domain::Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_point: Option<ForkPoint>,
    pub children: Vec<String>,
    pub souls: Vec<SoulVersion>,
    pub sessions: Vec<SessionView>,
    pub ledger: crate::domain::life::LedgerView,
    pub lineage: crate::domain::life::LineageNode,
}

/// The view of the identity `id`, seated or in the Hall; `None` for an id nobody has.
pub fn agent_view(docs: &crate::domain::docs::Docs, id: &str) -> Option<AgentView> {
    use crate::domain::docs::{identity_by_id, souls_of};
    use crate::domain::life::{children_of, ledger_view, lineage, sessions_of};
    let who = identity_by_id(docs, id)?;
    let id = who.stable_id();
    let retired = who.retired_at.is_some();
    Some(AgentView {
        name: who.name.clone(),
        status: if retired {
            "retired".into()
        } else {
            who.status().as_str().into()
        },
        seat: (!retired).then_some(who.grid_position),
        retired_at: who.retired_at,
        retired_reason: who.retired_reason.clone(),
        parent_id: who.parent_uuid.clone(),
        // Only forks have parents (an adopted child too: it was a fork of the one retired).
        fork_point: who.parent_uuid.as_ref().map(|_| ForkPoint {
            message_id: who.fork_message_id.clone(),
            at: who.created_at,
        }),
        children: children_of(docs, &id)
            .into_iter()
            .map(|c| c.stable_id())
            .collect(),
        souls: souls_of(docs, who)
            .into_iter()
            .map(|s| SoulVersion {
                version: s.version,
                text: s.text.clone(),
                created_at: s.created_at,
            })
            .collect(),
        sessions: sessions_of(docs, &id)
            .into_iter()
            .map(|s| SessionView {
                claude_session_id: s.claude_session_id.clone(),
                started_at: s.started_at,
                ended_at: s.ended_at,
                end_reason: s.end_reason.clone(),
                processes: s.processes,
                turns: s.turns,
                input_tokens: s.input_tokens,
                output_tokens: s.output_tokens,
                cost_usd: s.cost_usd(),
                tool_calls: s.tool_calls,
            })
            .collect(),
        ledger: ledger_view(docs, who),
        lineage: lineage(docs, &id)?,
        id,
    })
}

/// `GET /api/docs`: every document, and the id of the last event they include.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocsResponse {
    pub docs: crate::domain::docs::Docs,
    pub last_event_id: u64,
}

/// `GET /healthz`: `{"ok": true}`, and (to a caller with the token, or on loopback without
/// one) what the server runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub ok: bool,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub server: Option<HealthDetail>,
}

impl Health {
    /// Only that it answers.
    pub fn default_ok() -> Self {
        Health {
            ok: true,
            server: None,
        }
    }
}

/// What a server runs, for `GET /healthz`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthDetail {
    /// The Claude command, or that it is simulated.
    pub claude: String,
    pub simulated: bool,
    /// The seats with a running process.
    pub running: Vec<Seat>,
    /// The server session.
    pub session: String,
    pub last_event_id: u64,
    pub version: String,
}
