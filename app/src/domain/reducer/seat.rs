//! A seat's identity taking shape: the lead's seat at a session's start, a newborn registering
//! its name and soul (never a name someone seated has), and a soul rewritten as a new version.

use super::super::docs::{
    identities, identity, identity_soul_id, soul_id, AgentIdentity, Doc, Docs, SoulDoc,
};
use super::super::events::Event;
use super::super::status::AgentStatus;
use super::super::{Seat, LEAD_SEAT, SEATS};
use super::writes::Writes;

pub(super) fn session_start(w: &mut Writes, event: &Event, lead_name: &Option<String>) {
    let Some(lead_name) = lead_name else { return };
    match identity(w.docs, LEAD_SEAT) {
        Some(d) if d.name.as_deref() == Some(lead_name.as_str()) => {}
        Some(_) => w.update(LEAD_SEAT, |d| d.name = Some(lead_name.clone())),
        None => {
            // The lead sleeps until its process runs: liveness comes from the process.
            let mut d = AgentIdentity::new(LEAD_SEAT, AgentStatus::Sleeping);
            d.name = Some(lead_name.clone());
            d.created_at = Some(event.ts);
            w.put_identity(d);
        }
    }
}

/// The fields of an `agent_registered` event.
pub(super) struct Registration<'a> {
    pub seat: Seat,
    pub name: &'a str,
    pub color_name: &'a Option<String>,
    pub soul: &'a Option<String>,
    pub claude_session_id: &'a Option<String>,
    pub inbox: &'a Option<String>,
}

/// Whether another seated identity than `seat`'s has `name` (any case) or `inbox` already.
/// The runtime checks names fully (Unicode-folded) before it records a registration; this is
/// the law's backstop, so that no log, however written, seats two agents under one name.
fn name_taken(docs: &Docs, seat: Seat, name: &str, inbox: Option<&str>) -> bool {
    let lower = name.trim().to_lowercase();
    identities(docs)
        .filter(|d| d.grid_position != seat && d.status().is_visible() && d.has_name())
        .any(|d| {
            d.name.as_deref().map(|n| n.trim().to_lowercase()) == Some(lower.clone())
                || (inbox.is_some() && d.inbox().as_deref() == inbox)
        })
}

pub(super) fn register(w: &mut Writes, event: &Event, r: Registration<'_>) {
    let Registration {
        seat,
        name,
        color_name,
        soul,
        claude_session_id,
        inbox,
    } = r;
    if seat >= SEATS || name.trim().is_empty() {
        return;
    }
    if name_taken(w.docs, seat, name, inbox.as_deref()) {
        return;
    }
    let mut d = identity(w.docs, seat)
        .cloned()
        .unwrap_or_else(|| AgentIdentity::new(seat, AgentStatus::Hatching));
    if d.status() == AgentStatus::Expired {
        // Too late: the placeholder expired. A new SUMMON gives the seat a fresh egg.
        return;
    }
    if let Some(inbox) = inbox {
        d.inbox = Some(inbox.clone());
    }
    d.name = Some(name.to_string());
    if let Some(c) = color_name {
        d.color_name = Some(c.clone());
    }
    if let Some(id) = claude_session_id {
        d.claude_session_id = Some(id.clone());
    }
    d.created_at.get_or_insert(event.ts);
    if let Some(soul) = soul {
        write_soul(w, event, &mut d, soul);
    }
    mark_alive(&mut d, event);
    w.put_identity(d);
}

/// A new version of `d`'s soul, when `soul` is not empty and differs from the current one (so a
/// replayed event writes nothing new).
pub(super) fn write_soul(w: &mut Writes, event: &Event, d: &mut AgentIdentity, soul: &str) {
    if soul.trim().is_empty() || d.individuation_artifact.as_deref() == Some(soul) {
        return;
    }
    d.soul_version += 1;
    d.individuation_artifact = Some(soul.to_string());
    // Souls belong to the identity; one without an id (older data) keeps the seat's.
    let owner = d.identity_id.clone().or_else(|| d.uuid.clone());
    let id = match &owner {
        Some(owner) => identity_soul_id(owner, d.soul_version),
        None => soul_id(d.grid_position, d.soul_version),
    };
    w.put(
        id.clone(),
        Doc::Soul(SoulDoc {
            id,
            seat: d.grid_position,
            version: d.soul_version,
            name: d.name.clone(),
            text: soul.to_string(),
            created_at: event.ts,
            identity_id: owner,
            extra: Default::default(),
        }),
    );
}

pub(super) fn mark_alive(d: &mut AgentIdentity, event: &Event) {
    d.set_status(AgentStatus::Alive);
    d.last_alive_at = Some(event.ts);
    d.last_session_id = Some(event.session_id.clone());
}
