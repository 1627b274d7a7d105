//! What keeps a quest moving besides markers: newcomers summoned for a stage join it once they
//! have a name (and get their prompt); a stage without progress for `--stage-timeout` is ended
//! and the lead told; after a restart the quest goes on where it was. The human's side too:
//! pinning, striking and commenting findings, and abandoning a quest.

use std::time::Duration;

use app::domain::docs::{finding_doc_id, QuestStatus};
use app::domain::events::EventKind;
use app::domain::quest::{last_progress, quest, running_quest};
use app::domain::{agent_seats, Seat};

use crate::runtime::process::answer::Answer;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::quest::Quests;
use crate::runtime::team::permissions::human_duration;
use crate::store::{StoreError, PAGE};

/// A seat summoned for a quest stage: the quest, the stage, and the place it fills.
#[derive(Clone, Debug)]
pub struct Joining {
    pub quest_id: String,
    pub stage: u32,
    pub place: String,
}

/// Why the human's change to a quest was refused.
#[derive(Debug, thiserror::Error)]
pub enum QuestEditError {
    #[error("no quest or finding has this id")]
    NoSuch,
    #[error("the quest is over")]
    Over,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Quests {
    /// Starts the task that joins newcomers, ends stalled stages and resumes a quest after a
    /// restart; it ends with the server.
    pub fn watch_quests(&self) {
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(mut requests) = requests {
            let (rt, shutdown) = (self.clone(), self.ctx.shutdown_token());
            self.ctx.spawn(async move {
                // The room holds the sender: the shutdown ends it.
                while let Some((r, answer)) = tokio::select! {
                    _ = shutdown.cancelled() => None,
                    r = requests.recv() => r,
                } {
                    let (seat, line, tell) = (r.asker(), r.line(), r.tells_asker());
                    let outcome = rt.quest_request(r).await;
                    rt.postman.settle(seat, line, tell, outcome, answer).await;
                }
            });
        }
        let rt = self.clone();
        // Every registration, even when the watch falls behind the live stream: a newcomer
        // whose registration were missed would be left out of its stage.
        let mut follow = self.ctx.store().follow(self.ctx.store().last_event_id());
        let shutdown = self.ctx.shutdown_token();
        let every = (self.ctx.config().agents.stage_timeout / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(5));
        self.ctx.spawn(async move {
            rt.resume_quest().await;
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => rt.end_stalled_stage().await,
                    r = follow.next(PAGE) => match r {
                        Some(Ok(batch)) => {
                            for e in batch.events() {
                                if let EventKind::AgentRegistered { seat, name, .. } = &e.kind {
                                    rt.joined(*seat, name).await;
                                }
                            }
                        }
                        // Read again at the next turn of the loop (the tick paces it).
                        Some(Err(e)) => {
                            tracing::warn!(error = %e, "the quest watch could not read the log");
                            tick.tick().await;
                        }
                        None => return,
                    },
                }
            }
        });
    }

    /// Queues a quest or job request (its tool call's answer with it): carried out after the
    /// ones before it.
    pub(in crate::runtime) fn enqueue(
        &self,
        request: crate::runtime::quest::QuestRequest,
        answer: Option<Answer>,
    ) {
        let _ = self.queue.send((request, answer));
    }

    /// Summons a newcomer into an empty seat for each of `places` (names or roles) of the
    /// running stage; each joins it once it has chosen its name.
    pub(in crate::runtime) async fn summon_for(
        &self,
        quest_id: &str,
        stage: u32,
        places: Vec<String>,
    ) {
        if places.is_empty() {
            return;
        }
        let empty: Vec<Seat> = self.ctx.store().with_docs(|d| {
            agent_seats()
                .filter(|s| {
                    app::domain::docs::identity(d, *s).is_none_or(|i| !i.status().is_visible())
                })
                .collect()
        });
        let mut seats = Vec::new();
        {
            let mut joining = self.joining.lock().unwrap_or_else(|p| p.into_inner());
            for (seat, place) in empty.iter().zip(&places) {
                joining.insert(
                    *seat,
                    Joining {
                        quest_id: quest_id.to_string(),
                        stage,
                        place: place.clone(),
                    },
                );
                seats.push(*seat);
            }
        }
        for place in places.iter().skip(empty.len()) {
            let why = format!("no seat is empty for {place}");
            self.tell_lead("stage plan", &why).await;
        }
        if let Err(e) = self.team.summon_only(Some(&seats)).await {
            tracing::warn!(error = %e, "summoning newcomers for a quest failed");
        }
    }

    /// A newcomer summoned for a stage chose its name: it takes its place and gets its prompt.
    async fn joined(&self, seat: Seat, name: &str) {
        let join = self
            .joining
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&seat);
        let Some(j) = join else { return };
        self.ctx
            .record(vec![EventKind::StageJoined {
                quest_id: j.quest_id.clone(),
                stage: j.stage,
                agent: name.to_string(),
                replaces: Some(j.place),
            }])
            .await;
        self.give_stage_prompt(&j.quest_id, j.stage, seat, name)
            .await;
    }

    async fn end_stalled_stage(&self) {
        let timeout = self.ctx.config().agents.stage_timeout;
        let now = self.ctx.clock().now_ms();
        let stalled = self.ctx.store().with_docs(|d| {
            let q = running_quest(d)?;
            let at = last_progress(q)?;
            let stalled = now - at >= timeout.as_millis() as i64;
            let stage = q.stage?;
            stalled.then(|| (q.quest_id.clone(), stage))
        });
        if let Some((id, stage)) = stalled {
            let why = format!("no progress for {}", human_duration(timeout));
            tracing::info!(quest = %id, stage, "{why}: the stage is ended");
            self.end_stage(&id, stage, &why, true).await;
        }
    }

    /// After a restart: the quest goes on where it was (its agents started again).
    async fn resume_quest(&self) {
        let Some(q) = self.ctx.store().with_docs(|d| running_quest(d).cloned()) else {
            return;
        };
        tracing::info!(quest = %q.quest_id, status = q.status.as_str(), "resuming the quest");
        match (q.status, q.current()) {
            (QuestStatus::Analysing, _) => self.brief_lead(&q.quest_id).await,
            (QuestStatus::Stage, Some(s)) if s.is_running() => {
                self.prompt_stage(&q.quest_id, s.index).await
            }
            (QuestStatus::Stage, Some(s)) => {
                // The lead had not answered the review: it is given it again.
                let text = self.ctx.store().with_docs(|d| {
                    let findings = app::domain::quest::findings_of(d, &q.quest_id);
                    let of: Vec<_> = findings
                        .into_iter()
                        .filter(|f| f.stage == s.index)
                        .collect();
                    app::domain::quest::prompts::review(&q, s, &of)
                });
                self.postman
                    .deliver(app::domain::LEAD_SEAT, Outgoing::text(text))
                    .await;
            }
            _ => {}
        }
    }

    /// The human pins or strikes a finding, or comments on it (the lead reads comments at the
    /// next stage boundary).
    pub async fn mark_finding(
        &self,
        quest_id: &str,
        finding_id: &str,
        pinned: Option<bool>,
        struck: Option<bool>,
        comment: Option<String>,
    ) -> Result<(), QuestEditError> {
        let exists = self
            .ctx
            .store()
            .with_docs(|d| d.contains_key(&finding_doc_id(quest_id, finding_id)));
        if !exists {
            return Err(QuestEditError::NoSuch);
        }
        self.ctx
            .recorder()
            .record(vec![EventKind::FindingMarked {
                quest_id: quest_id.to_string(),
                finding_id: finding_id.to_string(),
                pinned,
                struck,
                comment: comment.filter(|c| !c.trim().is_empty()),
            }])
            .await?;
        Ok(())
    }

    /// The human abandons a quest: it ends where it is.
    pub async fn abandon_quest(&self, quest_id: &str, reason: &str) -> Result<(), QuestEditError> {
        let status = self
            .ctx
            .store()
            .with_docs(|d| quest(d, quest_id).map(|q| q.status))
            .ok_or(QuestEditError::NoSuch)?;
        if status.is_over() {
            return Err(QuestEditError::Over);
        }
        self.ctx
            .recorder()
            .record(vec![EventKind::QuestMoved {
                quest_id: quest_id.to_string(),
                status: QuestStatus::Abandoned,
                stage: None,
                reason: Some(reason.to_string()),
            }])
            .await?;
        self.joining
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, j| j.quest_id != quest_id);
        Ok(())
    }
}
