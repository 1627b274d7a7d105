//! Permission prompts (`--permissions ui`): agents run with `--permission-prompt-tool stdio`,
//! so every tool call the CLI's rules do not already allow arrives as a `can_use_tool` control
//! request. It is recorded as a `permission_request` and waits for the human (Approve / Deny in
//! the UI, `POST /api/permissions/{id}`), or for the timeout, which denies it. Exactly one answer
//! is written back to the CLI and recorded as a `permission_decision`.

use std::time::Duration;

use app::domain::docs::request;
use app::domain::escalation::Approver;
use app::domain::events::EventKind;
use app::domain::permissions::{updates_for, Decider, Decision, PermissionState};

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::runtime::process::protocol;
use crate::runtime::process::table::Table;
use crate::runtime::record::Recorder;
use crate::store::Store;

pub use crate::runtime::config::PermissionMode;

/// Why an answer could not be given.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecideError {
    #[error("no permission request {0:?}")]
    Unknown(String),
    #[error("the request was already {}", .0.as_str())]
    Settled(PermissionState),
    #[error("the request is being answered")]
    Answering,
    #[error("the agent that asked is not running any more")]
    Gone,
    #[error(
        "no such rule to remember for this request (see its suggestions); allow it once instead"
    )]
    NothingToRemember,
}

/// The human's answers to permission requests: the team room's owner of them. Cheap to clone.
#[derive(Clone)]
pub struct Permissions {
    pub(in crate::runtime) store: Store,
    pub(in crate::runtime) recorder: Recorder,
    pub(in crate::runtime) table: Table,
    /// A request nobody answers is denied after this long.
    pub(in crate::runtime) timeout: Duration,
    /// A request the lead does not answer goes to the human after this long.
    pub(in crate::runtime) lead_timeout: Duration,
    pub(in crate::runtime) shutdown: CancellationToken,
    /// Cancelled when the server begins to shut down: every waiting request is denied.
    pub(in crate::runtime) closing: CancellationToken,
    /// Requests an answer was claimed for: the first claim answers.
    pub(in crate::runtime) answered: Arc<Mutex<HashSet<String>>>,
    /// Rules change one at a time (each takes the next number).
    pub(in crate::runtime) rule_changes: Arc<tokio::sync::Mutex<()>>,
    /// Where its waits are spawned, owned (`crate::tasks`).
    pub(in crate::runtime) tasks: crate::tasks::Tasks,
}

impl Permissions {
    pub fn new(ctx: &crate::runtime::context::Context, table: Table) -> Self {
        Permissions {
            store: ctx.store().clone(),
            recorder: ctx.recorder().clone(),
            table,
            timeout: ctx.config().agents.permission_timeout,
            lead_timeout: ctx.config().agents.lead_approval_timeout,
            shutdown: ctx.shutdown_token(),
            closing: ctx.closing_token(),
            answered: Default::default(),
            rule_changes: Default::default(),
            tasks: ctx.tasks().clone(),
        }
    }

    /// Permission answers being written now (claims are let go once the request is settled).
    pub fn answers_in_progress(&self) -> usize {
        self.claims().len()
    }

    fn claims(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.answered.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True for the first caller only: that one answers `request_id`.
    fn claim_answer(&self, request_id: &str) -> bool {
        self.claims().insert(request_id.to_string())
    }

    fn release_answer(&self, request_id: &str) {
        self.claims().remove(request_id);
    }

    /// Answers a pending permission request: writes the `control_response` on the asking
    /// process's stdin and records the decision. The first answer wins; a later one (a second
    /// tab, the timeout) gets an error and changes nothing.
    pub async fn decide(
        &self,
        request_id: &str,
        decision: Decision,
        message: Option<String>,
        by: Decider,
        suggestion: Option<usize>,
    ) -> Result<PermissionState, DecideError> {
        let doc = self
            .store
            .with_docs(|d| request(d, request_id).cloned())
            .ok_or_else(|| DecideError::Unknown(request_id.to_string()))?;
        if !doc.is_pending() {
            return Err(DecideError::Settled(doc.state));
        }
        let updates = match decision {
            Decision::AllowAlways => {
                Some(updates_for(&doc, suggestion).ok_or(DecideError::NothingToRemember)?)
            }
            _ => None,
        };
        if !self.claim_answer(request_id) {
            return Err(DecideError::Answering);
        }
        let answered = self
            .answer_claimed(&doc, request_id, decision, message, by, suggestion, updates)
            .await;
        // Settled (or impossible): the document says so from now on; the claim can go.
        self.release_answer(request_id);
        answered
    }

    #[allow(clippy::too_many_arguments)]
    async fn answer_claimed(
        &self,
        doc: &app::domain::permissions::PermissionDoc,
        request_id: &str,
        decision: Decision,
        message: Option<String>,
        by: Decider,
        suggestion: Option<usize>,
        updates: Option<Vec<serde_json::Value>>,
    ) -> Result<PermissionState, DecideError> {
        let stdin = self.table.live(doc.seat).map(|l| l.stdin);
        let Some(stdin) = stdin else {
            return Err(DecideError::Gone);
        };
        let message = message
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty());
        let line = match decision {
            Decision::Allow => protocol::allow(request_id, &doc.input),
            Decision::AllowAlways => protocol::allow_always(
                request_id,
                &doc.input,
                &serde_json::Value::Array(updates.unwrap_or_default()),
            ),
            Decision::Deny => protocol::deny(
                request_id,
                message
                    .as_deref()
                    .unwrap_or("The human denied this tool call."),
            ),
        };
        // Stored before the CLI is told: told first, it can carry the answer out and end its
        // turn before the decision is stored, and the turn's end would settle the request as
        // cancelled.
        tracing::info!(seat = doc.seat, request_id, ?decision, ?by, tool = %doc.tool_name, "permission answered");
        let _ = self
            .recorder
            .record(vec![EventKind::PermissionDecision {
                seat: doc.seat,
                request_id: request_id.to_string(),
                decision,
                message,
                decided_by: by,
                suggestion: suggestion.filter(|_| decision == Decision::AllowAlways),
                rule: None,
            }])
            .await;
        if stdin.send(line).await.is_err() {
            return Err(DecideError::Gone);
        }
        Ok(match decision {
            Decision::Allow | Decision::AllowAlways => PermissionState::Allowed,
            Decision::Deny => PermissionState::Denied,
        })
    }

    /// Hands a request that waits for the lead to the human, saying why; one settled or with
    /// the human already stays as it is.
    pub(in crate::runtime) async fn escalate(&self, request_id: &str, why: String) {
        let seat = self.store.with_docs(|d| {
            request(d, request_id)
                .filter(|p| p.is_pending() && p.with == Some(Approver::Lead))
                .map(|p| p.seat)
        });
        let Some(seat) = seat else {
            return;
        };
        tracing::info!(request_id, why, "permission request handed to the human");
        let _ = self
            .recorder
            .record(vec![EventKind::PermissionRouted {
                seat,
                request_id: request_id.to_string(),
                to: Approver::Human,
                why: Some(why),
            }])
            .await;
    }

    /// Hands `request_id` to the human if the lead has not answered it in time, or at once if
    /// the lead's process stops meanwhile (it crashed, it was put to sleep).
    pub(in crate::runtime) fn escalate_when_unanswered(&self, request_id: String) {
        let rt = self.clone();
        let (timeout, shutdown) = (self.lead_timeout, self.shutdown.clone());
        let lead_done = self.table.done(app::domain::LEAD_SEAT);
        self.tasks.spawn(async move {
            let lead_gone = async {
                match lead_done {
                    Some(done) => crate::runtime::process::table::wait_done(done).await,
                    None => std::future::pending().await,
                }
            };
            let why = tokio::select! {
                _ = tokio::time::sleep(timeout) => {
                    format!("the lead did not answer within {}", human_duration(timeout))
                }
                _ = lead_gone => "the lead stopped before answering".to_string(),
                _ = shutdown.cancelled() => return,
            };
            rt.escalate(&request_id, why).await;
        });
    }

    /// Denies `request_id` if nobody has answered it when the timeout runs out, or at once
    /// when the server begins to shut down (nobody will answer it, and the agent's distil turn
    /// would wait for it).
    pub(in crate::runtime) fn deny_when_unanswered(&self, request_id: String) {
        let rt = self.clone();
        let timeout = self.timeout;
        let (shutdown, closing) = (self.shutdown.clone(), self.closing.clone());
        self.tasks.spawn(async move {
            let (message, by) = tokio::select! {
                _ = tokio::time::sleep(timeout) => (
                    format!(
                        "Nobody answered within {}; denied automatically.",
                        human_duration(timeout)
                    ),
                    Decider::Timeout,
                ),
                _ = closing.cancelled() => (
                    "The server is shutting down; denied.".to_string(),
                    Decider::Shutdown,
                ),
                _ = shutdown.cancelled() => return,
            };
            match rt
                .decide(&request_id, Decision::Deny, Some(message), by, None)
                .await
            {
                Ok(_) => tracing::warn!(request_id, "permission request timed out: denied"),
                Err(e) => tracing::debug!(request_id, "timeout found the request settled: {e}"),
            }
        });
    }
}

/// `90 s`, `5 min`, `1 h 30 min`.
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => format!("{} ms", d.as_millis()),
        1..=119 => format!("{s} s"),
        _ if s < 3600 => format!("{} min", s / 60),
        _ if s.is_multiple_of(3600) => format!("{} h", s / 3600),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}
