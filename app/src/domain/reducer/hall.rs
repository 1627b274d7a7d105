//! Identities leaving their seats and coming back: `agent_killed` retires the identity in a
//! seat to the Hall with everything it was (the seat is empty after); `agent_recalled` seats a
//! retired identity again, asleep, in an empty seat. Nothing is deleted: the Hall document keeps
//! the identity, and its messages and souls are marked as its own before the seat is given up.

use super::super::docs::AgentIdentity;
use super::super::docs::{
    hall_id, identity, identity_id, messages, Doc, Docs, MessageDoc, SoulDoc, TYPE_SOUL,
};
use super::super::events::{Event, EventKind};
use super::super::palette::{fork_tint, fork_tint_name};
use super::super::status::AgentStatus;
use super::super::{Seat, LEAD_SEAT, SEATS};
use super::writes::Writes;

/// Retires the identity in `seat` (not the lead's; an empty seat is left as it is).
/// A retirement, a recall, a fork or a soul brought in.
pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::AgentKilled { seat, reason } => retire(w, event, *seat, reason),
        EventKind::AgentRecalled { identity_id, seat } => recall(w, event, identity_id, *seat),
        EventKind::AgentForked {
            seat,
            uuid,
            parent_id,
            fork_message_id,
        } => fork(w, event, *seat, uuid, parent_id, fork_message_id),
        EventKind::AgentImported(agent) => import(w, event, agent),
        _ => {}
    }
}

fn retire(w: &mut Writes, event: &Event, seat: Seat, reason: &Option<String>) {
    if seat == LEAD_SEAT || seat >= SEATS {
        return;
    }
    let Some(d) = identity(w.docs, seat)
        .filter(|d| d.status().is_visible())
        .cloned()
    else {
        return;
    };
    let id = d.stable_id();
    w.cancel_pending(Some(seat), event, "the agent was retired");
    super::ledger::count(w, event, super::ledger::Report::stopped(seat, "retired"));
    // What was written before messages and souls had owners is the retiring identity's.
    for m in unowned_messages(w.docs, seat) {
        let mut m = m.clone();
        m.identity_id = Some(id.clone());
        w.put(m.id.clone(), Doc::Message(m));
    }
    for s in unowned_souls(w.docs, seat) {
        let mut s = s.clone();
        s.identity_id = Some(id.clone());
        w.put(s.id.clone(), Doc::Soul(s));
    }
    // Its seated children are re-parented to its parent (or the lead): lineage stays whole.
    let new_parent = d
        .parent_uuid
        .clone()
        .or_else(|| identity(w.docs, LEAD_SEAT).map(AgentIdentity::stable_id));
    for child in super::super::docs::identities(w.docs)
        .filter(|c| c.status().is_visible() && c.parent_uuid.as_deref() == Some(id.as_str()))
        .map(|c| c.grid_position)
        .collect::<Vec<_>>()
    {
        w.update(child, |c| {
            c.parent_uuid = new_parent.clone();
            c.adopted_from = Some(id.clone());
        });
    }
    let mut retired = d.clone();
    retired.id = hall_id(&id);
    retired.identity_id = Some(id);
    retired.retired_at = Some(event.ts);
    retired.retired_reason = reason.clone();
    retired.recalled_at = None;
    retired.set_status(AgentStatus::Sleeping);
    retired.process_state = None;
    retired.process_reason = None;
    retired.busy_since = None;
    retired.work_state = None;
    retired.lead_belief = None;
    w.put(retired.id.clone(), Doc::Hall(Box::new(retired)));
    // The seat is empty: a placeholder that counts as vacant, keeping the seat's palette.
    let mut empty = AgentIdentity::new(seat, AgentStatus::Expired);
    empty.created_at = Some(event.ts);
    w.put_identity(empty);
}

/// Seats the retired identity `id` in the empty `seat`, asleep; a name taken meanwhile (any
/// case) by someone seated, an occupied seat or an identity not in the Hall change nothing.
fn recall(w: &mut Writes, event: &Event, id: &str, seat: Seat) {
    if seat == LEAD_SEAT || seat >= SEATS {
        return;
    }
    let Some(retired) = w
        .docs
        .get(&hall_id(id))
        .and_then(Doc::as_hall)
        .filter(|d| d.retired_at.is_some() && d.recalled_at.is_none())
        .cloned()
    else {
        return;
    };
    if identity(w.docs, seat).is_some_and(|d| d.status().is_visible()) {
        return;
    }
    let name = retired.name.as_deref().unwrap_or_default().to_lowercase();
    let taken = super::super::docs::identities(w.docs).any(|d| {
        d.status().is_visible()
            && d.name.as_deref().map(str::to_lowercase).as_deref() == Some(name.as_str())
    });
    if taken {
        return;
    }
    let mut seated = retired.clone();
    seated.id = identity_id(seat);
    seated.grid_position = seat;
    // The identity keeps its colour and face wherever it sits.
    seated.retired_at = None;
    seated.retired_reason = None;
    seated.set_status(AgentStatus::Sleeping);
    w.put_identity(seated);
    let mut hall = retired;
    hall.recalled_at = Some(event.ts);
    w.put(hall.id.clone(), Doc::Hall(Box::new(hall)));
}

/// A child forked from `parent_id` hatches in the empty `seat` (not the lead's).
fn fork(
    w: &mut Writes,
    event: &Event,
    seat: Seat,
    uuid: &str,
    parent_id: &str,
    fork_message_id: &Option<String>,
) {
    if seat == LEAD_SEAT || seat >= SEATS {
        return;
    }
    if identity(w.docs, seat).is_some_and(|d| d.status().is_visible()) {
        return;
    }
    let mut child = AgentIdentity::new(seat, AgentStatus::Hatching);
    // Kin at a glance: a tint of its parent's colour.
    let parent = super::super::docs::identity_by_id(w.docs, parent_id)
        .or_else(|| w.docs.get(&hall_id(parent_id)).and_then(Doc::as_hall));
    if let Some(p) = parent {
        if let Some(tint) = p.color.as_deref().and_then(fork_tint) {
            child.color = Some(tint);
            child.color_name = p.color_name.as_deref().map(fork_tint_name);
        }
    }
    child.created_at = Some(event.ts);
    child.uuid = Some(uuid.to_string());
    child.identity_id = Some(uuid.to_string());
    child.parent_uuid = Some(parent_id.to_string());
    child.fork_message_id = fork_message_id.clone();
    w.put_identity(child);
}

fn unowned_messages(docs: &Docs, seat: Seat) -> Vec<&MessageDoc> {
    messages(docs)
        .filter(|m| m.seat == seat && m.identity_id.is_none())
        .collect()
}

fn unowned_souls(docs: &Docs, seat: Seat) -> Vec<&SoulDoc> {
    docs.range(format!("{TYPE_SOUL}:")..format!("{TYPE_SOUL};"))
        .filter_map(|(_, d)| d.as_soul())
        .filter(|s| s.seat == seat && s.identity_id.is_none())
        .collect()
}

/// An identity from another team enters the Hall with everything it was; one whose id is here
/// already (seated or in the Hall) is not brought twice.
fn import(w: &mut Writes, event: &Event, a: &super::super::imported::ImportedAgent) {
    use super::super::docs::{
        claude_session_doc_id, identity_by_id, identity_soul_id, knowledge_doc_id, ledger_id,
        work_commit_id,
    };
    let id = a.identity.stable_id();
    if identity_by_id(w.docs, &id).is_some()
        || w.docs.contains_key(&hall_id(&id))
        || a.lived.contradiction(&id).is_some()
    {
        return;
    }
    let mut h = a.identity.clone();
    h.id = hall_id(&id);
    h.identity_id = Some(id.clone());
    h.name = Some(a.name.clone());
    h.inbox = Some(a.inbox.clone());
    h.retired_at = Some(event.ts);
    h.retired_reason = Some(match &a.from_team {
        Some(team) => format!("brought from the team {team}"),
        None => "brought from another team".to_string(),
    });
    h.recalled_at = None;
    h.set_status(AgentStatus::Sleeping);
    (h.process_state, h.process_reason, h.work_state) = (None, None, None);
    (h.lead_belief, h.last_problem) = (None, None);
    // An external agent from elsewhere comes without its secret: a file must never be a way
    // in. It connects once the human has given it a new one.
    h.secret_hash = None;
    w.put(h.id.clone(), Doc::Hall(Box::new(h)));
    let mut put_new = |key: String, doc: Doc| {
        if !w.docs.contains_key(&key) {
            w.put(key, doc);
        }
    };
    for s in &a.lived.souls {
        let mut s = s.clone();
        s.identity_id = Some(id.clone());
        s.id = identity_soul_id(&id, s.version);
        put_new(s.id.clone(), Doc::Soul(s));
    }
    for m in &a.lived.messages {
        let mut m = m.clone();
        m.identity_id = Some(id.clone());
        put_new(m.id.clone(), Doc::Message(m));
    }
    for v in &a.lived.vault {
        let mut v = v.clone();
        v.identity_id = id.clone();
        v.id = knowledge_doc_id(&id, v.version);
        put_new(v.id.clone(), Doc::Knowledge(v));
    }
    for c in &a.lived.commits {
        let mut c = c.clone();
        c.identity_id = id.clone();
        c.id = work_commit_id(&c.sha);
        put_new(c.id.clone(), Doc::WorkCommit(c));
    }
    if let Some(l) = &a.lived.ledger {
        let mut l = l.clone();
        l.identity_id = id.clone();
        l.id = ledger_id(&id);
        put_new(l.id.clone(), Doc::Ledger(l));
    }
    for s in &a.lived.sessions {
        let mut s = s.clone();
        s.identity_id = id.clone();
        s.id = claude_session_doc_id(&s.claude_session_id);
        put_new(s.id.clone(), Doc::ClaudeSession(Box::new(s)));
    }
}
