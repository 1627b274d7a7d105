//! The life of an identity, as its page and `GET /api/agents/{id}` show it: its lineage, its
//! Claude sessions and its ledger.
//!
//! Lineage: who forked from whom. Every identity (seated or in the Hall) names its parent by
//! stable id (`parentUuid`); a child whose parent retired was adopted by the grandparent (or the
//! lead) and remembers whom it was adopted from. Lineage is acyclic (a reducer law); the queries
//! here stop at a repeated id all the same, so a hand-edited store cannot hang them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::docs::{
    claude_session_doc_id, hall, identities, ledger_id, permissions, AgentIdentity,
    ClaudeSessionDoc, Doc, Docs, LedgerDoc, TYPE_CLAUDE_SESSION,
};
use super::permissions::PermissionState;
use super::{Millis, Seat};

/// Every identity there is: the seated ones, then the ones in the Hall.
pub fn every_identity(docs: &Docs) -> impl Iterator<Item = &AgentIdentity> {
    identities(docs)
        .filter(|d| d.status().is_visible())
        .chain(hall(docs))
}

/// The identities whose parent is `id`, oldest first.
pub fn children_of<'a>(docs: &'a Docs, id: &str) -> Vec<&'a AgentIdentity> {
    let mut v: Vec<&AgentIdentity> = every_identity(docs)
        .filter(|d| d.parent_uuid.as_deref() == Some(id))
        .collect();
    v.sort_by_key(|d| (d.created_at, d.stable_id()));
    v
}

/// One identity in a lineage tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageNode {
    pub id: String,
    pub name: Option<String>,
    /// Its seat, when it is seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// When it left for the Hall, when it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<Millis>,
    /// For a fork: when it was made and the parent's last message then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_message_id: Option<String>,
    /// The parent it had before that one retired (it was adopted since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adopted_from: Option<String>,
    #[serde(default)]
    pub children: Vec<LineageNode>,
}

/// The family tree `id` belongs to, from its oldest known ancestor down; `None` for an unknown
/// id.
pub fn lineage(docs: &Docs, id: &str) -> Option<LineageNode> {
    let find = |id: &str| every_identity(docs).find(|d| d.stable_id() == id);
    let mut root = find(id)?;
    let mut seen = BTreeSet::from([root.stable_id()]);
    while let Some(parent) = root.parent_uuid.as_deref().and_then(find) {
        if !seen.insert(parent.stable_id()) {
            break;
        }
        root = parent;
    }
    let mut seen = BTreeSet::new();
    Some(node(docs, root, &mut seen))
}

fn node(docs: &Docs, who: &AgentIdentity, seen: &mut BTreeSet<String>) -> LineageNode {
    let id = who.stable_id();
    seen.insert(id.clone());
    let children = children_of(docs, &id)
        .into_iter()
        .filter(|c| !seen.contains(&c.stable_id()))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|c| node(docs, c, seen))
        .collect();
    LineageNode {
        id,
        name: who.name.clone(),
        seat: who.retired_at.is_none().then_some(who.grid_position),
        retired_at: who.retired_at,
        forked_at: who.parent_uuid.as_ref().and(who.created_at),
        fork_message_id: who.fork_message_id.clone(),
        adopted_from: who.adopted_from.clone(),
        children,
    }
}

/// The ledger of the identity `id`, if anything was counted for it.
pub fn ledger_of<'a>(docs: &'a Docs, id: &str) -> Option<&'a LedgerDoc> {
    docs.get(&ledger_id(id)).and_then(Doc::as_ledger)
}

/// The Claude session `session`, if a process ever lived in it.
pub fn claude_session<'a>(docs: &'a Docs, session: &str) -> Option<&'a ClaudeSessionDoc> {
    docs.get(&claude_session_doc_id(session))
        .and_then(Doc::as_claude_session)
}

/// The Claude sessions `id` lived in, oldest first.
pub fn sessions_of<'a>(docs: &'a Docs, id: &str) -> Vec<&'a ClaudeSessionDoc> {
    let mut v: Vec<&ClaudeSessionDoc> = docs
        .range(format!("{TYPE_CLAUDE_SESSION}:")..format!("{TYPE_CLAUDE_SESSION};"))
        .filter_map(|(_, d)| d.as_claude_session())
        .filter(|s| s.identity_id == id)
        .collect();
    v.sort_by(|a, b| {
        (a.started_at, &a.claude_session_id).cmp(&(b.started_at, &b.claude_session_id))
    });
    v
}

/// Everything an identity used and did over its whole life.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerView {
    pub cost_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub turns: u64,
    /// Tool calls begun, by tool.
    pub tool_calls: BTreeMap<String, u64>,
    pub permissions_approved: u64,
    pub permissions_denied: u64,
    pub messages_sent: u64,
    pub messages_received: u64,
}

/// The ledger of `who`: what its processes reported, the permission requests it made that
/// were answered, and the messages of its thread (its own, and everyone else's to it).
pub fn ledger_view(docs: &Docs, who: &AgentIdentity) -> LedgerView {
    let id = who.stable_id();
    let mut v = LedgerView::default();
    if let Some(l) = ledger_of(docs, &id) {
        v.cost_usd = l.cost_usd();
        v.input_tokens = l.input_tokens;
        v.output_tokens = l.output_tokens;
        v.turns = l.turns;
        v.messages_sent = l.messages_sent;
        v.messages_received = l.messages_received;
        v.tool_calls = l.tools.clone();
    }
    let seated = who.retired_at.is_none();
    for p in permissions(docs).filter(|p| match &p.identity_id {
        Some(owner) => *owner == id,
        // Older requests had no owner: the seat's, since this identity came.
        None => {
            seated
                && p.seat == who.grid_position
                && who.created_at.is_none_or(|c| p.created_at >= c)
        }
    }) {
        match p.state {
            PermissionState::Allowed => v.permissions_approved += 1,
            PermissionState::Denied => v.permissions_denied += 1,
            _ => {}
        }
    }
    v
}
