//! Quests and jobs over HTTP: their bodies and answers, and the views the handlers and the
//! console build from the same documents.

use serde::{Deserialize, Serialize};

use crate::domain::docs::{ArtifactKind, Docs, JobStatus, QuestDoc, QuestStatus, Severity};
use crate::domain::quest::{findings_of, jobs, latest_artifacts, quest, quests};
use crate::domain::Millis;

/// `POST /api/quests`: a problem, and a folder the agents may read (one the server allows) or a
/// linked project (its id or name) they read in worktrees of their own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewQuest {
    pub problem: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

/// The id of what was created (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
}

/// `POST /api/jobs`: the job's id, whom it goes to now and how the rest get it, in a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobPosted {
    pub id: String,
    /// Agents offered it now (each offer begins a turn).
    pub offered: usize,
    /// Agents awake to be offered it, a round at a time.
    pub awake: usize,
    pub said: String,
}

/// One line of `GET /api/quests`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestSummary {
    pub id: String,
    pub problem: String,
    /// `analysing`, `stage 2`, `reporting`, `done` or `abandoned`.
    pub status: String,
    pub created_at: Millis,
}

/// A stage as `GET /api/quests/{id}` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StageView {
    pub index: u32,
    pub name: String,
    pub goal: String,
    pub agents: Vec<String>,
    pub done: Vec<String>,
    /// `pending`, `running` or `done`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingView {
    pub id: String,
    pub stage: u32,
    pub agent: String,
    pub seat: u8,
    pub title: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The project's file it is about (a path from the project's root) and the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The identity that posted it (its branch is the diff the file links to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    pub pinned: bool,
    pub struck: bool,
    pub comments: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactView {
    /// Its name within the quest (`stage-1`, `report`): `GET …/artifacts/{id}.md` downloads it.
    pub id: String,
    pub kind: ArtifactKind,
    pub title: String,
    pub version: u32,
    pub text: String,
}

/// `GET /api/quests/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestView {
    pub id: String,
    pub problem: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The linked project it is on (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    pub stages: Vec<StageView>,
    pub findings: Vec<FindingView>,
    pub artifacts: Vec<ArtifactView>,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
}

/// `POST /api/quests/{id}/findings/{fid}`: the human pins, strikes or comments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindingMark {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub struck: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// `POST /api/jobs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewJob {
    pub title: String,
    pub text: String,
}

/// One line of `GET /api/jobs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub id: String,
    pub title: String,
    pub text: String,
    pub status: JobStatus,
    pub posted_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// Where a quest is, in words: `stage 2` rather than `stage`.
pub fn status_text(q: &QuestDoc) -> String {
    match (q.status, q.stage) {
        (QuestStatus::Stage, Some(i)) => format!("stage {}", i + 1),
        (s, _) => s.as_str().to_string(),
    }
}

pub fn quest_summaries(docs: &Docs) -> Vec<QuestSummary> {
    quests(docs)
        .into_iter()
        .map(|q| QuestSummary {
            id: q.quest_id.clone(),
            problem: q.problem.clone(),
            status: status_text(q),
            created_at: q.created_at,
        })
        .collect()
}

pub fn quest_view(docs: &Docs, id: &str) -> Option<QuestView> {
    let q = quest(docs, id)?;
    Some(QuestView {
        id: q.quest_id.clone(),
        problem: q.problem.clone(),
        folder: q.folder.clone(),
        project: q.project.clone(),
        status: status_text(q),
        template: q.template.clone(),
        stages: q
            .stages
            .iter()
            .map(|s| StageView {
                index: s.index,
                name: s.name.clone(),
                goal: s.goal.clone(),
                agents: s.agents.iter().map(|a| a.name.clone()).collect(),
                done: s.done.clone(),
                status: match (s.started_at, s.ended_at) {
                    (_, Some(_)) => "done",
                    (Some(_), None) => "running",
                    (None, None) => "pending",
                }
                .into(),
                end_reason: s.end_reason.clone(),
            })
            .collect(),
        findings: findings_of(docs, id)
            .into_iter()
            .map(|f| FindingView {
                id: f.finding_id.clone(),
                stage: f.stage,
                agent: f.agent.clone(),
                seat: f.seat,
                title: f.title.clone(),
                body: f.body.clone(),
                severity: f.severity,
                file: f.file.clone(),
                line: f.line,
                identity: f.identity_id.clone(),
                pinned: f.pinned,
                struck: f.struck,
                comments: f.comments.iter().map(|c| c.text.clone()).collect(),
            })
            .collect(),
        artifacts: latest_artifacts(docs, id)
            .into_iter()
            .map(|a| ArtifactView {
                id: a.name.clone(),
                kind: a.kind,
                title: a.title.clone(),
                version: a.version,
                text: a.text.clone(),
            })
            .collect(),
        created_at: q.created_at,
        ended_at: q.ended_at,
    })
}

pub fn job_views(docs: &Docs) -> Vec<JobView> {
    jobs(docs)
        .into_iter()
        .map(|j| JobView {
            id: j.job_id.clone(),
            title: j.title.clone(),
            text: j.text.clone(),
            status: j.status,
            posted_by: j.posted_by.clone(),
            claimed_by: j.claimed_by.clone(),
            result: j.result.clone(),
        })
        .collect()
}
