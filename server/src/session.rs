//! Server sessions: every run of the server is one session in the log. No agent process survives
//! a restart, so a session that did not end cleanly is ended on the next start.

use app::domain::events::{Event, EventKind};

use crate::store::{Store, StoreError};

/// What the log says about the previous run, and the new session's first event.
pub struct Started {
    pub session_id: String,
    pub recovered: Option<Event>,
    pub start: Event,
}

/// Appends `session_end` for an unclean previous session, then `session_start`.
pub async fn start(
    store: &Store,
    lead_name: &str,
    human_name: &str,
) -> Result<Started, StoreError> {
    let recovered = match store.last_session_event().await? {
        Some(e) if matches!(e.kind, EventKind::SessionStart { .. }) => {
            tracing::warn!(session = %e.session_id, "the previous session did not end cleanly; ending it");
            Some(
                store
                    .append(
                        &e.session_id,
                        EventKind::SessionEnd {
                            reason: Some("unclean shutdown".into()),
                        },
                    )
                    .await?,
            )
        }
        _ => None,
    };
    let session_id = uuid::Uuid::new_v4().to_string();
    let start = store
        .append(
            &session_id,
            EventKind::SessionStart {
                lead_name: Some(lead_name.to_string()),
                human_name: Some(human_name.to_string()),
            },
        )
        .await?;
    tracing::info!(session = %session_id, event = start.id, "session started");
    Ok(Started {
        session_id,
        recovered,
        start,
    })
}

/// Ends the session cleanly (server shutdown or `POST /api/session/end`).
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
