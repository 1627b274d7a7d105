//! Quests: the team works a problem through the stages of a process. The lead (the Oracle)
//! plans it from a template; each stage's agents post findings and say when they are done;
//! between stages the lead reads the findings and moves on or reports. Here: the quest machine
//! (`analysing → stage N → reporting → done | abandoned`), the queries over quests, findings,
//! artifacts and jobs, the templates, and the texts the lead and the agents are given.

pub mod prompts;
pub mod template;

use super::docs::{
    ArtifactDoc, ArtifactKind, Docs, FindingDoc, JobDoc, QuestDoc, QuestStatus, TYPE_ARTIFACT,
    TYPE_FINDING, TYPE_JOB, TYPE_QUEST,
};
use super::Millis;

/// Why a quest cannot move as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuestError {
    #[error("the quest is {0}: nothing moves it any more")]
    Over(&'static str),
    #[error("the quest has no plan yet")]
    NotPlanned,
    #[error("stage {} has not ended yet", .0 + 1)]
    StageRunning(u32),
    #[error("the plan has no stage {}", .0 + 1)]
    NoStage(u32),
    #[error("the quest has no report yet")]
    NoReport,
    #[error("a quest cannot go from {from} to {to}")]
    Invalid { from: String, to: String },
}

fn name(status: QuestStatus, stage: Option<u32>) -> String {
    match (status, stage) {
        (QuestStatus::Stage, Some(i)) => format!("stage {}", i + 1),
        (s, _) => s.as_str().to_string(),
    }
}

/// Whether `q` may move to `to` (at `stage`): `analysing → stage 1` once planned; `stage N →
/// stage N+1` or `→ reporting` once stage N has ended; `reporting → done` once it has a report;
/// anything not over `→ abandoned`.
pub fn can_move(
    q: &QuestDoc,
    to: QuestStatus,
    stage: Option<u32>,
    has_report: bool,
) -> Result<(), QuestError> {
    use QuestStatus::*;
    if q.status.is_over() {
        return Err(QuestError::Over(q.status.as_str()));
    }
    let ended = |i: u32| {
        q.stages
            .get(i as usize)
            .is_some_and(|s| s.ended_at.is_some())
    };
    match (q.status, q.stage, to, stage) {
        (_, _, Abandoned, _) => Ok(()),
        (Analysing, _, Stage, Some(0)) if q.stages.is_empty() => Err(QuestError::NotPlanned),
        (Analysing, _, Stage, Some(0)) => Ok(()),
        (Stage, Some(n), Stage, Some(m)) if m == n + 1 => {
            match (ended(n), (m as usize) < q.stages.len()) {
                (false, _) => Err(QuestError::StageRunning(n)),
                (true, false) => Err(QuestError::NoStage(m)),
                (true, true) => Ok(()),
            }
        }
        (Stage, Some(n), Reporting, _) if !ended(n) => Err(QuestError::StageRunning(n)),
        (Stage, Some(_), Reporting, _) => Ok(()),
        (Reporting, _, Done, _) if !has_report => Err(QuestError::NoReport),
        (Reporting, _, Done, _) => Ok(()),
        (from, at, to, to_stage) => Err(QuestError::Invalid {
            from: name(from, at),
            to: name(to, to_stage),
        }),
    }
}

/// Every quest, the newest first.
pub fn quests(docs: &Docs) -> Vec<&QuestDoc> {
    let mut v: Vec<&QuestDoc> = docs
        .range(format!("{TYPE_QUEST}:")..format!("{TYPE_QUEST};"))
        .filter_map(|(_, d)| d.as_quest())
        .collect();
    v.sort_by_key(|q| std::cmp::Reverse((q.created_at, q.quest_id.clone())));
    v
}

pub fn quest<'a>(docs: &'a Docs, id: &str) -> Option<&'a QuestDoc> {
    docs.get(&super::docs::quest_doc_id(id))
        .and_then(|d| d.as_quest())
}

/// The quest under way, if any (one at a time per team).
pub fn running_quest(docs: &Docs) -> Option<&QuestDoc> {
    quests(docs).into_iter().find(|q| !q.status.is_over())
}

/// What holds the quest `q` up now, in words for its bar: each agent of its running stage not
/// done yet that cannot go on, with why ("Lyra (asleep)", "Kael (over budget)", "Mira (waiting
/// for your approval of Bash)"); and when the lead has the next move (planning, between stages,
/// reporting), the lead if an approval or its budget holds it. Empty when nobody is held.
pub fn holding(docs: &Docs, q: &QuestDoc) -> Vec<String> {
    use super::docs::{identities, identity};
    let held = |who: &super::docs::AgentIdentity| -> Option<String> {
        let name = who.name.clone().unwrap_or_else(|| "the lead".into());
        let asked = super::docs::pending(docs, who.grid_position);
        if let Some(p) = asked.first() {
            let whose = match p.with {
                Some(super::permissions::Approver::Lead) => "the lead's",
                _ => "your",
            };
            return Some(format!(
                "{name} (waiting for {whose} approval of {})",
                p.tool_name
            ));
        }
        let state = super::words::state_of(who)?;
        let working = who.process_state.is_some_and(|p| p.is_live()) && state != "over budget";
        (!working).then(|| format!("{name} ({state})"))
    };
    let stage = q
        .current()
        .filter(|s| s.started_at.is_some() && s.is_running());
    match (q.status, stage) {
        (QuestStatus::Stage, Some(s)) => s
            .agents
            .iter()
            .filter(|a| !s.done.iter().any(|d| d.eq_ignore_ascii_case(&a.name)))
            .filter_map(|a| {
                let who = identities(docs).find(|i| {
                    i.status().is_visible()
                        && i.name
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(&a.name))
                });
                match who {
                    Some(who) => held(who),
                    None => Some(format!("{} (not at the table)", a.name)),
                }
            })
            .collect(),
        (QuestStatus::Done | QuestStatus::Abandoned, _) => Vec::new(),
        _ => identity(docs, super::LEAD_SEAT)
            .and_then(|lead| {
                let blocked = !super::docs::pending(docs, lead.grid_position).is_empty()
                    || super::words::state_of(lead).as_deref() == Some("over budget");
                blocked.then(|| held(lead)).flatten()
            })
            .into_iter()
            .collect(),
    }
}

/// The findings of a quest, by stage, then in the order they were posted.
pub fn findings_of<'a>(docs: &'a Docs, quest: &str) -> Vec<&'a FindingDoc> {
    let from = format!("{TYPE_FINDING}:{quest}:");
    let to = format!("{TYPE_FINDING}:{quest};");
    let mut v: Vec<&FindingDoc> = docs
        .range(from..to)
        .filter_map(|(_, d)| d.as_finding())
        .collect();
    v.sort_by_key(|f| (f.stage, f.created_at, f.event_id));
    v
}

/// Every artifact of every quest.
pub fn all_artifacts(docs: &Docs) -> impl Iterator<Item = &ArtifactDoc> {
    docs.range(format!("{TYPE_ARTIFACT}:")..format!("{TYPE_ARTIFACT};"))
        .filter_map(|(_, d)| d.as_artifact())
}

/// Every version of every artifact of a quest, by name then version.
pub fn artifacts_of<'a>(docs: &'a Docs, quest: &str) -> Vec<&'a ArtifactDoc> {
    let from = format!("{TYPE_ARTIFACT}:{quest}:");
    let to = format!("{TYPE_ARTIFACT}:{quest};");
    docs.range(from..to)
        .filter_map(|(_, d)| d.as_artifact())
        .collect()
}

/// The newest version of each artifact of a quest: the stages' outputs in order, then the
/// report.
pub fn latest_artifacts<'a>(docs: &'a Docs, quest: &str) -> Vec<&'a ArtifactDoc> {
    let mut latest: Vec<&ArtifactDoc> = Vec::new();
    for a in artifacts_of(docs, quest) {
        match latest.iter_mut().find(|l| l.name == a.name) {
            Some(l) if l.version < a.version => *l = a,
            Some(_) => {}
            None => latest.push(a),
        }
    }
    latest.sort_by_key(|a| (a.kind == ArtifactKind::Report, a.stage, a.name.clone()));
    latest
}

/// The newest report of a quest.
pub fn report_of<'a>(docs: &'a Docs, quest: &str) -> Option<&'a ArtifactDoc> {
    latest_artifacts(docs, quest)
        .into_iter()
        .find(|a| a.kind == ArtifactKind::Report)
}

/// Every job, the oldest first.
pub fn jobs(docs: &Docs) -> Vec<&JobDoc> {
    let mut v: Vec<&JobDoc> = docs
        .range(format!("{TYPE_JOB}:")..format!("{TYPE_JOB};"))
        .filter_map(|(_, d)| d.as_job())
        .collect();
    v.sort_by_key(|j| (j.created_at, j.job_id.clone()));
    v
}

/// The running stage the agent called `name` is in: (quest, stage index).
pub fn stage_of(docs: &Docs, name: &str) -> Option<(String, u32)> {
    let q = running_quest(docs)?;
    let s = q.current().filter(|s| s.is_running() && s.has(name))?;
    Some((q.quest_id.clone(), s.index))
}

/// When a running stage last moved (started, a finding, an agent done).
pub fn last_progress(q: &QuestDoc) -> Option<Millis> {
    let s = q.current().filter(|s| s.is_running())?;
    s.progress_at.or(s.started_at)
}
