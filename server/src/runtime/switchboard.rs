//! The runtime's switchboard, part of the façade: where a process's reports go (mail taken, a
//! permission asked, a request made by marker or tool), and what an agent asks of the runtime
//! (the lead's `summon`, `dismiss`, `kill` and `recall`, anyone's `route`, `fork`, mail, quest
//! and job requests), carried out by the room each belongs to. A request is carried out apart
//! from the process that asked: it may stop that very process.
//!
//! Each request ends in an outcome, settled in one place (`Postman::settle`): a refusal is
//! recorded once on the asker's seat; a tool call is answered with the outcome; a marker whose
//! refusal the asker must hear of is told it as a message.

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;

use app::domain::tools::seat_number;
use app::domain::Seat;

use crate::runtime::process::answer::Answer;
use crate::runtime::process::owner::Reports;
use crate::runtime::process::supervisor::Report;
use crate::runtime::process::table::Live;
use crate::runtime::process::turn::LeadRequest;
use crate::runtime::team::fork::ForkError;
use crate::runtime::{HallError, Inner, Runtime};

mod carry;
mod lead_first;

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
                // Its own task: putting it to the lead writes to the lead's stdin.
                Report::Asked(request_id) => {
                    let tasks = rt.tasks().clone();
                    tasks.spawn(async move { rt.asked(request_id).await });
                }
                // In order, one at a time: a finding before the `stage_done` after it, a claim
                // before its `job_done`.
                Report::Request(LeadRequest::Quest(request), answer) => {
                    rt.inner.quests.enqueue(request, answer)
                }
                // Its own task: a request may stop the very process that asked.
                Report::Request(request, answer) => {
                    let tasks = rt.tasks().clone();
                    tasks.spawn(handle(rt, request, answer));
                }
            }
        })
    }
}

/// Boxed with an explicit `Send`: summoning starts processes whose supervisors run this, and
/// the compiler cannot infer auto traits through that cycle by itself.
fn handle(
    rt: Runtime,
    request: LeadRequest,
    answer: Option<Answer>,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let (seat, line) = (request.asker(), request.line());
        let outcome = rt.carry(request).await;
        rt.inner
            .postman
            .settle(seat, &line, false, outcome, answer)
            .await;
    })
}

/// A seat's refusal in an agent's words (its seats numbered 1-9, as `team` lists them).
pub(in crate::runtime) fn hall_refusal(e: &HallError, name: &str) -> String {
    match e {
        HallError::NotASeat(s) => format!(
            "seat {} is not an agent's seat: the agents' seats are 1-4 and 6-9",
            seat_number(*s)
        ),
        HallError::Empty(s) => format!(
            "seat {} is empty: there is nobody to retire",
            seat_number(*s)
        ),
        HallError::NotInHall(_) => {
            format!("nobody in the Hall is called {name:?}: call team for who is in the Hall")
        }
        HallError::Occupied(s) => format!(
            "seat {} is not empty: call team for the empty seats",
            seat_number(*s)
        ),
        HallError::NoEmptySeat => e.to_string(),
        HallError::Refused(s) => format!(
            "{name} could not take seat {}: someone seated has its name",
            seat_number(*s)
        ),
        HallError::Store(e) => format!("the console could not record it ({e}): try again"),
    }
}

/// A fork's refusal in an agent's words.
fn fork_refusal(e: &ForkError) -> String {
    match e {
        ForkError::NoParent(_) => "there is no named agent there to fork".into(),
        ForkError::NoSession(name) => {
            format!("{name} has no conversation yet: there is nothing to fork from")
        }
        ForkError::External(name) => {
            format!("{name} is an external agent: there is no Claude session to fork")
        }
        ForkError::OverBudget(name, words) => {
            format!(
                "{name} has reached {words}: a fork shares it, so none is made until it is raised"
            )
        }
        ForkError::Seat(e) => hall_refusal(e, "the fork"),
    }
}
