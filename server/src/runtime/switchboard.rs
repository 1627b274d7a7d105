//! The runtime's switchboard, part of the façade: where a process's reports go (mail taken, a
//! permission asked, a marker's request), and what an agent asks of the runtime with a marker
//! (the lead's `summon`, `dismiss`, `kill` and `recall`, anyone's `route` and `fork` of
//! itself, quest and job markers), carried out by the room each belongs to. A request is
//! carried out apart from the process that asked: it may stop that very process.

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;

use app::domain::{Seat, LEAD_SEAT};

use crate::runtime::process::owner::Reports;
use crate::runtime::process::supervisor::Report;
use crate::runtime::process::table::Live;
use crate::runtime::process::turn::LeadRequest;
use crate::runtime::{Inner, Runtime};

/// The process room's [`Reports`], answered by the runtime it belongs to (held weakly: the
/// runtime holds the process room).
pub(in crate::runtime) struct Switchboard(pub(in crate::runtime) Weak<Inner>);

impl Reports for Switchboard {
    fn report<'a>(
        &'a self,
        seat: Seat,
        live: &'a Live,
        report: Report,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            let Some(inner) = self.0.upgrade() else {
                // The runtime is gone (the server is shutting down): nobody is left to act.
                tracing::warn!(
                    seat,
                    ?report,
                    "a process report came after the runtime was dropped"
                );
                return;
            };
            let rt = Runtime { inner };
            match report {
                Report::Taken(uuid) => rt.inner.postman.mark_taken(seat, live, &uuid).await,
                Report::Asked(request_id) => rt.inner.permissions.deny_when_unanswered(request_id),
                // In order, one at a time: a finding before the `stage_done` after it, a claim
                // before its `job_done`.
                Report::Request(LeadRequest::Quest(request)) => rt.inner.quests.enqueue(request),
                // Its own task: a request may stop the very process that asked.
                Report::Request(request) => {
                    tokio::spawn(handle(rt, request));
                }
            }
        })
    }
}

/// Boxed with an explicit `Send`: summoning starts processes whose supervisors run this, and
/// the compiler cannot infer auto traits through that cycle by itself.
fn handle(rt: Runtime, request: LeadRequest) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move { handle_inner(&rt, request).await })
}

async fn handle_inner(rt: &Runtime, request: LeadRequest) {
    match request {
        LeadRequest::Summon => {
            if let Err(e) = rt.summon_only(None).await {
                tracing::warn!(error = %e, "the lead's summon failed");
            }
        }
        LeadRequest::Dismiss { name } => {
            if let Some(seat) = rt
                .store()
                .with_docs(|d| app::domain::docs::seat_named(d, &name))
            {
                rt.sleep(seat, "dismissed by the lead").await;
            }
        }
        LeadRequest::Kill { name, cascade } => {
            let seat = rt
                .store()
                .with_docs(|d| app::domain::docs::seat_named(d, &name));
            let result = match seat {
                Some(seat) => rt
                    .retire_branch(seat, "retired by the lead", cascade)
                    .await
                    .map(|_| ()),
                None => Err(crate::runtime::HallError::NotInHall(name.clone())),
            };
            if let Err(e) = result {
                rt.inner
                    .ctx
                    .marker_error(LEAD_SEAT, &format!("kill {name}"), &e.to_string())
                    .await;
            }
        }
        LeadRequest::Recall { name } => {
            let folded = app::domain::names::fold(&name);
            let id = rt.store().with_docs(|d| {
                app::domain::docs::hall(d)
                    .find(|h| {
                        h.name.as_deref().map(app::domain::names::fold) == Some(folded.clone())
                    })
                    .map(|h| h.stable_id())
            });
            let result = match id {
                Some(id) => rt.recall(&id, None).await.map(|_| ()),
                None => Err(crate::runtime::HallError::NotInHall(name.clone())),
            };
            if let Err(e) = result {
                rt.inner
                    .ctx
                    .marker_error(LEAD_SEAT, &format!("recall {name}"), &e.to_string())
                    .await;
            }
        }
        LeadRequest::Fork { seat, from, prompt } => {
            let message = prompt.filter(|p| !p.trim().is_empty()).map(|p| (from, p));
            if let Err(e) = rt.fork(seat, message, None).await {
                rt.inner
                    .ctx
                    .marker_error(seat, "fork", &e.to_string())
                    .await;
            }
        }
        LeadRequest::Route { from, to, text } => rt.inner.postman.route(&from, &to, &text).await,
        LeadRequest::Quest(request) => rt.inner.quests.enqueue(request),
    }
}
