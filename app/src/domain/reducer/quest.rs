//! Quests, findings, artifacts and jobs: each event applies only as the quest machine and the
//! board's rules allow (a finding belongs to the running stage, a stage ends once, a job is
//! claimed once); anything else writes nothing.

use super::super::docs::{
    artifact_doc_id, finding_doc_id, job_doc_id, quest_doc_id, ArtifactDoc, Comment, Doc,
    FindingDoc, JobDoc, JobStatus, QuestDoc, QuestStatus, StageAgent,
};
use super::super::events::{Event, EventKind};
use super::super::quest::{artifacts_of, can_move, quest, report_of};
use super::writes::Writes;

fn put(w: &mut Writes, q: QuestDoc) {
    w.put(q.id.clone(), Doc::Quest(Box::new(q)));
}

/// Changes the quest `id` if it exists.
fn update(w: &mut Writes, id: &str, f: impl FnOnce(&mut QuestDoc)) {
    let Some(before) = quest(w.docs, id).cloned() else {
        return;
    };
    let mut after = before.clone();
    f(&mut after);
    if after != before {
        put(w, after);
    }
}

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::QuestStarted { .. } | EventKind::QuestPlanned { .. } => started(w, event),
        EventKind::QuestMoved { .. }
        | EventKind::StageJoined { .. }
        | EventKind::StageAgentDone { .. }
        | EventKind::StageEnded { .. } => stages(w, event),
        EventKind::FindingPosted { .. } | EventKind::FindingMarked { .. } => findings(w, event),
        EventKind::ArtifactWritten { .. } => artifacts(w, event),
        EventKind::JobPosted { .. } | EventKind::JobClaimed { .. } | EventKind::JobDone { .. } => {
            jobs(w, event)
        }
        _ => {}
    }
}

/// A quest started, and its plan.
fn started(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::QuestStarted {
            quest_id,
            problem,
            folder,
            project,
        } if quest(w.docs, quest_id).is_none() => put(
            w,
            QuestDoc {
                id: quest_doc_id(quest_id),
                quest_id: quest_id.clone(),
                problem: problem.clone(),
                folder: folder.clone(),
                project: project.clone(),
                status: QuestStatus::Analysing,
                stage: None,
                template: None,
                stages: Vec::new(),
                created_at: ts,
                ended_at: None,
                end_reason: None,
                extra: Default::default(),
            },
        ),
        EventKind::QuestPlanned {
            quest_id,
            template,
            stages,
        } => update(w, quest_id, |q| {
            if q.status == QuestStatus::Analysing && q.stages.is_empty() {
                q.template = Some(template.clone());
                q.stages = stages
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let mut s = s.clone();
                        s.index = i as u32;
                        s.done.clear();
                        (s.started_at, s.ended_at, s.end_reason, s.progress_at) =
                            (None, None, None, None);
                        s
                    })
                    .collect();
            }
        }),
        _ => {}
    }
}

/// A quest's stages: moved, joined, an agent done, ended.
fn stages(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::QuestMoved {
            quest_id,
            status,
            stage,
            reason,
        } => {
            let has_report = report_of(w.docs, quest_id).is_some();
            update(w, quest_id, |q| {
                if can_move(q, *status, *stage, has_report).is_ok() {
                    moved(q, *status, *stage, reason, ts);
                }
            })
        }
        EventKind::StageJoined {
            quest_id,
            stage,
            agent,
            replaces,
        } => update(w, quest_id, |q| {
            let Some(s) = running(q, *stage) else {
                return;
            };
            if s.has(agent) {
                return;
            }
            let place = replaces
                .as_deref()
                .and_then(|r| s.agents.iter_mut().find(|a| a.name.eq_ignore_ascii_case(r)));
            match place {
                Some(a) => a.name = agent.clone(),
                None => s.agents.push(StageAgent {
                    name: agent.clone(),
                    role: None,
                    persona: None,
                }),
            }
            s.progress_at = Some(ts);
        }),
        EventKind::StageAgentDone {
            quest_id,
            stage,
            agent,
        } => update(w, quest_id, |q| {
            if let Some(s) = running(q, *stage) {
                let done = s.done.iter().any(|d| d.eq_ignore_ascii_case(agent));
                if s.has(agent) && !done {
                    s.done.push(agent.clone());
                    s.progress_at = Some(ts);
                }
            }
        }),
        EventKind::StageEnded {
            quest_id,
            stage,
            reason,
        } => update(w, quest_id, |q| {
            if let Some(s) = running(q, *stage) {
                s.ended_at = Some(ts);
                s.end_reason = Some(reason.clone());
            }
        }),
        _ => {}
    }
}

/// `q` moved to `status` (a stage begun, or the quest ended and its running stage with it).
fn moved(
    q: &mut QuestDoc,
    status: QuestStatus,
    stage: Option<u32>,
    reason: &Option<String>,
    ts: super::super::Millis,
) {
    q.status = status;
    match status {
        QuestStatus::Stage => {
            let i = stage.unwrap_or_default();
            q.stage = Some(i);
            if let Some(s) = q.stages.get_mut(i as usize) {
                s.started_at = Some(ts);
                s.progress_at = Some(ts);
            }
        }
        QuestStatus::Done | QuestStatus::Abandoned => {
            q.ended_at = Some(ts);
            q.end_reason = reason.clone();
            for s in q.stages.iter_mut().filter(|s| s.is_running()) {
                s.ended_at = Some(ts);
                s.end_reason = Some("the quest ended".into());
            }
        }
        _ => {}
    }
}

/// A finding posted or marked.
fn findings(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::FindingPosted {
            quest_id,
            finding_id,
            stage,
            seat,
            agent,
            title,
            body,
            severity,
            file,
            line,
        } => {
            let id = finding_doc_id(quest_id, finding_id);
            let open = quest(w.docs, quest_id).is_some_and(|q| {
                q.current()
                    .is_some_and(|s| s.index == *stage && s.is_running())
            });
            if !open || w.docs.contains_key(&id) {
                return;
            }
            let identity_id = w.current(*seat).map(|d| d.stable_id());
            w.put(
                id.clone(),
                Doc::Finding(Box::new(FindingDoc {
                    id,
                    quest_id: quest_id.clone(),
                    finding_id: finding_id.clone(),
                    stage: *stage,
                    seat: *seat,
                    agent: agent.clone(),
                    identity_id,
                    title: title.clone(),
                    body: body.clone(),
                    severity: *severity,
                    file: file.clone(),
                    line: *line,
                    pinned: false,
                    struck: false,
                    comments: Vec::new(),
                    created_at: ts,
                    event_id: event.id,
                    extra: Default::default(),
                })),
            );
            update(w, quest_id, |q| {
                if let Some(s) = running(q, *stage) {
                    s.progress_at = Some(ts);
                }
            });
        }
        EventKind::FindingMarked { .. } => marked(w, event),
        _ => {}
    }
}

/// `finding_marked`: pinned, struck or commented (a comment once per event).
fn marked(w: &mut Writes, event: &Event) {
    let EventKind::FindingMarked {
        quest_id,
        finding_id,
        pinned,
        struck,
        comment,
    } = &event.kind
    else {
        return;
    };
    let ts = event.ts;
    let id = finding_doc_id(quest_id, finding_id);
    let Some(mut f) = w.docs.get(&id).and_then(Doc::as_finding).cloned() else {
        return;
    };
    if let Some(p) = pinned {
        f.pinned = *p;
    }
    if let Some(s) = struck {
        f.struck = *s;
    }
    let new = comment.as_ref().filter(|c| !c.trim().is_empty());
    if let Some(text) = new.filter(|_| !f.comments.iter().any(|c| c.event_id == event.id)) {
        f.comments.push(Comment {
            text: text.clone(),
            at: ts,
            event_id: event.id,
        });
    }
    w.put(id, Doc::Finding(Box::new(f)));
}

/// An artifact written: a new version only when something changed (a replay writes nothing).
fn artifacts(w: &mut Writes, event: &Event) {
    let EventKind::ArtifactWritten {
        quest_id,
        name,
        kind,
        stage,
        title,
        text,
    } = &event.kind
    else {
        return;
    };
    if quest(w.docs, quest_id).is_none() {
        return;
    }
    let latest = artifacts_of(w.docs, quest_id)
        .into_iter()
        .filter(|a| a.name == *name)
        .max_by_key(|a| a.version);
    if latest.is_some_and(|a| a.text == *text && a.title == *title) {
        return;
    }
    let version = latest.map_or(1, |a| a.version + 1);
    let id = artifact_doc_id(quest_id, name, version);
    w.put(
        id.clone(),
        Doc::Artifact(ArtifactDoc {
            id,
            quest_id: quest_id.clone(),
            name: name.clone(),
            kind: *kind,
            stage: *stage,
            title: title.clone(),
            version,
            text: text.clone(),
            created_at: event.ts,
            event_id: event.id,
            extra: Default::default(),
        }),
    );
}

/// A job posted, claimed or done.
fn jobs(w: &mut Writes, event: &Event) {
    let ts = event.ts;
    match &event.kind {
        EventKind::JobPosted {
            job_id,
            title,
            text,
            posted_by,
        } => {
            let id = job_doc_id(job_id);
            if !w.docs.contains_key(&id) {
                w.put(
                    id.clone(),
                    Doc::Job(Box::new(JobDoc {
                        id,
                        job_id: job_id.clone(),
                        title: title.clone(),
                        text: text.clone(),
                        posted_by: posted_by.clone(),
                        status: JobStatus::Open,
                        claimed_by: None,
                        result: None,
                        created_at: ts,
                        claimed_at: None,
                        done_at: None,
                        extra: Default::default(),
                    })),
                );
            }
        }
        EventKind::JobClaimed { job_id, by } => job(w, job_id, |j| {
            // The first claim wins.
            if j.status == JobStatus::Open {
                j.status = JobStatus::Claimed;
                j.claimed_by = Some(by.clone());
                j.claimed_at = Some(ts);
            }
        }),
        EventKind::JobDone { job_id, by, result } => job(w, job_id, |j| {
            if j.status == JobStatus::Claimed && j.claimed_by.as_deref() == Some(by.as_str()) {
                j.status = JobStatus::Done;
                j.result = Some(result.clone());
                j.done_at = Some(ts);
            }
        }),
        _ => {}
    }
}

/// The stage `index` of `q`, if it is the one running.
fn running(q: &mut QuestDoc, index: u32) -> Option<&mut super::super::docs::StageDoc> {
    (q.status == QuestStatus::Stage && q.stage == Some(index))
        .then(|| q.stages.get_mut(index as usize))
        .flatten()
        .filter(|s| s.is_running())
}

fn job(w: &mut Writes, id: &str, f: impl FnOnce(&mut JobDoc)) {
    let key = job_doc_id(id);
    let Some(before) = w.docs.get(&key).and_then(Doc::as_job).cloned() else {
        return;
    };
    let mut after = before.clone();
    f(&mut after);
    if after != before {
        w.put(key, Doc::Job(Box::new(after)));
    }
}
