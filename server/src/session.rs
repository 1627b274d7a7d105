//! Server sessions: every run of the server is one session in the log, and `POST
//! /api/session/end` starts another. No agent process survives a restart, so a session that did
//! not end cleanly is ended on the next start.

use std::sync::{Arc, RwLock};

use app::domain::events::{Event, EventKind};

use crate::store::{Store, StoreError};

/// The id of the current server session; every event appended now belongs to it.
#[derive(Debug)]
pub struct Session(RwLock<Arc<str>>);

impl Session {
    /// No session: a follower (`cluster`) records nothing; the leader's session is the team's.
    pub fn none() -> Arc<Session> {
        Arc::new(Session(RwLock::new(Arc::from(""))))
    }

    pub fn id(&self) -> Arc<str> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, id: Arc<str>) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = id;
    }
}

/// Appends `session_end` for an unclean previous session, then `session_start`.
pub async fn start(
    store: &Store,
    lead_name: &str,
    human_name: &str,
) -> Result<Arc<Session>, StoreError> {
    if let Some(e) = store.last_session_event().await? {
        if matches!(e.kind, EventKind::SessionStart { .. }) {
            tracing::warn!(session = %e.session_id, "the previous session did not end cleanly; ending it");
            end(store, &e.session_id, "unclean shutdown").await?;
        }
    }
    let session = Arc::new(Session(RwLock::new(Arc::from(""))));
    begin(store, &session, lead_name, human_name).await?;
    Ok(session)
}

/// Starts a new session (after `session_end`).
pub async fn begin(
    store: &Store,
    session: &Session,
    lead_name: &str,
    human_name: &str,
) -> Result<Event, StoreError> {
    let id: Arc<str> = uuid::Uuid::new_v4().to_string().into();
    let start = store
        .append(
            &id,
            EventKind::SessionStart {
                lead_name: Some(lead_name.to_string()),
                human_name: Some(human_name.to_string()),
            },
        )
        .await?;
    session.set(id.clone());
    tracing::info!(session = %id, event = start.id, "session started");
    Ok(start)
}

/// Records the end of a session: every alive seat sleeps.
pub async fn end(store: &Store, session_id: &str, reason: &str) -> Result<Event, StoreError> {
    store
        .append(
            session_id,
            EventKind::SessionEnd {
                reason: Some(reason.to_string()),
            },
        )
        .await
}
