//! What an identity knows: a saved vault becomes a new version when it differs from the last
//! (within the vault's limits, whoever wrote the event); a work commit is kept as it was made.

use super::super::docs::{
    hall_id, identities, knowledge_doc_id, work_commit_id, AgentIdentity, Author, Doc,
    KnowledgeDoc, KnowledgeFiles, WorkCommitDoc,
};
use super::super::events::{Event, EventKind};
use super::super::knowledge::{changed, knowledge_at, within_limits};
use super::super::Seat;
use super::writes::Writes;

/// The identity `id` where it is now: its seat's document, or its Hall document.
fn find(w: &Writes, id: &str) -> Option<AgentIdentity> {
    identities(w.docs)
        .filter(|d| d.status().is_visible())
        .map(|d| d.grid_position)
        .find_map(|seat| w.current(seat).filter(|d| d.stable_id() == id))
        .or_else(|| w.docs.get(&hall_id(id)).and_then(Doc::as_hall).cloned())
}

/// A vault saved, or a work-state commit.
pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::VaultSaved {
            identity_id,
            author,
            author_name,
            reason,
            files,
        } => vault_saved(
            w,
            event,
            Saved {
                identity_id,
                author: *author,
                author_name,
                reason,
                files,
            },
        ),
        EventKind::WorkCommitted {
            seat,
            identity_id,
            sha,
            state,
            summary,
            files,
            by_agent,
        } => work_committed(
            w,
            event,
            Committed {
                seat: *seat,
                identity_id,
                sha,
                state,
                summary,
                files,
                by_agent: *by_agent,
            },
        ),
        _ => {}
    }
}

pub(super) struct Saved<'a> {
    pub identity_id: &'a str,
    pub author: Author,
    pub author_name: &'a Option<String>,
    pub reason: &'a Option<String>,
    pub files: &'a KnowledgeFiles,
}

fn vault_saved(w: &mut Writes, event: &Event, s: Saved<'_>) {
    let Some(mut who) = find(w, s.identity_id) else {
        return;
    };
    let (files, _) = within_limits(s.files.clone());
    let before = knowledge_at(w.docs, s.identity_id, who.vault_version)
        .map(|v| v.files.clone())
        .unwrap_or_default();
    let changed = changed(&before, &files);
    if changed.is_empty() {
        return;
    }
    who.vault_version += 1;
    let id = knowledge_doc_id(s.identity_id, who.vault_version);
    w.put(
        id.clone(),
        Doc::Knowledge(KnowledgeDoc {
            id,
            identity_id: s.identity_id.to_string(),
            version: who.vault_version,
            author: s.author,
            author_name: s.author_name.clone(),
            created_at: event.ts,
            reason: s.reason.clone(),
            files,
            changed,
            extra: Default::default(),
        }),
    );
    w.put(who.id.clone(), Doc::of_identity(who));
}

pub(super) struct Committed<'a> {
    pub seat: Seat,
    pub identity_id: &'a str,
    pub sha: &'a str,
    pub state: &'a Option<String>,
    pub summary: &'a str,
    pub files: &'a [String],
    pub by_agent: bool,
}

fn work_committed(w: &mut Writes, event: &Event, c: Committed<'_>) {
    let id = work_commit_id(c.sha);
    // A commit is what it was when it was first recorded.
    if c.sha.is_empty() || w.docs.contains_key(&id) {
        return;
    }
    w.put(
        id.clone(),
        Doc::WorkCommit(WorkCommitDoc {
            id,
            sha: c.sha.to_string(),
            identity_id: c.identity_id.to_string(),
            seat: c.seat,
            state: c.state.clone(),
            summary: c.summary.to_string(),
            files: c.files.to_vec(),
            by_agent: c.by_agent,
            created_at: event.ts,
            event_id: event.id,
            extra: Default::default(),
        }),
    );
}
