//! The runtime's events appended in the current server session, tried again until a deadline
//! (shared by the rooms: every room records through it).

use std::sync::Arc;
use std::time::Duration;

use app::domain::events::EventKind;

use crate::clock::Clock;
use crate::session::Session;
use crate::store::{Store, StoreError};

/// Appends the runtime's events in the current server session.
#[derive(Clone)]
pub struct Recorder {
    pub(in crate::runtime) store: Store,
    pub(in crate::runtime) session: Arc<Session>,
    /// How long an append that fails is tried again before the failure is given up on.
    pub(in crate::runtime) deadline: Duration,
    /// The server's one clock (the store's too).
    pub(in crate::runtime) clock: Clock,
}

impl Recorder {
    /// The server's one clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Appends events in this session, trying again with backoff until the deadline; the
    /// error is returned (and logged) only once it has not been stored by then.
    pub async fn record(&self, events: Vec<EventKind>) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let deadline = tokio::time::Instant::now() + self.deadline;
        let mut backoff = Duration::from_millis(50);
        loop {
            match self
                .store
                .append_all(&self.session.id(), events.clone())
                .await
            {
                Ok(_) => return Ok(()),
                // None comes right by waiting: the store is shut down, stopped on a disk that
                // did not confirm a write, or another server leads now.
                Err(
                    e @ (StoreError::Closed
                    | StoreError::NotDurable
                    | StoreError::Fenced(_)
                    | StoreError::Replica),
                ) => return Err(e),
                Err(e) if tokio::time::Instant::now() + backoff < deadline => {
                    tracing::warn!(error = %e, "recording runtime events failed; trying again");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
                Err(e) => {
                    tracing::error!(error = %e, ?events, "runtime events could not be recorded");
                    return Err(e);
                }
            }
        }
    }
}
