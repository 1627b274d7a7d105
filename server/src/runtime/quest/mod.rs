//! Quests on the runtime: the human's problem goes to the lead with the process templates; the
//! lead's plan starts the stages; each stage's agents are woken (or newcomers summoned for the
//! names the team does not have) and given their stage prompt; findings and `stage_done` come
//! back as markers; a stage ends when its agents are done, when the lead moves on, or with no
//! progress for `--stage-timeout`, and the lead reviews it; the lead's report ends the quest.
//! The quest is in the store: after a restart it goes on from where it was.

use app::domain::docs::{identity, ArtifactKind, QuestStatus, StageAgent, StageDoc};
use app::domain::events::EventKind;
use app::domain::quest::prompts::{brief, Member};
use app::domain::quest::{quest, running_quest};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::domain::{agent_seats, Seat, LEAD_SEAT};
use tokio::sync::mpsc;

pub(in crate::runtime) mod jobs;
pub(in crate::runtime) mod keeper;
mod on_project;
mod stage;

use crate::runtime::context::Context;
use crate::runtime::ids::uuid22;
use crate::runtime::mail::postman::Postman;
use crate::runtime::process::answer::{Answer, Outcome};
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::process::owner::Processes;
use crate::runtime::projects::Projects;
use crate::runtime::team::Team;
use crate::store::StoreError;

pub use crate::runtime::process::turn::QuestRequest;

/// Why a quest cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum QuestStartError {
    #[error("the problem is empty")]
    Empty,
    #[error("a quest is under way ({0:.80}); one quest runs at a time: wait for its report or abandon it")]
    Busy(String),
    #[error("{0} is not a folder this server allows its agents to read (--allow-dir)")]
    Folder(String),
    #[error("no linked project is named {0} (link it under Projects first)")]
    Project(String),
    #[error("a quest reads a folder or a project, not both")]
    Both,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The quest room's owner: quests, their stages, the job board, and the watch that keeps them
/// moving. It wakes and summons through the team room and tells through the postman.
#[derive(Clone)]
pub struct Quests {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) processes: Processes,
    pub(in crate::runtime) postman: Postman,
    pub(in crate::runtime) team: Team,
    /// The projects room: a quest on a project puts its agents to work on it.
    pub(in crate::runtime) projects: Projects,
    /// Seats summoned for a quest stage, until their newcomer has a name.
    pub(in crate::runtime) joining: Arc<Mutex<HashMap<Seat, keeper::Joining>>>,
    /// Quest and job markers, carried out one at a time in the order they were written (by
    /// the task `watch_quests` starts, which takes the receiver).
    pub(in crate::runtime) queue: mpsc::UnboundedSender<(QuestRequest, Option<Answer>)>,
    #[allow(clippy::type_complexity)]
    pub(in crate::runtime) requests:
        Arc<Mutex<Option<mpsc::UnboundedReceiver<(QuestRequest, Option<Answer>)>>>>,
}

impl Quests {
    pub fn new(
        ctx: Context,
        processes: Processes,
        postman: Postman,
        (team, projects): (Team, Projects),
    ) -> Self {
        let (queue, requests) = mpsc::unbounded_channel();
        Quests {
            ctx,
            processes,
            postman,
            team,
            projects,
            joining: Default::default(),
            queue,
            requests: Arc::new(Mutex::new(Some(requests))),
        }
    }

    /// WAKE of the sleeping agents among `seats` (all when `None`), and the jobs that waited
    /// offered to those woken: the one place both are done.
    pub async fn wake(&self, seats: Option<&[Seat]>) -> Vec<Seat> {
        let woken = self.team.wake_only(seats).await;
        self.offer_stale_jobs(&woken).await;
        woken
    }

    /// The human submits a problem (and a folder the agents may read): a new quest, briefed to
    /// the lead. Returns its id.
    pub async fn start_quest(
        &self,
        problem: &str,
        folder: Option<&str>,
        project: Option<&str>,
    ) -> Result<String, QuestStartError> {
        if problem.trim().is_empty() {
            return Err(QuestStartError::Empty);
        }
        let folder = folder.filter(|f| !f.trim().is_empty());
        let project = match project.map(str::trim).filter(|p| !p.is_empty()) {
            Some(_) if folder.is_some() => return Err(QuestStartError::Both),
            Some(p) => Some(self.ctx.store().with_docs(|d| {
                app::domain::projects::linked_named(d, p)
                    .or_else(|| app::domain::projects::project(d, p).filter(|x| x.is_linked()))
                    .map(|x| x.project_id.clone())
                    .ok_or_else(|| QuestStartError::Project(p.to_string()))
            })?),
            None => None,
        };
        if let Some(q) = self.ctx.store().with_docs(|d| running_quest(d).cloned()) {
            return Err(QuestStartError::Busy(q.problem));
        }
        let folder = match folder {
            Some(f) => Some(self.allowed_folder(f)?),
            None => None,
        };
        let id = uuid22();
        self.ctx
            .recorder()
            .record(vec![EventKind::QuestStarted {
                quest_id: id.clone(),
                problem: problem.trim().to_string(),
                folder,
                project,
            }])
            .await?;
        self.brief_lead(&id).await;
        Ok(id)
    }

    /// `folder` as a real path inside one of `--allow-dir`.
    fn allowed_folder(&self, folder: &str) -> Result<String, QuestStartError> {
        let refused = || QuestStartError::Folder(folder.to_string());
        let real = std::fs::canonicalize(folder).map_err(|_| refused())?;
        let allowed = self
            .ctx
            .config()
            .agents
            .allow_dir
            .iter()
            .any(|a| std::fs::canonicalize(a).is_ok_and(|a| real.starts_with(a)));
        match allowed && real.is_dir() {
            true => Ok(real.display().to_string()),
            false => Err(refused()),
        }
    }

    /// The team as the lead and the agents see it.
    fn roster(&self) -> (Vec<Member>, usize) {
        self.ctx.store().with_docs(|d| {
            let mut team = Vec::new();
            let mut empty = 0;
            for seat in agent_seats() {
                match identity(d, seat).filter(|i| i.status().is_visible() && i.has_name()) {
                    Some(i) => team.push(Member {
                        name: i.name.clone().unwrap_or_default(),
                        seat,
                        status: i.status().as_str().to_string(),
                    }),
                    None => empty += 1,
                }
            }
            (team, empty)
        })
    }

    pub(in crate::runtime) async fn brief_lead(&self, quest_id: &str) {
        let Some(q) = self.ctx.store().with_docs(|d| quest(d, quest_id).cloned()) else {
            return;
        };
        let (team, empty) = self.roster();
        let project = self.ctx.store().with_docs(|d| {
            q.project
                .as_deref()
                .and_then(|p| app::domain::projects::project(d, p))
                .map(|p| p.name.clone())
        });
        let text = brief(
            &q,
            &self.ctx.config().templates,
            &team,
            empty,
            project.as_deref(),
        );
        self.postman.deliver(LEAD_SEAT, Outgoing::text(text)).await;
    }

    /// Tells the lead (a plan or a move it asked for could not be done, and why).
    pub(in crate::runtime) async fn tell_lead(&self, line: &str, why: &str) {
        self.ctx.marker_error(LEAD_SEAT, line, why).await;
        let text = format!("[message from Soulgrid]\nYour {line} was not done: {why}.");
        self.postman.deliver(LEAD_SEAT, Outgoing::text(text)).await;
    }

    /// Carries out a quest or job request; what became of it.
    pub(in crate::runtime) async fn quest_request(&self, r: QuestRequest) -> Outcome {
        match r {
            QuestRequest::Plan { template, stages } => self.plan(&template, stages).await,
            QuestRequest::StageNext { summon, dismiss } => self.stage_next(summon, dismiss).await,
            QuestRequest::Report { title, body } => self.report(&title, &body).await,
            QuestRequest::Finding {
                seat,
                from,
                title,
                body,
                severity,
                at,
            } => self.finding(seat, &from, (title, body, severity), at).await,
            QuestRequest::StageDone { from, .. } => self.stage_done(&from).await,
            QuestRequest::PostJob {
                seat,
                from,
                title,
                text,
            } => {
                let (id, offered, awake) = self
                    .post_job_from(&title, &text, &from, Some(seat))
                    .await
                    .map_err(|e| format!("the console could not record it ({e}): try again"))?;
                Ok(jobs::job_posted(&id, offered, awake))
            }
            QuestRequest::Claim { from, job, .. } => self.claim(&from, &job).await,
            QuestRequest::JobDone {
                from, job, result, ..
            } => self.job_done(&from, &job, &result).await,
        }
    }

    async fn plan(&self, template: &str, stages: Vec<Vec<String>>) -> Outcome {
        let Some(q) = self.ctx.store().with_docs(|d| {
            running_quest(d)
                .filter(|q| q.status == QuestStatus::Analysing)
                .cloned()
        }) else {
            return Err("no quest is waiting for a plan".into());
        };
        let Some(t) = self
            .ctx
            .config()
            .templates
            .iter()
            .find(|t| t.name == template)
        else {
            let names: Vec<&str> = self
                .ctx
                .config()
                .templates
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            let why = format!(
                "there is no process {template:?} (there are {})",
                names.join(", ")
            );
            return Err(why.into());
        };
        if stages.len() != t.stages.len() || stages.iter().any(Vec::is_empty) {
            let why = format!(
                "{template} has {} stages: name the agents of each, in order",
                t.stages.len()
            );
            return Err(why.into());
        }
        let planned: Vec<StageDoc> = t
            .stages
            .iter()
            .zip(stages)
            .enumerate()
            .map(|(i, (ts, agents))| StageDoc {
                index: i as u32,
                name: ts.name.clone(),
                goal: ts.goal.clone(),
                produce: ts.produce.clone(),
                agents: agents
                    .into_iter()
                    .enumerate()
                    .map(|(j, name)| {
                        let role = &ts.roles[j % ts.roles.len()];
                        StageAgent {
                            name,
                            role: Some(role.name.clone()),
                            persona: Some(role.persona.clone()),
                        }
                    })
                    .collect(),
                done: Vec::new(),
                started_at: None,
                ended_at: None,
                end_reason: None,
                progress_at: None,
            })
            .collect();
        self.ctx
            .record(vec![EventKind::QuestPlanned {
                quest_id: q.quest_id.clone(),
                template: template.to_string(),
                stages: planned,
            }])
            .await;
        let count = t.stages.len();
        self.begin_stage(&q.quest_id, 0).await;
        Ok(format!(
            "Planned: {template}, {count} stage{}; the first begins now.",
            if count == 1 { "" } else { "s" }
        ))
    }

    async fn report(&self, title: &str, body: &str) -> Outcome {
        let Some(q) = self.ctx.store().with_docs(|d| running_quest(d).cloned()) else {
            return Err("no quest is under way".into());
        };
        if q.status == QuestStatus::Analysing {
            return Err("the quest has not begun its first stage: plan it first".into());
        }
        if let Some(s) = q.current().filter(|s| s.is_running()) {
            self.end_stage(&q.quest_id, s.index, "the lead reported", false)
                .await;
        }
        let id = q.quest_id.clone();
        self.ctx
            .record(vec![
                EventKind::QuestMoved {
                    quest_id: id.clone(),
                    status: QuestStatus::Reporting,
                    stage: None,
                    reason: None,
                },
                EventKind::ArtifactWritten {
                    quest_id: id.clone(),
                    name: "report".into(),
                    kind: ArtifactKind::Report,
                    stage: None,
                    title: title.to_string(),
                    text: body.to_string(),
                },
                EventKind::QuestMoved {
                    quest_id: id,
                    status: QuestStatus::Done,
                    stage: None,
                    reason: Some("reported".into()),
                },
            ])
            .await;
        Ok("The quest is done; its report is kept with it.".into())
    }
}
