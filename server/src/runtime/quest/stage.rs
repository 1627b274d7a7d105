//! A quest's stages on the runtime: a stage begins and its agents get their prompts (woken, or
//! summoned as newcomers), findings and `stage_done` come back, a stage ends and the lead
//! reviews it, and the lead's next step starts the following one.

use app::domain::docs::{seat_named, ArtifactKind, QuestStatus, Severity};
use app::domain::events::EventKind;
use app::domain::quest::prompts::{review, stage_artifact, stage_prompt};
use app::domain::quest::{findings_of, latest_artifacts, quest, running_quest, stage_of};
use app::domain::{Seat, LEAD_SEAT};

use crate::runtime::ids::uuid22;
use crate::runtime::process::answer::Outcome;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::quest::Quests;

impl Quests {
    /// Moves the quest to stage `index` and gives each of its agents the stage prompt (woken
    /// first; a name the team does not have is a newcomer summoned for it).
    pub(super) async fn begin_stage(&self, quest_id: &str, index: u32) {
        self.ctx
            .record(vec![EventKind::QuestMoved {
                quest_id: quest_id.to_string(),
                status: QuestStatus::Stage,
                stage: Some(index),
                reason: None,
            }])
            .await;
        self.prompt_stage(quest_id, index).await;
    }

    /// Gives every agent of the running stage that is not done its prompt (after a restart
    /// too); summons a newcomer for each name the team does not have.
    pub(in crate::runtime) async fn prompt_stage(&self, quest_id: &str, index: u32) {
        let Some(stage) = self.ctx.store().with_docs(|d| {
            quest(d, quest_id).and_then(|q| {
                q.current()
                    .filter(|s| s.index == index && s.is_running())
                    .cloned()
            })
        }) else {
            return;
        };
        let mut newcomers = Vec::new();
        for a in stage
            .agents
            .iter()
            .filter(|a| !stage.done.iter().any(|d| d.eq_ignore_ascii_case(&a.name)))
        {
            match self.ctx.store().with_docs(|d| seat_named(d, &a.name)) {
                Some(seat) => self.give_stage_prompt(quest_id, index, seat, &a.name).await,
                None => newcomers.push(a.name.clone()),
            }
        }
        self.summon_for(quest_id, index, newcomers).await;
    }

    pub(in crate::runtime) async fn give_stage_prompt(
        &self,
        quest_id: &str,
        index: u32,
        seat: Seat,
        name: &str,
    ) {
        // On a project, the agent reads it in a worktree of its own, made first (and a
        // running process started again with it): on a task of its own, so that the quest's
        // queue (the lead's plan, the other agents' findings) never waits on a checkout or a
        // restart.
        if self.owes_work(quest_id, seat) {
            let (me, quest_id, name) = (self.clone(), quest_id.to_string(), name.to_string());
            // Kept with the restarts: a stop of every agent leaves it none to wake after.
            self.processes.table().restarts().spawn(async move {
                me.to_work_for(&quest_id, seat).await;
                me.prompt_now(&quest_id, index, seat, &name).await;
            });
            return;
        }
        self.prompt_now(quest_id, index, seat, name).await;
    }

    async fn prompt_now(&self, quest_id: &str, index: u32, seat: Seat, name: &str) {
        let text = self.ctx.store().with_docs(|d| {
            let q = quest(d, quest_id)?;
            let stage = q.stages.get(index as usize)?;
            let prior: Vec<_> = latest_artifacts(d, quest_id)
                .into_iter()
                .filter(|a| a.kind == ArtifactKind::Stage && a.stage.is_some_and(|s| s < index))
                .collect();
            let work = super::on_project::work_of(d, q, seat);
            Some(stage_prompt(q, stage, name, &prior, work))
        });
        let Some(text) = text else { return };
        if seat != LEAD_SEAT && !self.processes.running().contains(&seat) {
            self.wake(Some(&[seat])).await;
        }
        self.postman.deliver(seat, Outgoing::text(text)).await;
    }

    pub(super) async fn finding(
        &self,
        seat: Seat,
        from: &str,
        (title, body, severity): (String, String, Option<String>),
        at: Option<(String, Option<u32>)>,
    ) -> Outcome {
        let Some((quest_id, stage)) = self.ctx.store().with_docs(|d| stage_of(d, from)) else {
            return Err(NO_STAGE.into());
        };
        let (file, line) = match at {
            Some((raw, line)) => {
                let file = self
                    .ctx
                    .store()
                    .with_docs(|d| super::on_project::file_of_finding(d, &quest_id, seat, &raw))?;
                (Some(file), line)
            }
            None => (None, None),
        };
        let severity = severity.and_then(|s| match s.to_ascii_lowercase().as_str() {
            "info" => Some(Severity::Info),
            "minor" => Some(Severity::Minor),
            "major" => Some(Severity::Major),
            "critical" => Some(Severity::Critical),
            _ => None,
        });
        self.ctx
            .record(vec![EventKind::FindingPosted {
                quest_id,
                finding_id: uuid22(),
                stage,
                seat,
                agent: from.to_string(),
                title,
                body,
                severity,
                file,
                line,
            }])
            .await;
        Ok(format!("Posted on the board of stage {}.", stage + 1))
    }

    pub(super) async fn stage_done(&self, from: &str) -> Outcome {
        let Some((quest_id, stage)) = self.ctx.store().with_docs(|d| stage_of(d, from)) else {
            return Err(NO_STAGE.into());
        };
        self.ctx
            .record(vec![EventKind::StageAgentDone {
                quest_id: quest_id.clone(),
                stage,
                agent: from.to_string(),
            }])
            .await;
        let all_done = self.ctx.store().with_docs(|d| {
            quest(d, &quest_id)
                .and_then(|q| {
                    q.current()
                        .map(|s| s.index == stage && s.is_running() && s.all_done())
                })
                .unwrap_or(false)
        });
        if all_done {
            self.end_stage(&quest_id, stage, "all its agents are done", true)
                .await;
            return Ok(format!(
                "Noted: everyone in stage {} is done, so it ended; the lead decides what comes next.",
                stage + 1
            ));
        }
        Ok(format!(
            "Noted: your part of stage {} is done; it ends when everyone's is.",
            stage + 1
        ))
    }

    /// Ends the running stage `index`: its artifact is written from its findings and (with
    /// `review`) the lead is given them to decide what comes next.
    pub(in crate::runtime) async fn end_stage(
        &self,
        quest_id: &str,
        index: u32,
        reason: &str,
        review_it: bool,
    ) {
        self.ctx
            .record(vec![EventKind::StageEnded {
                quest_id: quest_id.to_string(),
                stage: index,
                reason: reason.to_string(),
            }])
            .await;
        let written = self.ctx.store().with_docs(|d| {
            let q = quest(d, quest_id)?;
            let stage = q.stages.get(index as usize)?;
            let findings = findings_of(d, quest_id);
            let of_stage: Vec<_> = findings.into_iter().filter(|f| f.stage == index).collect();
            Some((
                stage_artifact(stage, &of_stage),
                review(q, stage, &of_stage),
                format!("Stage {}: {}", index + 1, stage.name),
            ))
        });
        let Some((artifact, review_text, title)) = written else {
            return;
        };
        self.ctx
            .record(vec![EventKind::ArtifactWritten {
                quest_id: quest_id.to_string(),
                name: format!("stage-{}", index + 1),
                kind: ArtifactKind::Stage,
                stage: Some(index),
                title,
                text: artifact,
            }])
            .await;
        if review_it {
            self.postman
                .deliver(LEAD_SEAT, Outgoing::text(review_text))
                .await;
        }
    }

    pub(super) async fn stage_next(&self, summon: Vec<String>, dismiss: Vec<String>) -> Outcome {
        let Some(q) = self.ctx.store().with_docs(|d| running_quest(d).cloned()) else {
            return Err("no quest is under way".into());
        };
        let Some(current) = q.current().cloned() else {
            return Err("the quest has no stage yet: plan it first".into());
        };
        let next = current.index + 1;
        if next as usize >= q.stages.len() {
            return Err("that was the last stage: end the quest with the report".into());
        }
        if current.is_running() {
            self.end_stage(&q.quest_id, current.index, "the lead moved on", false)
                .await;
        }
        for name in &dismiss {
            if let Some(seat) = self.ctx.store().with_docs(|d| seat_named(d, name)) {
                self.processes
                    .table()
                    .sleep(seat, "dismissed by the lead")
                    .await;
            }
        }
        self.ctx
            .record(vec![EventKind::QuestMoved {
                quest_id: q.quest_id.clone(),
                status: QuestStatus::Stage,
                stage: Some(next),
                reason: None,
            }])
            .await;
        // Reinforcements: a place in the stage for each role, filled once a newcomer is named.
        let places: Vec<String> = summon
            .iter()
            .map(|role| format!("a newcomer ({})", role.trim()))
            .collect();
        self.ctx
            .record(
                places
                    .iter()
                    .map(|p| EventKind::StageJoined {
                        quest_id: q.quest_id.clone(),
                        stage: next,
                        agent: p.clone(),
                        replaces: None,
                    })
                    .collect(),
            )
            .await;
        self.prompt_stage(&q.quest_id, next).await;
        let name = q
            .stages
            .get(next as usize)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        Ok(format!("Stage {} ({name}) begins.", next + 1))
    }
}

/// The refusal of a finding or a `stage_done` from an agent in no running stage.
const NO_STAGE: &str =
    "you are in no running quest stage: findings and stage_done are for a stage you are in";
