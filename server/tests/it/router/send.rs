//! `POST /api/send` and the API's answers to bad input: recorded where it belongs, refused
//! with a clear JSON error, safe to retry.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use crate::common::{self, boot, call, get, post_json};
use crate::SERIAL;

#[tokio::test]
async fn send_records_a_user_message_in_the_leads_thread() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "hello Julian"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let id = r.json()["eventId"].as_u64().unwrap();
    assert_eq!(id, 2, "the first event after session_start");
    assert_eq!(r.json()["seat"], 4);
    let (docs, last) = state.store.snapshot();
    assert!(last >= 2);
    let thread = app::domain::docs::thread(&docs, 4);
    assert_eq!(thread[0].event_id, 2);
    assert_eq!(thread[0].text, "hello Julian");
    assert_eq!(thread[0].speaker_name, "Marcus");
    assert_eq!(thread[0].server_session_id, &*state.session.id());
}

#[tokio::test]
async fn send_to_the_lead_by_name_is_the_leads_thread() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "hi", "targetAgent": "julian"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    assert_eq!(
        app::domain::docs::thread(&state.store.snapshot().0, 4)[0].text,
        "hi"
    );
}

#[tokio::test]
async fn send_rejects_bad_input_with_clear_messages() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let cases = [
        (json!({"text": "   "}), "text is empty"),
        (
            json!({"text": "hi", "targetAgent": "Nobody"}),
            "no agent named \"Nobody\"",
        ),
        (json!({"txt": "hi"}), "invalid JSON body"),
        (
            json!({"text": "x".repeat(soulgrid::http::MAX_TEXT_BYTES + 1)}),
            "the limit is",
        ),
    ];
    for (body, want) in cases {
        let r = call(&router, post_json("/api/send", body)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        let msg = r.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains(want), "{msg:?} should contain {want:?}");
    }
    let not_json = Request::post("/api/send")
        .header("content-type", "application/json")
        .body(Body::from("{not json"))
        .unwrap();
    assert_eq!(
        call(&router, not_json).await.status,
        StatusCode::BAD_REQUEST
    );
    let huge = post_json(
        "/api/send",
        json!({"text": "x".repeat(soulgrid::http::MAX_BODY_BYTES)}),
    );
    assert_eq!(
        call(&router, huge).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(state.store.last_event_id(), 1, "nothing was recorded");
}

/// Bad values in a path or a query are answered like every other error: JSON, 400; a request
/// about an agent that is not running is a conflict with the state, 409.
#[tokio::test]
async fn bad_path_and_query_values_are_json_errors() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    for (req, status) in [
        (
            post_json("/api/agents/x/dismiss", json!({})),
            StatusCode::BAD_REQUEST,
        ),
        (
            post_json("/api/agents/300/interrupt", json!({})),
            StatusCode::BAD_REQUEST,
        ),
        (get("/api/events?after=soon"), StatusCode::BAD_REQUEST),
        (
            post_json("/api/agents/2/dismiss", json!({})),
            StatusCode::CONFLICT,
        ),
    ] {
        let uri = req.uri().to_string();
        let r = call(&router, req).await;
        assert_eq!(r.status, status, "{uri}: {}", r.body);
        assert!(r.json()["error"].is_string(), "{uri}: {}", r.body);
    }
}

/// A retry of the same composed message (same `Idempotency-Key`), even at the same moment,
/// gets the first answer and records nothing again; another key is another message.
#[tokio::test]
async fn an_idempotency_key_makes_a_retried_send_safe() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let send = |key: &'static str| {
        Request::post("/api/send")
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(Body::from(json!({"text": "only once, please"}).to_string()))
            .unwrap()
    };
    let (a, b) = tokio::join!(call(&router, send("k-1")), call(&router, send("k-1")));
    let c = call(&router, send("k-1")).await;
    for r in [&a, &b, &c] {
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        assert_eq!(r.json()["eventId"], a.json()["eventId"], "the same answer");
    }
    let other = call(&router, send("k-2")).await;
    assert_ne!(other.json()["eventId"], a.json()["eventId"]);
    let recorded = common::count_events(&state, |k| {
        matches!(k, app::domain::events::EventKind::UserMessage { text, .. } if text == "only once, please")
    })
    .await;
    assert_eq!(recorded, 2, "one message per key");
    let bad = Request::post("/api/send")
        .header("content-type", "application/json")
        .header("idempotency-key", "x".repeat(300))
        .body(Body::from(json!({"text": "hi"}).to_string()))
        .unwrap();
    assert_eq!(call(&router, bad).await.status, StatusCode::BAD_REQUEST);
    soulgrid::shut_down(&state).await;
}

/// A message's event is stored before anything said in answer to it: the inbox watcher sees
/// the message filed at once, and must not hand it to the lead before it is recorded (the
/// answer would come before the message in every thread and replay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_is_stored_before_the_answer_to_it() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let answered = |docs: &app::domain::docs::Docs, text: &str| {
        app::domain::docs::thread(docs, 4)
            .iter()
            .any(|m| m.text.contains(&format!("“{text}”")))
    };
    for i in 0..100 {
        let text = format!("in order {i}");
        let r = call(&router, post_json("/api/send", json!({ "text": text }))).await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        common::wait_for(&state, "the lead's answer", |d| answered(d, &text)).await;
    }
    let docs = state.store.snapshot().0;
    let thread = app::domain::docs::thread(&docs, 4);
    for i in 0..100 {
        let text = format!("in order {i}");
        let at = |said: &dyn Fn(&str) -> bool| thread.iter().position(|m| said(&m.text)).unwrap();
        let (message, answer) = (
            at(&|t: &str| t == text),
            at(&|t: &str| t.contains(&format!("“{text}”"))),
        );
        assert!(
            message < answer,
            "{text:?} is stored at {message} of the lead's thread, its answer at {answer}"
        );
    }
    soulgrid::shut_down(&state).await;
}

/// The store's write-ahead log taken away underneath it (another program, a failing disk): the
/// next write cannot be confirmed on the disk, so the store stops taking events and says why,
/// to the one who sent and to whoever watches `/healthz`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_the_disk_did_not_confirm_stops_the_store_and_healthz_says_so() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let health = call(&router, get("/healthz")).await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(health.json()["ok"], true);
    assert!(health.json().get("problem").is_none());

    std::fs::remove_file(dir.path().join("soulgrid.db-wal")).unwrap();
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "into the void"})),
    )
    .await;
    assert!(r.status.is_server_error(), "{} {}", r.status, r.body);
    assert!(
        r.body.contains("the disk did not confirm the write"),
        "{}",
        r.body
    );
    assert!(state.store.stopped());

    let health = call(&router, get("/healthz")).await;
    assert_eq!(health.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(health.json()["ok"], false);
    let problem = health.json()["problem"].as_str().unwrap().to_string();
    assert!(problem.contains("takes no more events"), "{problem}");
    // Nothing more is taken, even what the disk could hold now.
    let again = call(
        &router,
        post_json("/api/send", json!({"text": "and again"})),
    )
    .await;
    assert!(again.status.is_server_error(), "{}", again.status);
}
