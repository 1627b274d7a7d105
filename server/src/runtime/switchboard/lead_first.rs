//! Lead-first approvals (`--approvals lead-first`), part of the switchboard: a request the
//! translator routed to the lead is put to it (with the agent's rules and how to answer); a lead
//! that cannot be reached (it is started for it, as for any message), or does not answer within `--lead-approval-timeout`, hands it to the
//! human. The lead's `decide_permission` is carried out here: its answer is recorded as its own,
//! and a request the human keeps is never the lead's to decide (escalated, not applied).

use app::domain::docs::{identity, request};
use app::domain::escalation::{ask_lead, Approver};
use app::domain::permissions::{Decider, Decision};
use app::domain::LEAD_SEAT;

use crate::runtime::config::ApprovalMode;
use crate::runtime::process::answer::Outcome;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::{human_duration, Delivery, Runtime};

impl Runtime {
    /// A request now waits for an answer.
    pub(in crate::runtime) async fn asked(&self, request_id: String) {
        let permissions = &self.inner.permissions;
        permissions.deny_when_unanswered(request_id.clone());
        let found = self.store().with_docs(|d| {
            let p = request(d, &request_id).filter(|p| p.with == Some(Approver::Lead))?;
            let who = identity(d, p.seat);
            let name = who
                .and_then(|w| w.name.clone())
                .unwrap_or_else(|| format!("The agent in seat {}", p.seat + 1));
            let rules = who.map(|w| w.rules.clone()).unwrap_or_default();
            Some((p.clone(), name, rules))
        });
        let Some((p, name, rules)) = found else {
            return;
        };
        let wait = human_duration(self.config().agents.lead_approval_timeout);
        let text = ask_lead(&p, &name, &rules, &wait);
        tracing::info!(
            request_id,
            seat = p.seat,
            "permission request put to the lead"
        );
        // A sleeping lead is started with it, as with any message to the lead.
        let delivery = self
            .inner
            .postman
            .deliver(LEAD_SEAT, Outgoing::text(text))
            .await;
        match delivery {
            Delivery::Queued => {
                permissions
                    .escalate(&request_id, "the lead could not be reached".into())
                    .await
            }
            _ => permissions.escalate_when_unanswered(request_id),
        }
    }

    /// The lead's `decide_permission`.
    pub(in crate::runtime) async fn lead_decides(
        &self,
        request_id: &str,
        decision: &str,
        reason: Option<String>,
    ) -> Outcome {
        if self.config().agents.approvals != ApprovalMode::LeadFirst {
            return Err("the human answers every request here (--approvals human): there is nothing for you to decide".into());
        }
        let decision = match decision {
            "allow" => Decision::Allow,
            "deny" => Decision::Deny,
            other => return Err(format!("decision is allow or deny, not {other:?}").into()),
        };
        let found = self.store().with_docs(|d| {
            let p = request(d, request_id)?.clone();
            let name = identity(d, p.seat)
                .and_then(|w| w.name.clone())
                .unwrap_or_else(|| "the agent".into());
            Some((p, name))
        });
        let (p, name) = found.ok_or_else(|| {
            format!("there is no permission request {request_id:?}: use the id Soulgrid's message gives")
        })?;
        if !p.is_pending() {
            return Err(format!("{name}'s request was already {}", p.state.as_str()).into());
        }
        if p.with != Some(Approver::Lead) {
            let why = p.routed_why.as_deref().unwrap_or("the human keeps it");
            tracing::warn!(
                request_id,
                ?decision,
                "the lead tried to decide a request the human keeps"
            );
            return Err(format!(
                "{name}'s request is the human's to answer ({why}); it waits for the human and your answer was not applied"
            )
            .into());
        }
        let reason = reason
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty());
        self.inner
            .permissions
            .decide(request_id, decision, reason, Decider::Lead, None)
            .await
            .map_err(|e| format!("{name}'s request: {e}"))?;
        Ok(match decision {
            Decision::Deny => format!("{name} is told no, with your reason."),
            _ => format!("{name} may use {} now.", p.tool_name),
        })
    }
}
