//! The documents of the team's shared work: quests (`quest:{id}`: a problem worked through the
//! stages of a process), their findings (`finding:{quest}:{id}`), their artifacts (stage
//! outputs and the report, `artifact:{quest}:{name}:{version}`, never overwritten) and jobs
//! offered on a board (`job:{id}`: open → claimed → done, the first claim wins).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::{Millis, Seat};

pub const TYPE_QUEST: &str = "quest";
pub const TYPE_FINDING: &str = "finding";
pub const TYPE_ARTIFACT: &str = "artifact";
pub const TYPE_JOB: &str = "job";

pub fn quest_doc_id(quest: &str) -> String {
    format!("{TYPE_QUEST}:{quest}")
}

pub fn finding_doc_id(quest: &str, finding: &str) -> String {
    format!("{TYPE_FINDING}:{quest}:{finding}")
}

/// `artifact:{quest}:{name}:{version}`; versions zero-padded so they sort in order.
pub fn artifact_doc_id(quest: &str, name: &str, version: u32) -> String {
    format!("{TYPE_ARTIFACT}:{quest}:{name}:{version:04}")
}

pub fn job_doc_id(job: &str) -> String {
    format!("{TYPE_JOB}:{job}")
}

/// Where a quest is: `analysing → stage N → reporting → done | abandoned`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestStatus {
    Analysing,
    Stage,
    Reporting,
    Done,
    Abandoned,
}

impl QuestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            QuestStatus::Analysing => "analysing",
            QuestStatus::Stage => "stage",
            QuestStatus::Reporting => "reporting",
            QuestStatus::Done => "done",
            QuestStatus::Abandoned => "abandoned",
        }
    }

    /// Done or abandoned: nothing moves it any more.
    pub fn is_over(self) -> bool {
        matches!(self, QuestStatus::Done | QuestStatus::Abandoned)
    }
}

/// An agent in a stage: its name, and the role (with the persona addendum) it was given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StageAgent {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
}

/// One stage of a quest's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StageDoc {
    pub index: u32,
    /// Its name in the template ("diverge").
    pub name: String,
    pub goal: String,
    /// What the stage must produce.
    #[serde(default)]
    pub produce: String,
    pub agents: Vec<StageAgent>,
    /// The agents that said they are done (`stage_done`).
    #[serde(default)]
    pub done: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    /// The last time anything happened in it (a finding, an agent done).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_at: Option<Millis>,
}

impl StageDoc {
    pub fn is_running(&self) -> bool {
        self.started_at.is_some() && self.ended_at.is_none()
    }

    /// Whether `name` is in this stage (names compared as the agents wrote them, any case).
    pub fn has(&self, name: &str) -> bool {
        self.agents
            .iter()
            .any(|a| a.name.eq_ignore_ascii_case(name))
    }

    pub fn all_done(&self) -> bool {
        !self.agents.is_empty()
            && self
                .agents
                .iter()
                .all(|a| self.done.iter().any(|d| d.eq_ignore_ascii_case(&a.name)))
    }
}

/// A quest: a problem the team works on through the stages of a process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub quest_id: String,
    pub problem: String,
    /// A folder the agents may read (one the server was started to allow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// A linked project its agents read, each in its own worktree (instead of a folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub status: QuestStatus,
    /// With `stage`: the index of the stage it is at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(default)]
    pub stages: Vec<StageDoc>,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
    /// Why it ended (abandoned), or how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl QuestDoc {
    /// The stage it is at, if it is at one.
    pub fn current(&self) -> Option<&StageDoc> {
        let i = self.stage?;
        self.stages.get(i as usize)
    }
}

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Minor,
    Major,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Minor => "minor",
            Severity::Major => "major",
            Severity::Critical => "critical",
        }
    }
}

/// A comment the human added to a finding (the lead reads it at the next stage boundary).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub text: String,
    pub at: Millis,
    /// The event that added it: a replayed event adds nothing.
    #[serde(default)]
    pub event_id: u64,
}

/// A finding an agent posted on a quest's board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub quest_id: String,
    pub finding_id: String,
    pub stage: u32,
    pub seat: Seat,
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_id: Option<String>,
    pub title: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The file of the quest's project it is about (relative to the project's root), and the
    /// line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub struck: bool,
    #[serde(default)]
    pub comments: Vec<Comment>,
    pub created_at: Millis,
    #[serde(default)]
    pub event_id: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What an artifact is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    /// A stage's output.
    Stage,
    /// The quest's report.
    Report,
}

/// One version of an artifact (a stage's output or the report), in Markdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub quest_id: String,
    /// Its name within the quest (`stage-1`, `report`); versions share it.
    pub name: String,
    pub kind: ArtifactKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    pub title: String,
    pub version: u32,
    pub text: String,
    pub created_at: Millis,
    /// The event that wrote it (a tab notifies of reports newer than it has seen).
    #[serde(default)]
    pub event_id: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Open,
    Claimed,
    Done,
}

/// A small task offered on the job board: any awake agent may claim it; the first claim wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub job_id: String,
    pub title: String,
    pub text: String,
    /// Who posted it: the human or the lead.
    pub posted_by: String,
    pub status: JobStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_at: Option<Millis>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
