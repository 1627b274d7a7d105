//! What an agent asks of the runtime with a marker (the lead's `summon` and `dismiss`, anyone's
//! `route`), carried out apart from the process that asked: a request may stop that very process.

use std::future::Future;
use std::pin::Pin;

use super::turn::LeadRequest;
use super::Runtime;

/// Boxed with an explicit `Send`: summoning starts processes whose supervisors run this, and
/// the compiler cannot infer auto traits through that cycle by itself.
pub(super) fn handle(
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
                rt.stop(seat, "dismissed by the lead").await;
            }
        }
        LeadRequest::Route { from, to, text } => rt.route(&from, &to, &text).await,
    }
}
