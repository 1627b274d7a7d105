//! The router driven with `oneshot`: no socket, no browser.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{boot, boot_with, call, get, get_with, post_json};
use serde_json::json;

/// The tests here run one at a time: the 404 page, rendered by leptos_axum while another test's
/// Tokio runtime renders concurrently, hung about one run in sixty (each `#[tokio::test]` has
/// its own runtime; the real server has one). Serialising them costs nothing: they take ms.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn healthz_answers_ok() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let r = call(&router, get("/healthz")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["ok"], true);
}

#[tokio::test]
async fn docs_returns_the_snapshot_with_its_event_id() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let v = call(&router, get("/api/docs")).await.json();
    assert_eq!(v["lastEventId"], 1, "session_start is the first event");
    let lead = &v["docs"]["agent-identity:4"];
    assert_eq!(lead["name"], "Julian");
    assert_eq!(lead["color"], "#FFD600");
    assert_eq!(lead["type"], "agent-identity");
}

#[tokio::test]
async fn the_page_is_server_rendered_with_nine_cells_and_the_lead_in_the_centre() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let r = call(&router, get("/")).await;
    assert_eq!(r.status, StatusCode::OK);
    let html = r.body;
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..html.len().min(200)]
    );
    assert_eq!(html.matches("data-seat=\"").count(), 9, "{html}");
    let centre = html.find("data-seat=\"4\"").expect("the lead's cell");
    let after = &html[centre..];
    assert!(after.find("Julian").unwrap() < after.find("data-seat=\"5\"").unwrap());
    assert!(html.contains("class=\"cell lead\""));
    assert!(
        html.contains("data-button=\"SUMMON\""),
        "no agent yet: SUMMON"
    );
    // In the HTML itself, not swapped in by a script after a fallback (JavaScript may be off).
    assert!(
        !html.contains("Loading the grid"),
        "the fallback was sent: {html}"
    );
    assert!(
        html.contains("<link rel=\"icon\" href=\"data:,\">"),
        "no favicon request"
    );
}

#[tokio::test]
async fn an_unknown_path_is_a_404() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    assert_eq!(
        call(&router, get("/no/such/page")).await.status,
        StatusCode::NOT_FOUND
    );
}

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

fn send_from(origin: Option<&str>, host: &str) -> Request<Body> {
    let mut b = Request::post("/api/send")
        .header("content-type", "application/json")
        .header("host", host);
    if let Some(o) = origin {
        b = b.header("origin", o);
    }
    b.body(Body::from(json!({"text": "hi"}).to_string()))
        .unwrap()
}

#[tokio::test]
async fn mutating_requests_from_another_origin_are_refused() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let host = "127.0.0.1:3000";
    let evil = call(&router, send_from(Some("http://evil.example"), host)).await;
    assert_eq!(evil.status, StatusCode::FORBIDDEN);
    assert!(evil.json()["error"].as_str().unwrap().contains("Origin"));
    assert_eq!(
        call(&router, send_from(Some("null"), host)).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        call(&router, send_from(Some("http://127.0.0.1:3000"), host))
            .await
            .status,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        call(&router, send_from(None, host)).await.status,
        StatusCode::ACCEPTED,
        "curl"
    );
    let cross_site = Request::post("/api/send")
        .header("content-type", "application/json")
        .header("sec-fetch-site", "cross-site")
        .body(Body::from(json!({"text": "hi"}).to_string()))
        .unwrap();
    assert_eq!(
        call(&router, cross_site).await.status,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn a_loopback_server_refuses_foreign_host_names() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let rebound = get_with("/api/docs", "host", "attacker.example:3000");
    assert_eq!(call(&router, rebound).await.status, StatusCode::FORBIDDEN);
    let ok = get_with("/api/docs", "host", "localhost:3000");
    assert_eq!(call(&router, ok).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_token_is_required_when_configured() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot_with(dir.path(), &["--token", "s3cret"]).await);
    assert_eq!(
        call(&router, get("/api/docs")).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        call(&router, get("/healthz")).await.status,
        StatusCode::OK,
        "health stays open"
    );
    let bearer = get_with("/api/docs", "authorization", "Bearer s3cret");
    assert_eq!(call(&router, bearer).await.status, StatusCode::OK);
    let wrong = get_with("/api/docs", "authorization", "Bearer nope");
    assert_eq!(call(&router, wrong).await.status, StatusCode::UNAUTHORIZED);
    let cookie = get_with("/api/docs", "cookie", "a=b; soulgrid_token=s3cret");
    assert_eq!(call(&router, cookie).await.status, StatusCode::OK);
    let via_query = call(&router, get("/api/docs?token=s3cret")).await;
    assert_eq!(via_query.status, StatusCode::OK);
    let set = via_query.headers["set-cookie"].to_str().unwrap();
    assert!(
        set.starts_with("soulgrid_token=s3cret;") && set.contains("HttpOnly"),
        "{set}"
    );
}

#[tokio::test]
async fn an_unusable_data_dir_is_a_clear_startup_error() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "a file where the data directory should be").unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let err = soulgrid::boot(&common::config(&file, &[]), options)
        .await
        .err()
        .expect("refused");
    let msg = err.to_string();
    assert!(
        msg.contains("cannot use the data directory") && msg.contains("not-a-dir"),
        "{msg}"
    );
}

#[tokio::test]
async fn binding_beyond_loopback_without_a_token_is_refused() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let err = soulgrid::boot(
        &common::config(dir.path(), &["--addr", "0.0.0.0:3000"]),
        options,
    )
    .await
    .err()
    .expect("refused");
    assert!(err.to_string().contains("without a token"), "{err}");
}

/// No site may frame the console (clicks in a frame would pass the Origin check); the page
/// runs only its own scripts (the inline hydration script by this response's nonce), its own
/// styles, and images from itself or `data:` (agent Markdown cannot load a tracking pixel).
#[tokio::test]
async fn every_response_forbids_framing_and_the_page_runs_only_its_own_scripts() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let page = call(&router, get("/")).await;
    let csp = page.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    let nonce = page
        .body
        .split("<script type=\"module\" nonce=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the hydration script carries a nonce");
    for directive in [
        "default-src 'self'".to_string(),
        format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        "style-src 'self'".to_string(),
        "img-src 'self' data:".to_string(),
        "frame-ancestors 'none'".to_string(),
        "base-uri 'none'".to_string(),
        "object-src 'none'".to_string(),
    ] {
        assert!(csp.contains(&directive), "{directive} in {csp}");
    }
    let again = call(&router, get("/")).await;
    assert_ne!(
        again.headers["content-security-policy"].to_str().unwrap(),
        csp,
        "a new nonce for every page"
    );
    for r in [
        &page,
        &call(&router, get("/api/docs")).await,
        &call(&router, get("/pkg/none.js")).await,
    ] {
        assert_eq!(r.headers["x-frame-options"], "DENY");
        assert_eq!(r.headers["x-content-type-options"], "nosniff");
        assert_eq!(r.headers["referrer-policy"], "no-referrer");
        let csp = r.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    }
}

/// The page's own files (wasm, JS, CSS) are checked with the server before each use: a browser
/// never runs a wasm cached from an older build against a newer page (which cannot hydrate).
/// The check is cheap: unchanged, it is a 304 without the body.
#[tokio::test]
async fn the_pages_files_are_checked_before_each_use() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    std::fs::write(site.join("pkg/soulgrid.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .site_root(site.display().to_string())
        .build();
    let state = soulgrid::boot(&common::config(&dir.path().join("data"), &[]), options)
        .await
        .unwrap();
    let router = soulgrid::http::router(state.clone());
    let first = call(&router, get("/pkg/soulgrid.wasm")).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.headers["cache-control"], "no-cache");
    let modified = first.headers["last-modified"].to_str().unwrap().to_string();
    let again = call(
        &router,
        get_with("/pkg/soulgrid.wasm", "if-modified-since", &modified),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    // Only the page's files: the API says what it says itself.
    let docs = call(&router, get("/api/docs")).await;
    assert!(docs.headers.get("cache-control").is_none());
    soulgrid::shut_down(&state).await;
}

/// With a token configured, `/healthz` without it says that the server is up and nothing else
/// (no CLI path, no session id); with it, everything.
#[tokio::test]
async fn healthz_without_the_token_says_only_ok() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot_with(dir.path(), &["--token", "s3cret"]).await);
    let open = call(&router, get("/healthz")).await;
    assert_eq!(open.status, StatusCode::OK);
    assert_eq!(open.json(), json!({"ok": true}));
    let with = call(
        &router,
        get_with("/healthz", "authorization", "Bearer s3cret"),
    )
    .await;
    assert!(with.json()["session"].is_string(), "{}", with.body);
    // Without a token configured, nobody else can reach a loopback server: it says all.
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    assert!(call(&router, get("/healthz")).await.json()["session"].is_string());
}

/// A browser leaves the port out of `Host` on the scheme's default port; a loopback name
/// without a port is still loopback.
#[tokio::test]
async fn a_loopback_host_without_a_port_is_accepted() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    for host in ["localhost", "127.0.0.1", "[::1]"] {
        let r = call(&router, get_with("/api/docs", "host", host)).await;
        assert_eq!(r.status, StatusCode::OK, "{host}");
    }
    let r = call(&router, get_with("/api/docs", "host", "attacker.example")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
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
