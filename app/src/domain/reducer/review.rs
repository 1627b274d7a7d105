//! An agent's branch under review: what git saw in its worktree, the human's comments, a
//! review asked for, changes requested, an approval of one head, a merge from queued to merged
//! or refused, the files an agent claims. Each applies to a worktree that exists, and only as
//! its state allows (an approval lapses when the head moves; a merge over is not moved again).

use super::super::docs::{
    Claim, Doc, MergeNote, MergeState, Review, ReviewComment, WorktreeDoc, MAX_LISTED,
};
use super::super::events::{Event, EventKind};
use super::super::projects::worktree;
use super::writes::Writes;

/// Changes the worktree of `identity` in `project` if it exists.
fn update(w: &mut Writes, project: &str, identity: &str, f: impl FnOnce(&mut WorktreeDoc)) {
    let Some(before) = worktree(w.docs, project, identity).cloned() else {
        return;
    };
    let mut after = before.clone();
    f(&mut after);
    if after != before {
        w.put(after.id.clone(), Doc::Worktree(Box::new(after)));
    }
}

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::WorktreeChanged { .. } | EventKind::ReviewCommented { .. } => looked(w, event),
        EventKind::ReviewRequested { .. } | EventKind::ChangesRequested { .. } => asked(w, event),
        EventKind::BranchApproved { .. } => approved(w, event),
        EventKind::MergeMoved { .. } => merge_moved(w, event),
        EventKind::FilesClaimed { .. } => claimed(w, event),
        _ => {}
    }
}

/// What git saw of a worktree, a line commented.
fn looked(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::WorktreeChanged {
            project_id,
            identity_id,
            head,
            changed,
            uncommitted,
            changed_count,
            ahead,
            base_overlaps,
        } => update(w, project_id, identity_id, |t| {
            t.head = Some(head.clone());
            t.base_overlaps = base_overlaps.iter().take(MAX_LISTED).cloned().collect();
            t.changed_files = changed.iter().take(MAX_LISTED).cloned().collect();
            t.uncommitted = uncommitted.iter().take(MAX_LISTED).cloned().collect();
            t.changed_count = *changed_count;
            t.commits_ahead = *ahead;
            t.changed_at = Some(ts);
            // An approval is of one head: new commits need a new look.
            if t.review == Review::Approved && t.approved_head.as_deref() != Some(head.as_str()) {
                t.review = Review::Working;
                t.approved_head = None;
            }
        }),
        EventKind::ReviewCommented {
            project_id,
            identity_id,
            comment_id,
            file,
            line,
            text,
            code,
        } => update(w, project_id, identity_id, |t| {
            if !t.comments.iter().any(|c| &c.id == comment_id) {
                t.comments.push(ReviewComment {
                    id: comment_id.clone(),
                    file: file.clone(),
                    line: *line,
                    text: text.clone(),
                    code: code.clone(),
                    at: ts,
                    sent: false,
                });
            }
        }),
        _ => {}
    }
}

/// A review asked, changes asked.
fn asked(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::ReviewRequested {
            project_id,
            identity_id,
            ..
        } => update(w, project_id, identity_id, |t| {
            if !merging(t) && t.review != Review::Approved {
                t.review = Review::Requested;
            }
        }),
        EventKind::ChangesRequested {
            project_id,
            identity_id,
        } => update(w, project_id, identity_id, |t| {
            for c in t.comments.iter_mut() {
                c.sent = true;
            }
            if !merging(t) {
                t.review = Review::ChangesRequested;
                t.approved_head = None;
            }
        }),
        _ => {}
    }
}

/// A branch approved.
fn approved(w: &mut Writes, event: &Event) {
    let EventKind::BranchApproved {
        project_id,
        identity_id,
        head,
        base_head,
    } = &event.kind
    else {
        return;
    };
    update(w, project_id, identity_id, |t| {
        if !merging(t) {
            t.review = Review::Approved;
            t.approved_head = Some(head.clone());
            t.approved_base = base_head.clone();
        }
    });
}

/// A merge moved along its steps.
fn merge_moved(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    let EventKind::MergeMoved {
        project_id,
        identity_id,
        state,
        strategy,
        commit,
        why,
        files,
        output,
        exit,
    } = &event.kind
    else {
        return;
    };
    update(w, project_id, identity_id, |t| {
        if *state == MergeState::Queued {
            if !merging(t) {
                t.merge = Some(MergeNote {
                    state: MergeState::Queued,
                    strategy: strategy.clone().unwrap_or_else(|| "merge".into()),
                    asked_at: ts,
                    ended_at: None,
                    commit: None,
                    why: None,
                    files: Vec::new(),
                    output: String::new(),
                    exit: None,
                });
            }
            return;
        }
        let Some(m) = t.merge.as_mut().filter(|m| !m.state.is_over()) else {
            return;
        };
        m.state = *state;
        if let Some(o) = output {
            m.output = o.clone();
        }
        m.exit = exit.or(m.exit);
        m.commit = commit.clone().or(m.commit.take());
        m.why = why.clone().or(m.why.take());
        if !files.is_empty() {
            m.files = files.clone();
        }
        if state.is_over() {
            m.ended_at = Some(ts);
        }
        if *state == MergeState::Merged {
            t.review = Review::Merged;
            t.claim = None;
        }
    });
}

/// Files claimed.
fn claimed(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    let EventKind::FilesClaimed {
        project_id,
        identity_id,
        paths,
        why,
        until,
    } = &event.kind
    else {
        return;
    };
    update(w, project_id, identity_id, |t| {
        // No paths: the claim is let go (its time is up), unless a newer one holds longer.
        if paths.is_empty() {
            if t.claim.as_ref().is_some_and(|c| c.until <= *until) {
                t.claim = None;
            }
        } else {
            t.claim = Some(Claim {
                paths: paths.clone(),
                why: why.clone(),
                at: ts,
                until: *until,
            });
        }
    });
}

/// A merge of it is queued or running.
fn merging(t: &WorktreeDoc) -> bool {
    t.merge.as_ref().is_some_and(|m| !m.state.is_over())
}
