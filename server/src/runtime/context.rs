//! What every room of the runtime works with and none owns: the settings, the store and its
//! recorder, the inbox files, the server's shutdown; and the lookups of who sits where by name
//! and inbox (shared by the rooms: it names none of them).

use std::sync::Arc;

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::mailbox::Mailboxes;
use crate::runtime::config::{Names, RuntimeConfig};
use crate::runtime::record::Recorder;
use crate::session::Session;
use crate::store::Store;

/// The runtime's shared services, cheap to clone (one allocation, shared by every room).
#[derive(Clone)]
pub struct Context(Arc<Shared>);

struct Shared {
    config: RuntimeConfig,
    store: Store,
    session: Arc<Session>,
    recorder: Recorder,
    mailboxes: Mailboxes,
    shutdown: CancellationToken,
    /// Cancelled when the server begins to shut down (before the agents are put to sleep):
    /// new work is refused, waiting approvals denied, distil turns cut to one stop's grace.
    closing: CancellationToken,
    /// Every background task of this server (`crate::tasks`).
    tasks: crate::tasks::Tasks,
}

impl Context {
    pub fn new(
        config: RuntimeConfig,
        mailboxes: Mailboxes,
        store: Store,
        session: Arc<Session>,
        shutdown: CancellationToken,
        clock: Clock,
    ) -> Self {
        let recorder = Recorder {
            store: store.clone(),
            session: session.clone(),
            deadline: config.agents.record_deadline,
            clock,
        };
        Context(Arc::new(Shared {
            config,
            store,
            session,
            recorder,
            mailboxes,
            shutdown,
            closing: CancellationToken::new(),
            tasks: crate::tasks::Tasks::default(),
        }))
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.0.config
    }

    pub fn names(&self) -> &Names {
        &self.0.config.names
    }

    pub fn store(&self) -> &Store {
        &self.0.store
    }

    /// The server session the runtime's events are appended in.
    pub fn session(&self) -> &Arc<Session> {
        &self.0.session
    }

    pub fn recorder(&self) -> &Recorder {
        &self.0.recorder
    }

    pub fn mailboxes(&self) -> &Mailboxes {
        &self.0.mailboxes
    }

    pub fn shutdown_token(&self) -> CancellationToken {
        self.0.shutdown.clone()
    }

    /// Cancelled when the server begins to shut down ([`Shared::closing`]).
    pub fn closing_token(&self) -> CancellationToken {
        self.0.closing.clone()
    }

    /// Where this server's background work is spawned, owned (a shutdown waits for it).
    pub fn tasks(&self) -> &crate::tasks::Tasks {
        &self.0.tasks
    }

    /// Runs `work` in the background, owned by this server ([`Context::tasks`]).
    #[track_caller]
    pub fn spawn<F>(&self, work: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.tasks.spawn(work)
    }

    /// The server's one clock: ages (eggs, stalled stages, stale jobs) are read on it.
    pub fn clock(&self) -> &Clock {
        self.0.recorder.clock()
    }

    /// Appends events in this session (tried again until the deadline); a failure is logged,
    /// never a crash of the runtime.
    pub async fn record(&self, events: Vec<EventKind>) {
        let _ = self.0.recorder.record(events).await;
    }

    /// A request from a marker that could not be carried out, said on the seat that wrote it.
    pub async fn marker_error(&self, seat: Seat, line: &str, why: &str) {
        self.record(vec![EventKind::MarkerError {
            seat: Some(seat),
            line: line.to_string(),
            error: why.to_string(),
        }])
        .await;
    }

    /// The display name of the agent in `seat` (the lead's configured name for the lead).
    pub fn seat_name(&self, seat: Seat) -> Option<String> {
        if seat == LEAD_SEAT {
            return Some(self.names().lead.clone());
        }
        self.store()
            .with_docs(|d| identity(d, seat).and_then(|i| i.name.clone()))
    }

    /// The inbox name of the agent in `seat`: derived from its name when it registered (the
    /// lead's from its configured name); never the display name itself.
    pub fn seat_inbox(&self, seat: Seat) -> Option<String> {
        if seat == LEAD_SEAT {
            return Some(app::domain::names::slug(&self.names().lead));
        }
        self.store()
            .with_docs(|d| identity(d, seat).and_then(|i| i.inbox()))
    }

    /// The seat whose inbox is `inbox`.
    pub fn seat_of_inbox(&self, inbox: &str) -> Option<Seat> {
        if app::domain::names::slug(&self.names().lead) == inbox {
            return Some(LEAD_SEAT);
        }
        self.store().with_docs(|d| {
            app::domain::docs::identities(d)
                .filter(|i| i.status().is_visible())
                .find(|i| i.inbox().as_deref() == Some(inbox))
                .map(|i| i.grid_position)
        })
    }

    /// The human's inbox name, derived from the human's name (`first.last` → `first-last`).
    pub fn human_inbox(&self) -> String {
        app::domain::names::slug(&self.names().human)
    }
}
