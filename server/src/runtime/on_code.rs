//! The façade's part for the team's work on code (`projects/`): the room itself, the radar's
//! notices delivered, and what the review and the merge tell the agent; an awake agent put to
//! work restarted with its worktree.

use super::{projects, Runtime};

impl Runtime {
    /// The linked projects and the agents' worktrees (`projects/`).
    pub fn projects(&self) -> &projects::Projects {
        &self.inner.projects
    }

    /// Follows the agents' worktrees (the conflict radar): what git sees recorded as it
    /// changes, and each agent told, in its inbox, of an overlap that is new.
    pub fn watch_worktrees(&self) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<projects::Notice>();
        self.inner.projects.watch(tx);
        let (rt, shutdown) = (self.clone(), self.shutdown_token());
        self.tasks().spawn(async move {
            // The room holds the sender: the shutdown ends it.
            while let Some(n) = tokio::select! {
                _ = shutdown.cancelled() => None,
                n = rx.recv() => n,
            } {
                let inbox = rt.store().with_docs(|d| {
                    app::domain::docs::identity_by_id(d, &n.identity).and_then(|i| i.inbox())
                });
                if inbox.is_some() {
                    rt.tell_identity(&n.identity, &n.text, false).await;
                }
            }
        });
    }

    /// Tells the identity `id` something: as the human's message in its thread if it is seated
    /// (delivered now if awake), else left in its inbox for its recall.
    pub(in crate::runtime) async fn tell_identity(&self, id: &str, text: &str, from_human: bool) {
        let (seat, inbox) = self.store().with_docs(|d| {
            let who = app::domain::docs::identity_by_id(d, id);
            (
                who.filter(|i| i.status().is_visible() && !i.id.starts_with("hall:"))
                    .map(|i| i.grid_position),
                who.and_then(|i| i.inbox()),
            )
        });
        match (seat, inbox, from_human) {
            (Some(seat), _, true) => {
                if let Err(e) = self.tell_from_human(seat, text, None).await {
                    tracing::warn!(seat, error = %e, "an agent could not be told");
                }
            }
            (_, Some(inbox), true) => self.inner.postman.leave_note(inbox, text.into()).await,
            (_, Some(inbox), false) => {
                self.inner
                    .postman
                    .file_note("Soulgrid", inbox, text.into())
                    .await
            }
            _ => {}
        }
    }

    /// Sends the agent the human's open comments on its branch, in one message.
    pub async fn request_changes(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<(), projects::ProjectError> {
        let text = self
            .inner
            .projects
            .request_changes(project, identity)
            .await?;
        self.tell_identity(identity, &text, true).await;
        Ok(())
    }

    /// Asks the agent to rebase its branch onto the base's head, naming the conflicting files.
    pub async fn ask_rebase(
        &self,
        project: &str,
        identity: &str,
    ) -> Result<(), projects::ProjectError> {
        let text = self
            .inner
            .projects
            .rebase_request(project, identity)
            .await?;
        self.tell_identity(identity, &text, true).await;
        Ok(())
    }

    /// Approves the branch at its head (`seen`: the head the human looked at): that commit,
    /// and nothing its worktree has not committed, which the agent is asked to commit. The head
    /// approved, and those files.
    pub async fn approve_branch(
        &self,
        project: &str,
        identity: &str,
        seen: Option<&str>,
    ) -> Result<(String, Vec<String>), projects::ProjectError> {
        let approval = self.inner.projects.approve(project, identity, seen).await?;
        if let Some(text) = &approval.notice {
            self.tell_identity(identity, text, false).await;
        }
        Ok((approval.head, approval.uncommitted))
    }

    /// Merges the approved branch (exactly the approved commit); the agent is told how it
    /// ended, in one message. The base's new head and the worktree's files left out, or why not.
    #[allow(clippy::type_complexity)]
    pub async fn merge_branch(
        &self,
        project: &str,
        identity: &str,
        strategy: crate::repo::merge::Strategy,
    ) -> Result<Result<(String, Vec<String>), projects::Refused>, projects::ProjectError> {
        let merged = self
            .inner
            .projects
            .merge(project, identity, strategy)
            .await?;
        self.tell_identity(identity, &merged.notice.text, false)
            .await;
        Ok(merged.result)
    }

    /// Puts the identity `agent` to work on a project. An agent awake without the worktree
    /// goes on with it once it is made: paused after its turn, started again in its session and
    /// told the worktree (the lead starts again with its next message), unless a sleep or a
    /// stop is asked of it before it has stopped.
    pub async fn put_to_work(
        &self,
        project: &str,
        agent: &str,
    ) -> Result<app::domain::docs::WorktreeDoc, projects::ProjectError> {
        let external = self.store().with_docs(|d| {
            app::domain::docs::identities(d)
                .chain(app::domain::docs::hall(d))
                .find(|i| i.stable_id() == agent)
                .filter(|i| i.external)
                .and_then(|i| i.name.clone())
        });
        if let Some(name) = external {
            return Err(projects::ProjectError::Conflict(format!(
                "{name} is an external agent: it works where its program runs, not in a worktree of this machine"
            )));
        }
        let made = self
            .inner
            .projects
            .put_to_work(project, agent, projects::Start::Base)
            .await?;
        let seat = self.store().with_docs(|d| {
            app::domain::docs::identities(d)
                .find(|i| i.status().is_visible() && i.stable_id() == agent)
                .map(|i| i.grid_position)
        });
        // Asked before this returns: a sleep or stop the caller asks next wins over the start.
        let table = self.inner.processes.table();
        if let Some((seat, restart)) =
            seat.and_then(|s| Some((s, table.restart(s, "restarted with its worktree")?)))
        {
            let (rt, note) = (self.clone(), self.worktree_note(&made));
            table.restarts().spawn(async move {
                // The lead is started by its next message; an agent goes on now.
                if restart.stopped().await && seat != app::domain::LEAD_SEAT {
                    rt.inner.team.go_on(seat, &note).await;
                }
            });
        }
        Ok(made)
    }

    /// What an agent put to work while awake is told as it goes on.
    fn worktree_note(&self, made: &app::domain::docs::WorktreeDoc) -> String {
        let project = self.store().with_docs(|d| {
            app::domain::projects::projects(d)
                .into_iter()
                .find(|p| p.project_id == made.project_id)
                .map(|p| p.name.clone())
        });
        format!(
            "You are now at work on {}: your worktree is {}, on branch {}. Edit and commit \
             there; what you commit on the branch is what gets reviewed.",
            project.as_deref().unwrap_or("a project"),
            made.path,
            made.branch
        )
    }

    /// Returns once every restart asked so far (an agent put to work while awake) has started
    /// its agent again or was given up.
    pub async fn restarts_settled(&self) {
        self.inner.processes.table().restarts().settled().await
    }
}
