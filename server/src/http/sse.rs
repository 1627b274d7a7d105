//! `GET /api/events`: the log as Server-Sent Events. Replays from `?after=N` or `Last-Event-ID`,
//! then streams live. One `id:` per event, data = the event JSON as stored. A subscriber that
//! falls behind the live channel re-reads from the store, so no event is ever skipped.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures::Stream;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::error::AppError;
use crate::state::AppState;
use crate::store::{Committed, Store};

/// Events read from the store per query while catching up.
const PAGE: usize = 1000;
/// How often an idle stream sends a comment, so proxies and clients know it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    after: Option<u64>,
}

pub async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, AppError> {
    let Query(query) = query?;
    let header_id = match headers.get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| AppError::BadRequest("Last-Event-ID must be an event id".into()))?,
        ),
    };
    // A reconnecting EventSource sends Last-Event-ID: it is newer than the URL's `after`.
    let after = header_id.or(query.after).unwrap_or(0);
    // Subscribe before reading the backlog: an event appended in between is in one or the other.
    let live = state.store.subscribe();
    let (tx, rx) = mpsc::channel::<SseEvent>(256);
    tokio::spawn(feed(
        state.store.clone(),
        live,
        after,
        tx,
        state.shutdown.clone(),
        state.sse.clone(),
    ));
    let stream = ReceiverStream::new(rx).map(Ok::<_, Infallible>);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(HEARTBEAT)))
}

/// What the event streams did, for the log and for tests.
#[derive(Debug, Default)]
pub struct SseStats {
    /// Times a subscriber fell behind the live stream and was caught up from the store.
    pub caught_up: AtomicU64,
}

async fn feed(
    store: Store,
    mut live: broadcast::Receiver<Arc<Committed>>,
    after: u64,
    tx: mpsc::Sender<SseEvent>,
    shutdown: CancellationToken,
    stats: Arc<SseStats>,
) {
    let last = store.last_event_id();
    if after > last {
        // The client knows events this store never had (another database, an import): its
        // replica cannot be patched, it must reload the snapshot.
        let data = serde_json::json!({ "lastEventId": last }).to_string();
        let _ = tx.send(SseEvent::default().event("reset").data(data)).await;
        return;
    }
    let mut sent = after;
    if !catch_up(&store, &mut sent, &tx, &shutdown).await {
        return;
    }
    loop {
        let next = tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tx.closed() => return,
            next = live.recv() => next,
        };
        match next {
            Ok(c) if c.event.id <= sent => {}
            Ok(c) if c.event.id == sent + 1 => {
                // Serialized once by the store, shared by every subscriber.
                if !send(&tx, c.event.id, c.json.clone(), &shutdown).await {
                    return;
                }
                sent = c.event.id;
            }
            // A gap (the broadcast dropped events for us): read them from the store.
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                stats.caught_up.fetch_add(1, Ordering::Relaxed);
                if !catch_up(&store, &mut sent, &tx, &shutdown).await {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Sends every stored event after `sent`; false when the client or the server went away.
async fn catch_up(
    store: &Store,
    sent: &mut u64,
    tx: &mpsc::Sender<SseEvent>,
    shutdown: &CancellationToken,
) -> bool {
    loop {
        let page = match store.raw_events_after(*sent, PAGE).await {
            Ok(page) => page,
            Err(e) => {
                tracing::error!(error = %e, "reading events for a subscriber failed");
                return false;
            }
        };
        if page.is_empty() {
            return true;
        }
        for (id, data) in page {
            if !send(tx, id, data, shutdown).await {
                return false;
            }
            *sent = id;
        }
    }
}

async fn send(
    tx: &mpsc::Sender<SseEvent>,
    id: u64,
    data: String,
    shutdown: &CancellationToken,
) -> bool {
    let event = SseEvent::default().id(id.to_string()).data(data);
    tokio::select! {
        _ = shutdown.cancelled() => false,
        r = tx.send(event) => r.is_ok(),
    }
}
