//! `GET /api/events`: the log as Server-Sent Events. Replays from `?after=N` or `Last-Event-ID`,
//! then streams live. One `id:` per event, data = the event JSON as stored. A subscriber that
//! falls behind the live channel re-reads from the store, so no event is ever skipped.
//!
//! Each event's frame (`id: N\ndata: {json}\n\n`) is built once, by the first stream that
//! sends it, and shared by every other; a subscriber that finds several events ready sends
//! them in one write.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::Stream;
use serde::Deserialize;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::error::AppError;
use crate::state::AppState;
use crate::store::{Committed, Store};

/// Events read from the store per query while catching up.
const PAGE: usize = 1000;
/// Most live events one write carries.
const BURST: usize = 256;
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
) -> Result<Response, AppError> {
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
    let feed = Feed {
        live: state.store.subscribe(),
        store: state.store.clone(),
        sent: after,
        phase: Phase::Start,
        shutdown: state.shutdown.clone(),
        stats: state.sse.clone(),
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(feed.stream()),
    )
        .into_response())
}

/// What the event streams did, for the log and for tests.
#[derive(Debug, Default)]
pub struct SseStats {
    /// Times a subscriber fell behind the live stream and was caught up from the store.
    pub caught_up: AtomicU64,
}

/// The frame of one event.
pub fn frame(id: u64, json: &str) -> Bytes {
    Bytes::from(format!("id: {id}\ndata: {json}\n\n"))
}

/// The frame of a committed event, built once for every stream.
fn shared_frame(c: &Committed) -> &Bytes {
    c.frame.get_or_init(|| frame(c.event.id, &c.json))
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Start,
    CatchUp,
    Live,
}

/// One subscriber's stream: the events after `sent`, from the store, then live.
struct Feed {
    store: Store,
    live: broadcast::Receiver<Arc<Committed>>,
    sent: u64,
    phase: Phase,
    shutdown: CancellationToken,
    stats: Arc<SseStats>,
}

impl Feed {
    fn stream(self) -> impl Stream<Item = Result<Bytes, Infallible>> {
        futures::stream::unfold(Some(self), |feed| async move {
            let mut feed = feed?;
            let (chunk, more) = feed.next().await?;
            Some((Ok(chunk), more.then_some(feed)))
        })
    }

    /// The next chunk to write, and whether anything may follow it; `None`: the stream ends.
    async fn next(&mut self) -> Option<(Bytes, bool)> {
        loop {
            match self.phase {
                Phase::Start => {
                    let last = self.store.last_event_id();
                    if self.sent > last {
                        // The client knows events this store never had (another database, an
                        // import): its replica cannot be patched, it must reload the snapshot.
                        let data = serde_json::json!({ "lastEventId": last });
                        return Some((
                            Bytes::from(format!("event: reset\ndata: {data}\n\n")),
                            false,
                        ));
                    }
                    self.phase = Phase::CatchUp;
                }
                Phase::CatchUp => {
                    let page = tokio::select! {
                        _ = self.shutdown.cancelled() => return None,
                        page = self.store.raw_events_after(self.sent, PAGE) => page,
                    };
                    let page = match page {
                        Ok(page) => page,
                        Err(e) => {
                            tracing::error!(error = %e, "reading events for a subscriber failed");
                            return None;
                        }
                    };
                    let Some(&(last, _)) = page.last() else {
                        self.phase = Phase::Live;
                        continue;
                    };
                    let mut chunk =
                        Vec::with_capacity(page.iter().map(|(_, j)| j.len() + 24).sum());
                    for (id, json) in &page {
                        chunk.extend_from_slice(&frame(*id, json));
                    }
                    self.sent = last;
                    if page.len() < PAGE {
                        // The tail of the log when it was read: what follows is live.
                        self.phase = Phase::Live;
                    }
                    return Some((Bytes::from(chunk), true));
                }
                Phase::Live => {
                    let next = tokio::select! {
                        _ = self.shutdown.cancelled() => return None,
                        next = self.live.recv() => next,
                        _ = tokio::time::sleep(HEARTBEAT) => {
                            return Some((Bytes::from_static(b":\n\n"), true));
                        }
                    };
                    match next {
                        Ok(c) if c.event.id <= self.sent => {}
                        Ok(c) if c.event.id == self.sent + 1 => return Some((self.burst(c), true)),
                        // A gap (the broadcast dropped events for us): read them from the store.
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            self.stats.caught_up.fetch_add(1, Ordering::Relaxed);
                            self.phase = Phase::CatchUp;
                        }
                        Err(broadcast::error::RecvError::Closed) => return None,
                    }
                }
            }
        }
    }

    /// The frame of `first` and of the events right after it that are ready too, in one
    /// chunk (shared, not copied, when it is one event).
    fn burst(&mut self, first: Arc<Committed>) -> Bytes {
        self.sent = first.event.id;
        let mut frames = vec![first];
        while frames.len() < BURST {
            match self.live.try_recv() {
                Ok(c) if c.event.id <= self.sent => {}
                Ok(c) if c.event.id == self.sent + 1 => {
                    self.sent = c.event.id;
                    frames.push(c);
                }
                // A gap or a lag: what is gathered goes out, then the store fills the rest.
                Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    self.stats.caught_up.fetch_add(1, Ordering::Relaxed);
                    self.phase = Phase::CatchUp;
                    break;
                }
                Err(_) => break,
            }
        }
        if let [one] = frames.as_slice() {
            return shared_frame(one).clone();
        }
        let mut chunk = Vec::with_capacity(frames.iter().map(|c| shared_frame(c).len()).sum());
        for c in &frames {
            chunk.extend_from_slice(shared_frame(c));
        }
        Bytes::from(chunk)
    }
}
