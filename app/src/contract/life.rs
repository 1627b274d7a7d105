//! An identity's whole life (`GET /api/agents/{id}`).

use serde::{Deserialize, Serialize};

use crate::domain::Seat;

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
