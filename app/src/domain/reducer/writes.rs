//! The writes one event makes, collected so that the event sees its own earlier writes.

use super::super::docs::{self, identity, identity_id, AgentIdentity, Doc, DocWrite, Docs};
use super::super::events::Event;
use super::super::permissions::{permission_id, PermissionDoc, PermissionState};
use super::super::Seat;

/// Collects writes, and sees its own earlier writes when one event touches a document twice.
pub(super) struct Writes<'a> {
    pub docs: &'a Docs,
    out: Vec<DocWrite>,
}

impl<'a> Writes<'a> {
    pub fn new(docs: &'a Docs) -> Self {
        Writes {
            docs,
            out: Vec::new(),
        }
    }

    pub fn current(&self, seat: Seat) -> Option<AgentIdentity> {
        let id = identity_id(seat);
        self.out
            .iter()
            .rev()
            .find(|w| w.id == id)
            .and_then(|w| w.doc.as_identity())
            .or_else(|| identity(self.docs, seat))
            .cloned()
    }

    /// Changes an existing identity; writes only when something changed.
    pub fn update(&mut self, seat: Seat, f: impl FnOnce(&mut AgentIdentity)) {
        let Some(before) = self.current(seat) else {
            return;
        };
        let mut after = before.clone();
        f(&mut after);
        if after != before {
            self.put_identity(after);
        }
    }

    /// Changes the identity `id` (a stable id) where it is: in its seat, or in the Hall.
    pub fn update_by_id(&mut self, id: &str, f: impl FnOnce(&mut AgentIdentity)) {
        let seated = docs::identities(self.docs)
            .find(|d| d.stable_id() == id && d.status().is_visible())
            .map(|d| d.grid_position);
        match seated {
            Some(seat) => self.update(seat, f),
            None => {
                let hall = docs::hall_id(id);
                let Some(before) = self.docs.get(&hall).and_then(Doc::as_hall) else {
                    return;
                };
                let mut after = before.clone();
                f(&mut after);
                if after != *before {
                    self.put(hall, Doc::Hall(Box::new(after)));
                }
            }
        }
    }

    pub fn put_identity(&mut self, d: AgentIdentity) {
        self.put(d.id.clone(), Doc::Identity(Box::new(d)));
    }

    /// The document `id` as this event last wrote it, if it did.
    pub fn written(&self, id: &str) -> Option<Doc> {
        self.out
            .iter()
            .rev()
            .find(|w| w.id == id)
            .map(|w| w.doc.clone())
    }

    pub fn put(&mut self, id: String, doc: Doc) {
        if self.docs.get(&id) != Some(&doc) {
            self.out.push(DocWrite { id, doc });
        }
    }

    pub fn finish(self) -> Vec<DocWrite> {
        self.out
    }

    /// Settles the pending request `request_id`; a settled or unknown request stays as it is.
    pub fn settle(&mut self, request_id: &str, f: impl FnOnce(&mut PermissionDoc)) {
        let id = permission_id(request_id);
        let Some(mut p) = self.docs.get(&id).and_then(Doc::as_permission).cloned() else {
            return;
        };
        if p.is_pending() {
            f(&mut p);
            self.put(id, Doc::Permission(Box::new(p)));
        }
    }

    /// Cancels the pending requests of `seat` (of every seat when `None`): nobody can answer
    /// them once the asking process is gone.
    pub fn cancel_pending(&mut self, seat: Option<Seat>, event: &Event, why: &str) {
        let stale: Vec<PermissionDoc> = docs::permissions(self.docs)
            .filter(|p| p.is_pending() && seat.is_none_or(|s| s == p.seat))
            .cloned()
            .collect();
        for mut p in stale {
            p.state = PermissionState::Cancelled;
            p.message = Some(why.to_string());
            p.decided_at = Some(event.ts);
            self.put(p.id.clone(), Doc::Permission(Box::new(p)));
        }
    }
}
