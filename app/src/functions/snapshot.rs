//! The documents snapshot the page renders from, and the event id it is current to.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::docs::page::Older;
use crate::domain::docs::{Docs, MessageDoc};

/// What SSR renders and what the browser hydrates from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The documents, each thread with its newest page of messages (`docs::page`).
    pub docs: Docs,
    /// How many older messages each thread's owner has that `docs` leaves out.
    #[serde(default)]
    pub older: Older,
    /// The id of the last event applied to `docs`; the live stream resumes after it.
    pub last_event_id: u64,
    pub lead_name: String,
    pub human_name: String,
    /// Which Claude command runs the team, e.g. "simulated (soulgrid-sim)".
    pub team_label: String,
    /// The team is `soulgrid-sim`, not Claude: the UI says so.
    pub simulated: bool,
    /// Why agents run without a sandbox, with the server's reach (`--sandbox`): the header says
    /// so in warning colours. `None`: they run in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsandboxed: Option<String>,
    /// Time travel: the moment these documents are from (read-only, not live).
    #[serde(default)]
    pub at: Option<Moment>,
    /// The identity whose page this is: its whole history is in `docs` (the soul and knowledge
    /// versions other pages leave out, `docs::page::history_for`); a reload asks for it again.
    #[serde(default)]
    pub agent: Option<String>,
    /// The log's line of time (its first and newest event, each session's start): what time
    /// travel's slider spans. `None` for an empty log.
    #[serde(default)]
    pub timeline: Option<crate::domain::moment::Timeline>,
    /// A spectator's page (`/watch/{token}`): its watch token, which its stream carries; the
    /// documents are as a spectator sees them, and nothing on the page acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<String>,
}

/// A moment of the past: after which event, when that was, and the last event there is now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    pub event_id: u64,
    pub ts: crate::domain::Millis,
    pub now: u64,
    /// The moment asked for was outside the log: where it was moved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clamped: Option<crate::domain::moment::Clamped>,
}

/// Why the past could not be shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PastError {
    /// `/?at=` names no moment (a `400`).
    Bad(String),
    /// The store could not read it.
    Failed(String),
}

/// A page of a thread's older messages, oldest first, and how many are older still.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OlderPage {
    pub messages: Vec<MessageDoc>,
    pub left: usize,
}

/// Where the server takes snapshots from; provided as a context by the server binary.
#[cfg(feature = "ssr")]
pub trait SnapshotSource: Send + Sync + 'static {
    /// The live documents a page starts from; with the whole history of `agent` on its page.
    fn snapshot(&self, agent: Option<String>) -> Snapshot;

    /// The documents as they were at `at` (an event id or a time), read-only.
    fn snapshot_at(
        &self,
        at: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Snapshot, PastError>> + Send>>;

    /// The page of `owner`'s messages just before `before` (`docs::page::page_before`), now or,
    /// for time travel, as they were after event `at`.
    fn older(
        &self,
        owner: String,
        before: (i64, u64),
        at: Option<u64>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<OlderPage, String>> + Send>>;

    /// A spectator's snapshot for the watch link `token`; why not, if it is not a valid one.
    fn watch_snapshot(&self, token: String) -> Result<Snapshot, String>;
}

/// The live documents a page starts from; on an agent's page (`agent`, its id), with its whole
/// history.
#[server]
pub async fn get_snapshot(agent: Option<String>) -> Result<Snapshot, ServerFnError> {
    use std::sync::Arc;
    let source = use_context::<Arc<dyn SnapshotSource>>()
        .ok_or_else(|| ServerFnError::new("the server provided no snapshot source"))?;
    Ok(source.snapshot(agent))
}

/// A spectator's snapshot (`/watch/{token}`): the live documents as a spectator sees them.
/// A link that is not valid answers `403` (the page's status too).
#[server]
pub async fn get_watch_snapshot(token: String) -> Result<Snapshot, ServerFnError> {
    use std::sync::Arc;
    let source = use_context::<Arc<dyn SnapshotSource>>()
        .ok_or_else(|| ServerFnError::new("the server provided no snapshot source"))?;
    source.watch_snapshot(token).map_err(|why| {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(http::StatusCode::FORBIDDEN);
        }
        ServerFnError::new(why)
    })
}

/// The documents as they were at `at`: an event id, or a time (the last event then). A bad
/// `at` answers `400` (the page's status too, when the server renders it).
#[server]
pub async fn get_snapshot_at(at: String) -> Result<Snapshot, ServerFnError> {
    use std::sync::Arc;
    let source = use_context::<Arc<dyn SnapshotSource>>()
        .ok_or_else(|| ServerFnError::new("the server provided no snapshot source"))?;
    let response = use_context::<leptos_axum::ResponseOptions>();
    match source.snapshot_at(at).await {
        Ok(snapshot) => Ok(snapshot),
        Err(PastError::Bad(said)) => {
            if let Some(response) = response {
                response.set_status(http::StatusCode::BAD_REQUEST);
            }
            Err(ServerFnError::new(said))
        }
        Err(PastError::Failed(said)) => Err(ServerFnError::new(said)),
    }
}

/// What a server function's error says, without the wire's prefix.
pub fn said(e: &ServerFnError) -> String {
    match e {
        ServerFnError::ServerError(said) => said.clone(),
        e => e.to_string(),
    }
}

/// The page of `owner`'s messages before `(before_ts, before_event)`: what "Show older" adds to
/// a thread whose older messages the page did not carry.
#[server]
pub async fn get_older(
    owner: String,
    before_ts: i64,
    before_event: u64,
    at: Option<u64>,
) -> Result<OlderPage, ServerFnError> {
    use std::sync::Arc;
    let source = use_context::<Arc<dyn SnapshotSource>>()
        .ok_or_else(|| ServerFnError::new("the server provided no snapshot source"))?;
    source
        .older(owner, (before_ts, before_event), at)
        .await
        .map_err(ServerFnError::new)
}
