//! What a spectator (a watch link) may see of the team: everything a tab sees but the
//! secret-bearing parts — invites and watch links, secrets' digests, and the inputs of
//! permission requests (a command line, a file's contents). The documents are filtered
//! (`doc`) and each event is replaced by what a spectator may see of it (`event`): an event
//! nothing of which is theirs stays in the log's numbering as one of a type nobody knows
//! (`unknown`), which every reducer ignores.

use std::borrow::Cow;

use super::docs::{Doc, Docs};
use super::events::EventKind;

/// What a spectator sees of all of `docs`.
pub fn docs(docs: &Docs) -> Docs {
    docs.iter()
        .filter_map(|(id, d)| Some((id.clone(), doc(d)?.into_owned())))
        .collect()
}

/// What a spectator sees of `doc`; `None`: nothing.
pub fn doc(doc: &Doc) -> Option<Cow<'_, Doc>> {
    match doc {
        Doc::Invite(_) | Doc::Watch(_) => None,
        Doc::Identity(d) | Doc::Hall(d) if d.secret_hash.is_some() => {
            let mut d = d.as_ref().clone();
            d.secret_hash = None;
            Some(Cow::Owned(Doc::of_identity(d)))
        }
        Doc::Permission(p) => {
            let mut p = p.as_ref().clone();
            p.input = serde_json::Value::Null;
            p.description = None;
            p.suggestions = None;
            Some(Cow::Owned(Doc::Permission(Box::new(p))))
        }
        other => Some(Cow::Borrowed(other)),
    }
}

/// What a spectator sees of an event: itself, or (`Owned`) the event with what is not
/// theirs taken out.
pub fn event(kind: &EventKind) -> Cow<'_, EventKind> {
    match kind {
        EventKind::InviteMade { .. }
        | EventKind::InviteUsed { .. }
        | EventKind::WatchMade { .. }
        | EventKind::WatchRevoked { .. }
        | EventKind::SecretRotated { .. } => Cow::Owned(EventKind::Unknown),
        EventKind::AgentsSummoned { seats }
            if seats
                .iter()
                .any(|s| s.secret_hash.as_deref().is_some_and(|h| !h.is_empty())) =>
        {
            let mut seats = seats.clone();
            // Still seated as external agents, with no digest (an empty one stands for it).
            for s in seats.iter_mut().filter(|s| s.secret_hash.is_some()) {
                s.secret_hash = Some(String::new());
            }
            Cow::Owned(EventKind::AgentsSummoned { seats })
        }
        EventKind::PermissionRequest {
            seat,
            request_id,
            tool_name,
            tool_use_id,
            ..
        } => Cow::Owned(EventKind::PermissionRequest {
            seat: *seat,
            request_id: request_id.clone(),
            tool_name: tool_name.clone(),
            input: serde_json::Value::Null,
            description: None,
            suggestions: None,
            tool_use_id: tool_use_id.clone(),
        }),
        other => Cow::Borrowed(other),
    }
}
