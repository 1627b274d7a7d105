//! Fork: a new identity from an agent's history. The parent's running turn ends first (the
//! sync barrier, said on its seat as "forking after this turn"); then the child hatches in an
//! empty seat from the parent's Claude session (`--resume <session> --fork-session`: it carries
//! the parent's conversation), is told it is a fork, and chooses its own name and soul.

use std::time::Duration;

use app::domain::docs::identity;
use app::domain::docs::page::seat_thread_owners;
use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::provenance;
use app::domain::Seat;

use crate::runtime::ids::uuid22;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::process::spawn::{process_event, Spec};
use crate::runtime::process::table::Reservation;
use crate::runtime::prompts;
use crate::runtime::team::hall::{HallError, Seated};
use crate::runtime::team::Team;

/// How long a fork waits for the parent's running turn to end.
const BARRIER: Duration = Duration::from_secs(10 * 60);

/// Why a fork cannot be made (nothing is made then).
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error("seat {0} has no named agent to fork")]
    NoParent(Seat),
    #[error("{0} has no Claude session yet: there is nothing to fork from")]
    NoSession(String),
    #[error("{0} is an external agent: its history is its program's, not a Claude session the console could fork")]
    External(String),
    #[error("{0} has reached {1}: a fork would share it, so none is made until it is raised")]
    OverBudget(String, String),
    #[error(transparent)]
    Seat(#[from] HallError),
}

impl Team {
    /// Forks the agent in `parent` into `seat` (or the first empty seat: see
    /// [`Team::seat_for`]), with an optional first message from `from`. Returns the child's
    /// seat once it is reserved; the child starts when the parent's running turn has ended.
    pub async fn fork(
        &self,
        parent: Seat,
        message: Option<(String, String)>,
        seat: Option<Seat>,
    ) -> Result<Seated, ForkError> {
        let (parent_id, parent_name, session, external) = self
            .ctx
            .store()
            .with_docs(|d| {
                let p = identity(d, parent).filter(|p| p.status().is_visible() && p.has_name())?;
                Some((
                    p.stable_id(),
                    p.name.clone()?,
                    p.claude_session_id.clone(),
                    p.external,
                ))
            })
            .ok_or(ForkError::NoParent(parent))?;
        if external {
            return Err(ForkError::External(parent_name));
        }
        if session.is_none() {
            return Err(ForkError::NoSession(parent_name));
        }
        // A fork shares its parent's budget: one at its limit has nothing to share.
        let now = self.ctx.clock().now_ms();
        let over = self
            .ctx
            .store()
            .with_docs(|d| app::domain::budget::reached(d, &parent_id, now).map(|hit| hit.words()));
        if let Some(words) = over {
            return Err(ForkError::OverBudget(parent_name, words));
        }
        let seated = self
            .seat_for(seat, &format!("a fork of {parent_name}"))
            .await?;
        let child = seated.seat;
        let reservation = self
            .processes
            .reserve(child)
            .map_err(|_| HallError::Occupied(child))?;
        let (rt, from) = (self.clone(), (parent, parent_id, parent_name));
        self.ctx
            .spawn(async move { rt.hatch(from, reservation, message).await });
        Ok(seated)
    }

    /// The fork hatches once the parent's running turn has ended: recorded at the parent's
    /// session and last message as the turn left them (the fork point), then started from that
    /// session with its letter.
    async fn hatch(
        &self,
        (parent, parent_id, parent_name): (Seat, String, String),
        reservation: Reservation,
        message: Option<(String, String)>,
    ) {
        let child = reservation.seat();
        self.wait_for_turn_end(parent).await;
        // The parent's session and last message as the turn left them: the fork point.
        let (session, fork_message_id) = self.ctx.store().with_newest(|d, threads| {
            (
                identity(d, parent).and_then(|p| p.claude_session_id.clone()),
                threads
                    .newest(&seat_thread_owners(d, parent))
                    .map(|m| m.id.clone()),
            )
        });
        let uuid = uuid22();
        self.ctx
            .record(vec![EventKind::AgentForked {
                seat: child,
                uuid: uuid.clone(),
                parent_id,
                fork_message_id,
            }])
            .await;
        let placed = self.ctx.store().with_docs(|d| {
            identity(d, child).is_some_and(|c| c.uuid.as_deref() == Some(uuid.as_str()))
        });
        if !placed {
            return;
        }
        let data_dir = &self.ctx.config().data_dir;
        let mut letter = prompts::fork_letter(data_dir, child, &parent_name, self.ctx.names());
        if let Some((from, text)) = message {
            letter = format!("{letter}\n\n{}", provenance::delivered(&from, &text));
        }
        let spec = Spec {
            seat: child,
            name: None,
            summoning: true,
            system_prompt: prompts::agent_prompt(data_dir, self.ctx.names()),
            first_message: Outgoing::text(letter),
            resume: session,
            fork: true,
            aside: Some(app::domain::events::Aside::Birth),
        };
        if let Err(e) = self.processes.start_reserved(reservation, spec).await {
            tracing::warn!(seat = child, error = %e, "starting a fork failed");
        }
    }

    /// The parent's running turn, if any, ends first; its seat says so meanwhile (bounded).
    async fn wait_for_turn_end(&self, parent: Seat) {
        let Some(live) = self.processes.table().live(parent) else {
            return;
        };
        if !live.is_busy() {
            return;
        }
        self.ctx
            .record(vec![process_event(
                parent,
                ProcessState::Running,
                Some("forking after this turn".into()),
                None,
            )])
            .await;
        let gone = async {
            if let Some(done) = self.processes.table().done(parent) {
                crate::runtime::process::table::wait_done(done).await;
            }
        };
        tokio::select! {
            _ = live.busy.idle() => {}
            _ = gone => {}
            _ = tokio::time::sleep(BARRIER) => {
                tracing::warn!(seat = parent, "the parent's turn did not end within the fork's barrier");
            }
        }
    }
}
