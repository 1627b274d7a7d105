//! SSE: replay from `after` or `Last-Event-ID`, then live, in order, with nothing missed.

use crate::common;

use std::time::Duration;

use app::domain::events::{Event, EventKind};
use axum::body::Body;
use axum::http::Request;
use common::{boot, parse_sse, Sse};
use http_body_util::BodyExt;
use soulgrid::state::AppState;
use tower::ServiceExt;

fn message(n: usize) -> EventKind {
    EventKind::UserMessage {
        message_id: format!("m{n}"),
        speaker_name: "Marcus".into(),
        seat: 4,
        text: format!("message {n}"),
        target_agent: None,
    }
}

async fn append(state: &AppState, n: usize) {
    for i in 0..n {
        state
            .store
            .append(&state.session.id(), message(i))
            .await
            .unwrap();
    }
}

/// Reads an SSE response until `want` events with ids arrived (or a reset), then drops it.
async fn read_events(state: &AppState, req: Request<Body>, want: usize) -> Vec<Sse> {
    read_from(&mut open(state, req).await, want).await
}

/// The response to `req`: the stream has subscribed, nothing is read yet.
async fn open(state: &AppState, req: Request<Body>) -> Body {
    let router = soulgrid::http::router(state.clone());
    let res = router.oneshot(req).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    res.into_body()
}

/// Reads `want` events (or up to a reset) from the stream.
async fn read_from(body: &mut Body, want: usize) -> Vec<Sse> {
    let mut buf = String::new();
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while got.len() < want {
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .expect("events arrive in time")
            .expect("the stream stays open")
            .unwrap();
        if let Some(data) = frame.data_ref() {
            buf.push_str(std::str::from_utf8(data).unwrap());
            let (events, rest) = parse_sse(&buf);
            buf = rest;
            for e in events {
                let reset = e.event.as_deref() == Some("reset");
                got.push(e);
                if reset {
                    return got;
                }
            }
        }
    }
    got
}

fn ids(events: &[Sse]) -> Vec<u64> {
    events
        .iter()
        .map(|e| e.id.expect("every event has an id"))
        .collect()
}

#[tokio::test]
async fn after_n_replays_n_plus_one_onwards_then_live() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await; // event 1: session_start
    append(&state, 9).await; // 2..=10
    let req = Request::get("/api/events?after=4")
        .header("authorization", crate::common::BEARER)
        .body(Body::empty())
        .unwrap();
    let live_state = state.clone();
    let live = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        append(&live_state, 5).await; // 11..=15, after the replay
    });
    let events = read_events(&state, req, 11).await;
    live.await.unwrap();
    assert_eq!(ids(&events), (5..=15).collect::<Vec<_>>());
    let last: Event = serde_json::from_str(&events.last().unwrap().data).unwrap();
    assert_eq!(last.id, 15);
    assert!(matches!(last.kind, EventKind::UserMessage { .. }));
}

#[tokio::test]
async fn last_event_id_header_resumes_like_after() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    append(&state, 5).await; // 2..=6
    let req = Request::get("/api/events?after=1")
        .header("authorization", crate::common::BEARER)
        .header("last-event-id", "3")
        .body(Body::empty())
        .unwrap();
    let events = read_events(&state, req, 3).await;
    assert_eq!(
        ids(&events),
        [4, 5, 6],
        "the header wins over the URL's after"
    );
}

#[tokio::test]
async fn a_slow_client_gets_every_event_even_past_the_live_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let req = Request::get("/api/events?after=1")
        .header("authorization", crate::common::BEARER)
        .body(Body::empty())
        .unwrap();
    // The client has what there is and is waiting; then it reads nothing while more than the
    // live channel holds is appended.
    let mut body = open(&state, req).await;
    append(&state, 1).await; // 2
    assert_eq!(ids(&read_from(&mut body, 1).await), [2]);
    let total = 6000;
    let kinds: Vec<_> = (0..total).map(message).collect();
    for chunk in kinds.chunks(500) {
        (state.store)
            .append_all(&state.session.id(), chunk.to_vec())
            .await
            .unwrap();
    }
    let events = read_from(&mut body, total).await;
    assert_eq!(ids(&events), (3..3 + total as u64).collect::<Vec<_>>());
    let caught_up = state
        .sse
        .caught_up
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        caught_up > 0,
        "the client fell behind the live stream and was caught up"
    );
}

#[tokio::test]
async fn a_client_ahead_of_the_store_gets_a_reset() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let req = Request::get("/api/events?after=999")
        .header("authorization", crate::common::BEARER)
        .body(Body::empty())
        .unwrap();
    let events = read_events(&state, req, 1).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event.as_deref(), Some("reset"));
    let data: serde_json::Value = serde_json::from_str(&events[0].data).unwrap();
    assert_eq!(data["lastEventId"], 1);
}

#[tokio::test]
async fn a_malformed_last_event_id_is_a_bad_request() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state);
    let req = Request::get("/api/events")
        .header("authorization", crate::common::BEARER)
        .header("last-event-id", "abc")
        .body(Body::empty())
        .unwrap();
    let r = common::call(&router, req).await;
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("Last-Event-ID"));
}

#[tokio::test]
async fn streams_end_on_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let res = router
        .oneshot(
            Request::get("/api/events?after=1")
                .header("authorization", crate::common::BEARER)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let mut body = res.into_body();
    soulgrid::shut_down(&state).await;
    // The session_end is streamed, then the stream ends instead of waiting for more.
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(frame) = body.frame().await {
            frame.unwrap();
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream did not end on shutdown");
}
