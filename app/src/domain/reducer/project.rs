//! Projects and worktrees: a project is linked once and unlinked once (nothing is removed); an
//! identity has at most one worktree per project; a worktree made again is noted on the seat of
//! the identity it belongs to.

use super::super::docs::{
    identities, project_doc_id, worktree_doc_id, Doc, Note, ProjectDoc, Review, WorktreeDoc,
    NOTES_KEPT,
};
use super::super::events::{Event, EventKind};
use super::super::projects::{project, worktree};
use super::writes::Writes;

pub(super) fn apply(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::ProjectLinked {
            project_id,
            name,
            path,
            base,
            check,
        } if project(w.docs, project_id).is_none() => {
            let id = project_doc_id(project_id);
            w.put(
                id.clone(),
                Doc::Project(Box::new(ProjectDoc {
                    id,
                    project_id: project_id.clone(),
                    name: name.clone(),
                    path: path.clone(),
                    base: base.clone(),
                    check: check.clone(),
                    linked_at: ts,
                    unlinked_at: None,
                    extra: Default::default(),
                })),
            );
        }
        EventKind::ProjectUnlinked { project_id } => {
            if let Some(p) = project(w.docs, project_id).filter(|p| p.is_linked()) {
                let mut p = p.clone();
                p.unlinked_at = Some(ts);
                w.put(p.id.clone(), Doc::Project(Box::new(p)));
            }
        }
        EventKind::WorktreeMade { .. } => worktree_made(w, event),
        EventKind::WorktreeRemade { .. } => worktree_remade(w, event),
        _ => super::review::apply(w, event),
    }
}

/// A worktree made for an identity (once; for a linked project).
fn worktree_made(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    let EventKind::WorktreeMade {
        project_id,
        identity_id,
        agent,
        branch,
        path,
        started_from,
        parent_branch,
    } = &event.kind
    else {
        return;
    };
    if project(w.docs, project_id).is_none() || worktree(w.docs, project_id, identity_id).is_some()
    {
        return;
    }
    let id = worktree_doc_id(project_id, identity_id);
    w.put(
        id.clone(),
        Doc::Worktree(Box::new(WorktreeDoc {
            id,
            project_id: project_id.clone(),
            identity_id: identity_id.clone(),
            agent: agent.clone(),
            branch: branch.clone(),
            path: path.clone(),
            started_from: started_from.clone(),
            parent_branch: parent_branch.clone(),
            made_at: ts,
            remade_at: None,
            review: Review::Working,
            head: Some(started_from.clone()),
            changed_files: Vec::new(),
            uncommitted: Vec::new(),
            base_overlaps: Vec::new(),
            changed_count: 0,
            commits_ahead: 0,
            changed_at: None,
            comments: Vec::new(),
            approved_head: None,
            approved_base: None,
            merge: None,
            claim: None,
            extra: Default::default(),
        })),
    );
}

/// A worktree made again from its branch (removed or broken by hand): said on its seat.
fn worktree_remade(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    let EventKind::WorktreeRemade {
        project_id,
        identity_id,
        head,
        why,
        path,
    } = &event.kind
    else {
        return;
    };
    let Some(mut t) = worktree(w.docs, project_id, identity_id).cloned() else {
        return;
    };
    t.remade_at = Some(ts);
    if let Some(path) = path {
        t.path = path.clone();
    }
    let text = format!(
        "{}'s worktree of {} {why}: made again from its branch {} at {}.",
        t.agent,
        project(w.docs, project_id).map_or("a project", |p| p.name.as_str()),
        t.branch,
        head.get(..10).unwrap_or(head),
    );
    w.put(t.id.clone(), Doc::Worktree(Box::new(t)));
    let seat = identities(w.docs)
        .find(|d| d.identity_id.as_deref() == Some(identity_id.as_str()))
        .map(|d| d.grid_position);
    if let Some(seat) = seat {
        w.update(seat, |d| {
            if !d.notes.iter().any(|n| n.event_id == event.id) {
                d.notes.push(Note {
                    text,
                    at: ts,
                    event_id: event.id,
                });
                let over = d.notes.len().saturating_sub(NOTES_KEPT);
                d.notes.drain(..over);
            }
        });
    }
}
