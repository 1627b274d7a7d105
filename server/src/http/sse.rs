//! `GET /api/events`: the log as Server-Sent Events. Replays from `?after=N` or `Last-Event-ID`,
//! then streams live. One `id:` per event, data = the event JSON as stored. Each stream follows
//! the store with `Store::follow`: one that falls behind the live channel re-reads from the
//! log, so no event is ever skipped or sent twice.
//!
//! Each event's frame (`id: N\ndata: {json}\n\n`) is built once, by the first stream that
//! sends it, and shared by every other; a subscriber that finds several events ready sends
//! them in one write.
//!
//! Under load (every subscriber's events together coming faster than [`LOAD`] frames a
//! second) a stream writes at most once per [`COALESCE`]: a thousand subscribers at a thousand
//! events a second are then fifty thousand writes a second instead of a million, each a
//! little later. A console's few tabs never come near it, so an event there goes out at once.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::Stream;
use tokio_util::sync::CancellationToken;

use super::extract::AppQuery;
use crate::error::AppError;
use crate::state::AppState;
use crate::store::{Batch, Committed, Follow, Store};
use app::contract::endpoints::After;
/// Most live events one write carries.
const BURST: usize = 256;
/// Frames a second, all subscribers together, from which streams coalesce their writes.
pub const LOAD: f64 = 100_000.0;
/// Under load, the least time between two writes of one stream. Each write is a send on the
/// stream's socket, and the kernel's TCP path is most of what fan-out costs: measured with a
/// thousand subscribers at a thousand events a second (`soulgrid-bench --only P5`), 10 ms took
/// 102–116 % of a core (p99 41–44 ms), 20 ms 79–84 % (p99 40 ms), 30 ms 70 % (p99 38 ms): the
/// tail is the machine's, not the pause.
pub const COALESCE: Duration = Duration::from_millis(20);
/// How often an idle stream sends a comment, so proxies and clients know it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

pub async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
    spectator: Option<axum::Extension<crate::spectators::Spectator>>,
    AppQuery(query): AppQuery<After>,
) -> Result<Response, AppError> {
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
    let feed = Feed {
        follow: state.store.follow(after),
        store: state.store.clone(),
        started: false,
        counted: 0,
        shutdown: state.shutdown.clone(),
        closing: Some(state.runtime.closing_token()),
        pace: Pace::new(state.sse.clone()),
        stats: state.sse.clone(),
        // The human's stream ends with the login it was opened with (rotated).
        login_ended: spectator.is_none().then(|| state.security.login_ended()),
        spectator: spectator.map(|axum::Extension(s)| s),
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

pub use crate::state::SseStats;

/// One stream's view of the load: how many live events it gets a second (counted over windows
/// of [`WINDOW`]) times how many streams there are, and when it last wrote.
struct Pace {
    stats: Arc<SseStats>,
    window_start: Instant,
    window_events: u32,
    /// Live events a second, from the last window that ended.
    rate: f64,
    last_write: Option<Instant>,
}

/// How long the events are counted for a rate.
const WINDOW: Duration = Duration::from_millis(100);

impl Pace {
    fn new(stats: Arc<SseStats>) -> Self {
        stats.subscribers.fetch_add(1, Ordering::Relaxed);
        Pace {
            stats,
            window_start: Instant::now(),
            window_events: 0,
            rate: 0.0,
            last_write: None,
        }
    }

    /// A live event arrived now.
    fn arrived(&mut self, now: Instant) {
        self.window_events += 1;
        let elapsed = now.duration_since(self.window_start);
        if elapsed >= WINDOW {
            self.rate = f64::from(self.window_events) / elapsed.as_secs_f64();
            self.window_start = now;
            self.window_events = 0;
        }
    }

    /// When the next write may go: `None` for now; under load, `COALESCE` after the last one.
    fn next_write(&self, now: Instant) -> Option<Instant> {
        let subscribers = self.stats.subscribers.load(Ordering::Relaxed) as f64;
        if subscribers * self.rate < LOAD {
            return None;
        }
        self.last_write.map(|w| w + COALESCE).filter(|at| *at > now)
    }
}

impl Drop for Pace {
    fn drop(&mut self) {
        self.stats.subscribers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The frame of one event.
pub fn frame(id: u64, json: &str) -> Bytes {
    Bytes::from(format!("id: {id}\ndata: {json}\n\n"))
}

/// The frame of a committed event, built once for every stream.
fn shared_frame(c: &Committed) -> &Bytes {
    c.frame.get_or_init(|| frame(c.event.id, &c.json))
}

/// One subscriber's stream: the events after the one it asked from, from the log, then live.
struct Feed {
    store: Store,
    follow: Follow,
    /// Whether the client's place in the log was checked.
    started: bool,
    /// The follower's catch-ups already counted in `stats`.
    counted: u64,
    shutdown: CancellationToken,
    /// Until the server begins to shut down: then `event: closing` is sent, once, and the page
    /// says so.
    closing: Option<CancellationToken>,
    pace: Pace,
    stats: Arc<SseStats>,
    /// Cancelled when the login the stream was opened with is rotated (the human's stream).
    login_ended: Option<CancellationToken>,
    /// A watch link's stream: each event as a spectator sees it, ended when it is revoked.
    spectator: Option<crate::spectators::Spectator>,
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
        if !self.started {
            self.started = true;
            let last = self.store.last_event_id();
            if self.follow.after() > last {
                // The client knows events this store never had (another database, an import):
                // its replica cannot be patched, it must reload the snapshot.
                let data = serde_json::json!({ "lastEventId": last });
                return Some((
                    Bytes::from(format!("event: reset\ndata: {data}\n\n")),
                    false,
                ));
            }
        }
        // Under load, the pause first: what comes meanwhile is then ready at once, and the
        // stream is woken once per pause, not once per event.
        if !self.paced().await {
            return None;
        }
        let revoked = match &self.spectator {
            Some(s) => Some(s.revoked.clone()),
            None => self.login_ended.clone(),
        };
        let closing = self.closing.clone();
        let next = tokio::select! {
            _ = self.shutdown.cancelled() => return None,
            _ = cancelled(revoked) => return None,
            _ = cancelled(closing) => {
                self.closing = None;
                return Some((Bytes::from_static(b"event: closing\ndata: {}\n\n"), true));
            }
            next = self.follow.next(1) => next,
            _ = tokio::time::sleep(HEARTBEAT) => {
                return Some((Bytes::from_static(b":\n\n"), true));
            }
        };
        let chunk = match next? {
            Err(e) => {
                tracing::error!(error = %e, "reading events for a subscriber failed");
                return None;
            }
            Ok(Batch::Stored(page)) => {
                let mut chunk = Vec::with_capacity(page.iter().map(|(_, j)| j.len() + 24).sum());
                for (id, json) in &page {
                    match &self.spectator {
                        Some(_) => chunk.extend_from_slice(&spectated(*id, json)),
                        None => chunk.extend_from_slice(&frame(*id, json)),
                    }
                }
                Bytes::from(chunk)
            }
            Ok(Batch::Live(mut frames)) => {
                self.pace.arrived(Instant::now());
                // The load may have just begun: what comes meanwhile goes with it.
                if !self.paced().await {
                    return None;
                }
                let before = frames.len();
                self.follow.more(&mut frames, BURST);
                for _ in before..frames.len() {
                    self.pace.arrived(Instant::now());
                }
                self.pace.last_write = Some(Instant::now());
                match &self.spectator {
                    Some(_) => spectated_burst(&frames),
                    None => burst(&frames),
                }
            }
        };
        let caught_up = self.follow.caught_up();
        if caught_up > self.counted {
            self.stats
                .caught_up
                .fetch_add(caught_up - self.counted, Ordering::Relaxed);
            self.counted = caught_up;
        }
        Some((chunk, true))
    }

    /// Waits out the pause the load asks for, if any; false when the server shuts down meanwhile.
    async fn paced(&self) -> bool {
        let Some(at) = self.pace.next_write(Instant::now()) else {
            return true;
        };
        tokio::select! {
            _ = self.shutdown.cancelled() => false,
            _ = tokio::time::sleep_until(at.into()) => true,
        }
    }
}

/// Returns when `token` is cancelled; never without one.
async fn cancelled(token: Option<CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// An event's frame as a spectator sees it (`app::domain::spectate`): the stored one when
/// nothing of it is hidden.
fn spectated_event(event: &app::domain::events::Event, json: &str) -> Bytes {
    match app::domain::spectate::event(&event.kind) {
        std::borrow::Cow::Borrowed(_) => frame(event.id, json),
        std::borrow::Cow::Owned(kind) => {
            let shown = app::domain::events::Event {
                id: event.id,
                ts: event.ts,
                session_id: event.session_id.clone(),
                kind,
            };
            frame(event.id, &serde_json::to_string(&shown).unwrap_or_default())
        }
    }
}

/// A stored event's frame as a spectator sees it.
fn spectated(id: u64, json: &str) -> Bytes {
    match serde_json::from_str::<app::domain::events::Event>(json) {
        Ok(event) => spectated_event(&event, json),
        // Not readable here: nothing of it is shown but its place in the numbering.
        Err(_) => frame(
            id,
            &serde_json::json!({"id": id, "type": "unknown"}).to_string(),
        ),
    }
}

/// Live events in one chunk, as a spectator sees them: the shared frame of each event nothing
/// of which is hidden (most), so a thousand spectators cost what a thousand tabs do.
fn spectated_burst(frames: &[Arc<Committed>]) -> Bytes {
    let hidden = |c: &Committed| {
        matches!(
            app::domain::spectate::event(&c.event.kind),
            std::borrow::Cow::Owned(_)
        )
    };
    if !frames.iter().any(|c| hidden(c)) {
        return burst(frames);
    }
    let mut chunk = Vec::new();
    for c in frames {
        match hidden(c) {
            true => chunk.extend_from_slice(&spectated_event(&c.event, &c.json)),
            false => chunk.extend_from_slice(shared_frame(c)),
        }
    }
    Bytes::from(chunk)
}

/// The frames of live events in one chunk (shared, not copied, when it is one event).
fn burst(frames: &[Arc<Committed>]) -> Bytes {
    if let [one] = frames {
        return shared_frame(one).clone();
    }
    let mut chunk = Vec::with_capacity(frames.iter().map(|c| shared_frame(c).len()).sum());
    for c in frames {
        chunk.extend_from_slice(shared_frame(c));
    }
    Bytes::from(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `subscribers` streams; this one got an event every `gap` for a second and wrote the last.
    fn paced(subscribers: usize, gap: Duration) -> (Pace, Instant) {
        let stats = Arc::new(SseStats::default());
        stats.subscribers.store(subscribers - 1, Ordering::Relaxed);
        let mut pace = Pace::new(stats);
        let start = pace.window_start;
        let mut now = start;
        while now < start + Duration::from_secs(1) {
            now += gap;
            pace.arrived(now);
        }
        pace.last_write = Some(now);
        (pace, now)
    }

    #[test]
    fn a_thousand_streams_at_a_thousand_events_a_second_write_once_per_pause() {
        let (pace, now) = paced(1000, Duration::from_millis(1));
        let next = now + Duration::from_millis(1);
        assert_eq!(pace.next_write(next), Some(now + COALESCE));
        // Once the pause is over, at once.
        assert_eq!(pace.next_write(now + COALESCE), None);
    }

    #[test]
    fn a_console_s_few_tabs_never_wait() {
        // Three tabs, and events as fast as a busy team makes them.
        let (pace, now) = paced(3, Duration::from_micros(200));
        assert_eq!(pace.next_write(now + Duration::from_micros(200)), None);
    }

    #[test]
    fn streams_are_counted_while_open() {
        let stats = Arc::new(SseStats::default());
        let a = Pace::new(stats.clone());
        let b = Pace::new(stats.clone());
        assert_eq!(stats.subscribers.load(Ordering::Relaxed), 2);
        drop((a, b));
        assert_eq!(stats.subscribers.load(Ordering::Relaxed), 0);
    }
}
