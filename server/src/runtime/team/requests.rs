//! What an agent asks of the runtime with a marker (the lead's `summon`, `dismiss`, `kill` and
//! `recall`, anyone's `route` and `fork` of itself), carried out apart from the process that asked: a request may stop that very process.

use std::future::Future;
use std::pin::Pin;

use crate::runtime::process::turn::LeadRequest;
use crate::runtime::Runtime;

/// Boxed with an explicit `Send`: summoning starts processes whose supervisors run this, and
/// the compiler cannot infer auto traits through that cycle by itself.
pub(in crate::runtime) fn handle(
    rt: Runtime,
    request: LeadRequest,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move { handle_inner(&rt, request).await })
}

async fn handle_inner(rt: &Runtime, request: LeadRequest) {
    match request {
        LeadRequest::Summon => {
            if let Err(e) = rt.summon().await {
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
                None => Err(crate::runtime::team::hall::HallError::NotInHall(
                    name.clone(),
                )),
            };
            if let Err(e) = result {
                rt.lead_marker_error(&format!("kill {name}"), &e.to_string())
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
                None => Err(crate::runtime::team::hall::HallError::NotInHall(
                    name.clone(),
                )),
            };
            if let Err(e) = result {
                rt.lead_marker_error(&format!("recall {name}"), &e.to_string())
                    .await;
            }
        }
        LeadRequest::Fork { seat, from, prompt } => {
            let message = prompt.filter(|p| !p.trim().is_empty()).map(|p| (from, p));
            if let Err(e) = rt.fork(seat, message, None).await {
                rt.record(vec![app::domain::events::EventKind::MarkerError {
                    seat: Some(seat),
                    line: "fork".into(),
                    error: e.to_string(),
                }])
                .await;
            }
        }
        LeadRequest::Route { from, to, text } => rt.route(&from, &to, &text).await,
        LeadRequest::Quest(request) => rt.enqueue_quest(request),
    }
}
