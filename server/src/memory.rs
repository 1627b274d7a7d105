//! An in-memory snapshot source: the documents of the current session, built with the shared
//! reducer. The durable store replaces it (issue: durable event log).

use std::sync::RwLock;

use app::domain::docs::{commit, Docs};
use app::domain::events::{Event, EventKind};
use app::domain::reducer::apply;
use app::functions::{Snapshot, SnapshotSource};

pub struct MemorySnapshots {
    inner: RwLock<Snapshot>,
}

impl MemorySnapshots {
    /// Starts a session: the lead's seat exists from the first event on.
    pub fn start(lead_name: &str, human_name: &str, now_ms: i64, session_id: &str) -> Self {
        let mut docs = Docs::new();
        let event = Event {
            id: 1,
            ts: now_ms,
            session_id: session_id.to_string(),
            kind: EventKind::SessionStart {
                lead_name: Some(lead_name.to_string()),
                human_name: Some(human_name.to_string()),
            },
        };
        let writes = apply(&docs, &event);
        commit(&mut docs, writes);
        MemorySnapshots {
            inner: RwLock::new(Snapshot {
                docs,
                last_event_id: event.id,
                lead_name: lead_name.to_string(),
                human_name: human_name.to_string(),
            }),
        }
    }
}

impl SnapshotSource for MemorySnapshots {
    fn snapshot(&self) -> Snapshot {
        self.inner
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}
