//! What every handler can reach.

use std::sync::Arc;

use app::domain::docs::page::{
    channel_owner, history_for, newest_pages, page_before, seat_thread_owners, FIRST, PAGE,
};
use app::functions::{OlderPage, PastError, Snapshot, SnapshotSource};
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use tokio_util::sync::CancellationToken;

use crate::http::security::Security;
use crate::runtime::Runtime;
use crate::session::Session;
use crate::store::Store;

#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub store: Store,
    /// The current server session; every event appended now belongs to it.
    pub session: Arc<Session>,
    pub runtime: Runtime,
    pub lead_name: Arc<str>,
    pub human_name: Arc<str>,
    pub security: Arc<Security>,
    /// Cancelled on shutdown: open SSE streams end so the server can exit promptly.
    pub shutdown: CancellationToken,
    /// Which Claude command runs the agents, as shown in the UI and `/healthz`.
    pub claude_label: Arc<str>,
    /// What the event streams did (subscribers caught up from the store after lagging).
    pub sse: Arc<SseStats>,
    /// Answers of requests sent with an `Idempotency-Key`.
    pub idempotency: Arc<crate::http::idempotency::Idempotency>,
    /// This server's hold on its data directory (one server per directory).
    pub data_dir_lock: Arc<crate::data_dir::DataDirLock>,
    /// The team's name (its mailboxes' folder), as exports and bundles carry it.
    pub team: Arc<str>,
    /// Who watches through a watch link: last uses, and what ends their streams on revoke.
    pub spectators: Arc<crate::spectators::Spectators>,
    /// Whether this server leads the team or follows (`cluster`).
    pub role: Arc<crate::role::Role>,
}

impl AppState {
    /// The page's snapshot: the lead's thread (the one a page opens on) and #team, each with its
    /// newest [`FIRST`] messages; older ones, and the others' threads, come when they are looked at.
    /// Of every identity but `agent` (on its own page) it leaves out the soul and knowledge
    /// versions only that identity's page shows (`history_for`).
    pub fn snapshot(&self, agent: Option<String>) -> Snapshot {
        // Read first: the line may lack the newest event the documents hold (the next event
        // extends it), never hold one they lack.
        let timeline = self.store.timeline();
        let (docs, older, last_event_id) = self.store.page_snapshot(
            |d| {
                let mut owners = seat_thread_owners(d, app::domain::LEAD_SEAT);
                owners.push(channel_owner(app::domain::channel::TEAM));
                Some(owners)
            },
            FIRST,
        );
        Snapshot {
            docs: history_for(docs, agent.as_deref()),
            agent,
            older,
            last_event_id,
            lead_name: self.lead_name.to_string(),
            human_name: self.human_name.to_string(),
            team_label: self.claude_label.to_string(),
            simulated: self.runtime.config().simulated,
            unsandboxed: self.unsandboxed(),
            at: None,
            timeline,
            watch: None,
        }
    }
}

impl SnapshotSource for AppState {
    fn snapshot(&self, agent: Option<String>) -> Snapshot {
        AppState::snapshot(self, agent)
    }

    fn watch_snapshot(&self, token: String) -> Result<Snapshot, String> {
        if !crate::spectators::valid(&self.store, &token) {
            return Err("This watch link is not valid: it was revoked, or never made.".into());
        }
        let mut snapshot = AppState::snapshot(self, None);
        snapshot.docs = app::domain::spectate::docs(&snapshot.docs);
        snapshot.watch = Some(token);
        Ok(snapshot)
    }

    fn snapshot_at(
        &self,
        at: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Snapshot, PastError>> + Send>>
    {
        let state = self.clone();
        Box::pin(async move {
            let failed = |e: crate::store::StoreError| PastError::Failed(e.to_string());
            let now = state.store.last_event_id();
            let (id, clamped) = state
                .store
                .resolve_at(&at)
                .await
                .map_err(failed)?
                .map_err(|bad| PastError::Bad(bad.to_string()))?;
            let (docs, ts) = state.store.docs_at(id).await.map_err(failed)?;
            let (docs, older) = newest_pages(&history_for(docs, None), PAGE);
            Ok(Snapshot {
                docs,
                older,
                last_event_id: id,
                at: Some(app::functions::Moment {
                    event_id: id,
                    ts,
                    now,
                    clamped,
                }),
                ..state.snapshot_meta()
            })
        })
    }

    fn older(
        &self,
        owner: String,
        before: (i64, u64),
        at: Option<u64>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<OlderPage, String>> + Send>>
    {
        let state = self.clone();
        Box::pin(async move {
            let (messages, left) = match at {
                None => state.store.older(owner, before, PAGE).await,
                Some(at) => state
                    .store
                    .docs_at(at)
                    .await
                    .map(|(docs, _)| page_before(&docs, &owner, before, PAGE)),
            }
            .map_err(|e| e.to_string())?;
            Ok(OlderPage { messages, left })
        })
    }
}

impl AppState {
    /// Why agents run without a sandbox here, if they do (the header says so).
    fn unsandboxed(&self) -> Option<String> {
        let sandbox = &self.runtime.config().sandbox;
        (!sandbox.is_on()).then(|| sandbox.said().to_string())
    }

    /// A snapshot's names and labels, without documents.
    fn snapshot_meta(&self) -> Snapshot {
        Snapshot {
            lead_name: self.lead_name.to_string(),
            human_name: self.human_name.to_string(),
            team_label: self.claude_label.to_string(),
            simulated: self.runtime.config().simulated,
            unsandboxed: self.unsandboxed(),
            timeline: self.store.timeline(),
            ..Snapshot::default()
        }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// What the event streams did, for the log and for tests.
#[derive(Debug, Default)]
pub struct SseStats {
    /// Times a subscriber fell behind the live stream and was caught up from the store.
    pub caught_up: std::sync::atomic::AtomicU64,
    /// Live streams now.
    pub subscribers: std::sync::atomic::AtomicUsize,
}
