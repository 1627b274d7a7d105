//! Permission requests: the first request with an id is the request (a replay writes
//! nothing), a decision settles it, a routing changes only who it waits for.

use super::super::docs::{identity, AgentIdentity, Doc};
use super::super::events::{Event, EventKind};
use super::super::permissions::{
    permission_id, updates_for, Decision, PermissionDoc, PermissionState,
};
use super::super::SEATS;
use super::writes::Writes;

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::PermissionRequest { .. } => request(w, event),
        EventKind::PermissionDecision {
            request_id,
            decision,
            message,
            decided_by,
            suggestion,
            rule,
            ..
        } => w.settle(request_id, |p| {
            p.state = match decision {
                Decision::Allow | Decision::AllowAlways => PermissionState::Allowed,
                Decision::Deny => PermissionState::Denied,
            };
            if *decision == Decision::AllowAlways {
                p.remembered = updates_for(p, *suggestion).unwrap_or_default();
            }
            p.message = message.clone();
            p.decided_by = Some(*decided_by);
            p.decided_at = Some(event.ts);
            p.rule = rule.clone();
        }),
        EventKind::PermissionRouted {
            request_id,
            to,
            why,
            ..
        } => w.settle(request_id, |p| {
            // Still pending (settle writes nothing else): only who it waits for changes.
            p.with = Some(*to);
            p.routed_why = why.clone();
        }),
        _ => {}
    }
}

fn request(w: &mut Writes, event: &Event) {
    let EventKind::PermissionRequest {
        seat,
        request_id,
        tool_name,
        input,
        description,
        suggestions,
        tool_use_id,
    } = &event.kind
    else {
        return;
    };
    let id = permission_id(request_id);
    if *seat >= SEATS || w.docs.get(&id).is_some() {
        return;
    }
    let doc = PermissionDoc {
        id: id.clone(),
        seat: *seat,
        request_id: request_id.clone(),
        tool_name: tool_name.clone(),
        input: input.clone(),
        description: description.clone(),
        suggestions: suggestions.clone(),
        tool_use_id: tool_use_id.clone(),
        state: PermissionState::Pending,
        message: None,
        decided_by: None,
        created_at: event.ts,
        decided_at: None,
        remembered: Vec::new(),
        event_id: event.id,
        identity_id: identity(w.docs, *seat).map(AgentIdentity::stable_id),
        rule: None,
        with: None,
        routed_why: None,
        extra: Default::default(),
    };
    w.put(id, Doc::Permission(Box::new(doc)));
}
