//! What an agent's request does, carried out by the room it belongs to, and its outcome in
//! the agent's words: the seats a summon filled, where a fork or a recall sits, whether a
//! message reached its reader.

use app::domain::docs::{hall, seat_named};
use app::domain::names::fold;
use app::domain::tools::seat_number;
use app::domain::Seat;

use super::{fork_refusal, hall_refusal};
use crate::runtime::process::answer::Outcome;
use crate::runtime::process::turn::LeadRequest;
use crate::runtime::Runtime;

/// Seats as an agent reads them: "2, 3 and 7".
fn seat_list(seats: &[Seat]) -> String {
    let words: Vec<String> = seats.iter().map(|s| seat_number(*s).to_string()).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The refusal for a name that is nobody seated.
fn nobody(name: &str) -> String {
    format!("nobody on the team is called {name:?}: call team for the names")
}

impl Runtime {
    /// Carries out `request`; what became of it.
    pub(in crate::runtime) async fn carry(&self, request: LeadRequest) -> Outcome {
        match request {
            LeadRequest::Summon { seats, count } => self.summon_for_agent(seats, count).await,
            LeadRequest::Dismiss { name } => self.dismiss_for_agent(name),
            LeadRequest::Kill { name, cascade } => self.kill_for_agent(name, cascade).await,
            LeadRequest::Recall { name, seat } => self.recall_for_agent(name, seat).await,
            LeadRequest::Fork {
                seat,
                by,
                from,
                prompt,
                into,
            } => {
                let message = prompt.filter(|p| !p.trim().is_empty()).map(|p| (from, p));
                self.fork_for_agent(seat, by, message, into).await
            }
            LeadRequest::Route {
                seat,
                from,
                to,
                text,
            } => self.inner.postman.route(seat, &from, &to, &text).await,
            LeadRequest::CheckMail { seat } => self.inner.postman.check_mail(seat).await,
            LeadRequest::ReadMail { seat, max } => self.inner.postman.read_mail(seat, max).await,
            // The quest room's queue carries these (`Switchboard::report`).
            LeadRequest::Quest(_) => Err("quest requests go through the quest queue".into()),
            LeadRequest::RequestReview {
                seat,
                project,
                note,
            } => self.review_for_agent(seat, project, note).await,
            LeadRequest::ClaimFiles {
                seat,
                project,
                paths,
                why,
            } => {
                let (p, w) = self.worktree_of(seat, project.as_deref())?;
                self.claim_files(&p, &w, paths, why).await
            }
            LeadRequest::DecidePermission {
                request,
                decision,
                reason,
            } => self.lead_decides(&request, &decision, reason).await,
            LeadRequest::PutToWork { agent, project } => {
                self.put_to_work_for_agent(agent, project).await
            }
        }
    }

    fn seat_of(&self, name: &str) -> Result<Seat, String> {
        self.store()
            .with_docs(|d| seat_named(d, name))
            .ok_or_else(|| nobody(name))
    }

    /// `dismiss`: the agent's note before sleep takes a turn of its own, not waited for here.
    fn dismiss_for_agent(&self, name: String) -> Outcome {
        let seat = self.seat_of(&name)?;
        let rt = self.clone();
        self.tasks()
            .spawn(async move { rt.sleep(seat, "dismissed by the lead").await });
        Ok(format!(
            "{name} writes down what it learned, then sleeps; a message or WAKE brings it back."
        ))
    }

    /// `kill`: the agent (and with `cascade` its forks) to the Hall.
    async fn kill_for_agent(&self, name: String, cascade: bool) -> Outcome {
        let seat = self.seat_of(&name)?;
        let retired = self
            .retire_branch(seat, "retired by the lead", cascade)
            .await
            .map_err(|e| hall_refusal(&e, &name))?;
        Ok(match retired.len() {
            0 | 1 => format!("{name} is in the Hall now; recall brings it back."),
            n => format!(
                "{name} and {} of its forks are in the Hall now; recall brings each back.",
                n - 1
            ),
        })
    }

    /// `recall`: someone from the Hall by name.
    async fn recall_for_agent(&self, name: String, seat: Option<Seat>) -> Outcome {
        let id = self.store().with_docs(|d| {
            hall(d)
                .find(|h| h.name.as_deref().map(fold) == Some(fold(&name)))
                .map(|h| h.stable_id())
        });
        let id = id.ok_or_else(|| {
            format!("nobody in the Hall is called {name:?}: call team for who is in the Hall")
        })?;
        let seated = self
            .recall(&id, seat)
            .await
            .map_err(|e| hall_refusal(&e, &name))?;
        Ok(format!(
            "{name} is back in seat {} and waking.{}",
            seat_number(seated.seat),
            made_room(&seated)
        ))
    }

    /// `fork`: the agent in `seat` forked (by itself, or by the lead).
    async fn fork_for_agent(
        &self,
        seat: Seat,
        by: Seat,
        message: Option<(String, String)>,
        into: Option<Seat>,
    ) -> Outcome {
        let child = self
            .fork(seat, message, into)
            .await
            .map_err(|e| fork_refusal(&e))?;
        let whose = match by == seat {
            true => "Your fork".to_string(),
            false => format!(
                "The fork of {}",
                self.inner.ctx.seat_name(seat).unwrap_or_default()
            ),
        };
        Ok(format!(
            "{whose} hatches in seat {} once the current turn ends, and chooses its own name.{}",
            seat_number(child.seat),
            made_room(&child)
        ))
    }

    /// `request_review`: the agent's branch into the human's review list.
    async fn review_for_agent(
        &self,
        seat: Seat,
        project: Option<String>,
        note: Option<String>,
    ) -> Outcome {
        let (p, w) = self.worktree_of(seat, project.as_deref())?;
        self.inner
            .projects
            .request_review(&p, &w.identity_id, note)
            .await
            .map_err(|e| e.to_string())?;
        Ok(format!(
            "Your branch {} is in the human's review list; you are told what they decide.",
            w.branch
        ))
    }

    /// `put_to_work` (the lead's): an agent on a linked project, both by name.
    async fn put_to_work_for_agent(&self, agent: String, project: String) -> Outcome {
        let (who, id) = self
            .store()
            .with_docs(|d| {
                let p = app::domain::projects::linked_named(d, &project)?.project_id.clone();
                let seat = seat_named(d, &agent)?;
                Some((app::domain::docs::identity(d, seat)?.stable_id(), p))
            })
            .ok_or_else(|| {
                format!("there is no agent {agent:?} or no linked project {project:?}: call team for the names")
            })?;
        let w = self
            .put_to_work(&id, &who)
            .await
            .map_err(|e| e.to_string())?;
        Ok(format!(
            "{agent} is at work on {project} in {} on branch {}; awake, it goes on with it.",
            w.path, w.branch
        ))
    }

    /// The worktree the agent in `seat` works in: of the project named `project`, or its only
    /// one.
    fn worktree_of(
        &self,
        seat: Seat,
        project: Option<&str>,
    ) -> Result<(String, app::domain::docs::WorktreeDoc), String> {
        self.store().with_docs(|d| {
            let who = app::domain::docs::identity(d, seat)
                .ok_or("you have no seat")?
                .stable_id();
            let mine = app::domain::projects::worktrees_of(d, &who);
            let name = |w: &app::domain::docs::WorktreeDoc| {
                app::domain::projects::project(d, &w.project_id)
                    .map_or(String::new(), |p| p.name.clone())
            };
            let found: Vec<_> = match project {
                Some(p) => mine
                    .into_iter()
                    .filter(|w| name(w).eq_ignore_ascii_case(p.trim()))
                    .collect(),
                None => mine,
            };
            match found[..] {
                [w] => Ok((w.project_id.clone(), w.clone())),
                [] => Err(match project {
                    Some(p) => format!("you are not at work on a project called {p:?}"),
                    None => "you are not at work on any project".to_string(),
                }),
                _ => Err(format!(
                    "you work on {}: say which project",
                    found
                        .iter()
                        .map(|w| name(w))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )),
            }
        })
    }

    /// Records the claim; puts the claimer and each agent it meets in touch, one message each
    /// naming the other and both reasons.
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    async fn claim_files(
        &self,
        project: &str,
        w: &app::domain::docs::WorktreeDoc,
        paths: Vec<String>,
        why: String,
    ) -> Outcome {
        const MAX_PATHS: usize = 200;
        const HOLDS_MS: i64 = 2 * 3600 * 1000;
        let paths: Vec<String> = paths
            .iter()
            .map(|p| p.trim().trim_start_matches("./").to_string())
            .collect();
        if paths.is_empty() || paths.len() > MAX_PATHS {
            return Err(format!("claim 1 to {MAX_PATHS} paths").into());
        }
        if let Some(bad) = paths.iter().find(|p| {
            p.is_empty()
                || !std::path::Path::new(p)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
        }) {
            return Err(format!("{bad:?} is not a path inside the project").into());
        }
        let why = match why.trim() {
            "" => "(no reason given)".to_string(),
            w => w.chars().take(500).collect(),
        };
        let now = self.clock().now_ms();
        let (met, name) = self.store().with_docs(|d| {
            let met: Vec<(app::domain::docs::WorktreeDoc, Vec<String>)> =
                app::domain::projects::claim_meets(d, project, &w.identity_id, &paths, now)
                    .into_iter()
                    .map(|(o, files)| (o.clone(), files))
                    .collect();
            let name = app::domain::projects::project(d, project)
                .map_or(String::new(), |p| p.name.clone());
            (met, name)
        });
        self.recorder()
            .record(vec![app::domain::events::EventKind::FilesClaimed {
                project_id: project.into(),
                identity_id: w.identity_id.clone(),
                paths: paths.clone(),
                why: why.clone(),
                until: now + HOLDS_MS,
            }])
            .await
            .map_err(|e| e.to_string())?;
        for (other, files) in &met {
            let theirs_then = other
                .claim
                .as_ref()
                .filter(|c| c.until > now)
                .map_or("they have already changed them".to_string(), |c| {
                    c.why.clone()
                });
            self.tell_identity(
                &w.identity_id,
                &format!(
                    "Soulgrid's conflict radar: {} is on {} in {name} too ({theirs_then}); you mean to change them ({why}). Talk to {} (send_message) before either of you goes on.",
                    other.agent,
                    files.join(", "),
                    other.agent
                ),
                false,
            )
            .await;
            let theirs = other
                .claim
                .as_ref()
                .filter(|c| c.until > now)
                .map_or("they have already changed them".to_string(), |c| {
                    c.why.clone()
                });
            let shown = files.join(", ");
            self.tell_identity(
                &other.identity_id,
                &format!(
                    "Soulgrid's conflict radar: {} means to change {shown} in {name} ({why}), which you have claimed or changed ({theirs}). Talk to {} (send_message) before either of you goes on.",
                    w.agent, w.agent
                ),
                false,
            )
            .await;
        }
        Ok(match met.is_empty() {
            true => format!("Claimed {} path(s) in {name} for two hours, or until your branch is merged; nobody else is on them.", paths.len()),
            false => format!(
                "Claimed; but {} also {} on them: talk to {} first (each of you is told of the other).",
                met.iter().map(|(o, _)| o.agent.clone()).collect::<Vec<_>>().join(" and "),
                if met.len() == 1 { "is" } else { "are" },
                met.iter().map(|(o, _)| o.agent.clone()).collect::<Vec<_>>().join(" and ")
            ),
        })
    }

    /// The lead's summon: into `seats` (every empty seat when `None`), at most `count`.
    async fn summon_for_agent(&self, seats: Option<Vec<Seat>>, count: Option<u8>) -> Outcome {
        let mut empty = self.inner.team.summonable(seats.as_deref());
        if let Some(n) = count {
            empty.truncate(usize::from(n));
        }
        let taken: Vec<Seat> = seats
            .iter()
            .flatten()
            .copied()
            .filter(|s| !empty.contains(s))
            .collect();
        let not_empty = |seats: &[Seat]| match seats {
            [one] => format!("seat {} is not empty", seat_list(&[*one])),
            more => format!("seats {} are not empty", seat_list(more)),
        };
        if empty.is_empty() {
            return Err(match taken.is_empty() {
                true => "no seat is empty: retire someone first".into(),
                false => format!("{}: call team for the empty seats", not_empty(&taken)).into(),
            });
        }
        let placed = self
            .summon_only(Some(&empty))
            .await
            .map_err(|e| format!("the console could not record the summon ({e}): try again"))?;
        if placed.is_empty() {
            return Err("no seat is empty: retire someone first".into());
        }
        let besides = match taken.is_empty() {
            true => String::new(),
            false => format!(" ({}: nobody was summoned there)", not_empty(&taken)),
        };
        Ok(format!(
            "Summoned into seat{} {}{besides}: each newborn is choosing its name; call team to see them.",
            if placed.len() == 1 { "" } else { "s" },
            seat_list(&placed)
        ))
    }
}

/// " Wren went to the Hall asleep to make room." when someone did.
fn made_room(seated: &crate::runtime::Seated) -> String {
    seated
        .made_room
        .as_ref()
        .map(|name| format!(" {name} went to the Hall asleep to make room."))
        .unwrap_or_default()
}
