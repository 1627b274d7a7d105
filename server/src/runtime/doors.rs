//! The runtime's doors to its governing rooms: permission answers, rules and budgets
//! (`team`, `budgets`), external agents (`external/`) and quests (`quest/`), each a forwarder to
//! the room that owns it.

use app::domain::Seat;

use super::*;

impl Runtime {
    /// Permission answers being written now (claims are let go once the request is settled).
    pub fn answers_in_progress(&self) -> usize {
        self.inner.permissions.answers_in_progress()
    }

    /// Answers a pending permission request (`team::permissions::Permissions::decide`).
    pub async fn decide(
        &self,
        request_id: &str,
        decision: app::domain::permissions::Decision,
        message: Option<String>,
        by: app::domain::permissions::Decider,
        suggestion: Option<usize>,
    ) -> Result<app::domain::permissions::PermissionState, DecideError> {
        self.inner
            .permissions
            .decide(request_id, decision, message, by, suggestion)
            .await
    }

    /// Sets a budget (`budgets`).
    pub async fn set_budget(&self, change: BudgetChange) -> Result<(), BudgetError> {
        self.inner.budgets.set(change).await
    }

    /// Follows the log for budgets' levels and hands held mail over when a limit rises or a
    /// day begins.
    pub fn watch_budgets(&self) {
        self.inner.budgets.watch()
    }

    /// The rules of the identity `id` (`team::rules`).
    pub fn rules(&self, id: &str) -> Result<Kept, RuleChangeError> {
        self.inner.permissions.rules(id)
    }

    /// Gives the identity `id` a rule: calls it covers are allowed without asking.
    pub async fn add_rule(&self, id: &str, rule: &str) -> Result<Kept, RuleChangeError> {
        self.inner.permissions.add_rule(id, rule).await
    }

    /// Takes rule number `n` from the identity `id`.
    pub async fn remove_rule(&self, id: &str, n: u32) -> Result<Kept, RuleChangeError> {
        self.inner.permissions.remove_rule(id, n).await
    }

    // External agents (`external/`).

    /// An invite for an external agent into `seat` (or the first empty seat): its token.
    pub async fn invite(&self, seat: Option<Seat>) -> Result<String, external::InviteError> {
        self.inner.externals.invite(seat).await
    }

    /// A new secret for the external identity `id` (shown once).
    pub async fn rotate_secret(&self, id: &str) -> Result<String, external::SecretError> {
        self.inner.externals.rotate_secret(id).await
    }

    /// An external agent's connection, from its register frame to its end.
    pub async fn external_connected(&self, wire: external::wire::Wire) {
        self.inner.externals.connected(wire).await
    }

    // Quests (`quest/`).

    /// The human's problem: a new quest, briefed to the lead. Returns its id.
    pub async fn start_quest(
        &self,
        problem: &str,
        folder: Option<&str>,
        project: Option<&str>,
    ) -> Result<String, QuestStartError> {
        self.inner
            .quests
            .start_quest(problem, folder, project)
            .await
    }

    /// Posts a job by `by`: its id, whom it goes to now and how the rest get it.
    pub async fn post_job(
        &self,
        title: &str,
        text: &str,
        by: &str,
    ) -> Result<app::contract::JobPosted, crate::store::StoreError> {
        let (id, offered, awake) = self.inner.quests.post_job(title, text, by).await?;
        Ok(app::contract::JobPosted {
            said: quest::jobs::job_posted(&id, offered, awake),
            id,
            offered,
            awake,
        })
    }

    /// The human pins or strikes a finding, or comments on it.
    pub async fn mark_finding(
        &self,
        quest_id: &str,
        finding_id: &str,
        pinned: Option<bool>,
        struck: Option<bool>,
        comment: Option<String>,
    ) -> Result<(), QuestEditError> {
        self.inner
            .quests
            .mark_finding(quest_id, finding_id, pinned, struck, comment)
            .await
    }

    /// The human abandons a quest: it ends where it is.
    pub async fn abandon_quest(&self, quest_id: &str, reason: &str) -> Result<(), QuestEditError> {
        self.inner.quests.abandon_quest(quest_id, reason).await
    }

    /// Starts the task that joins newcomers, ends stalled stages and resumes a quest.
    pub fn watch_quests(&self) {
        self.inner.quests.watch_quests()
    }
}
