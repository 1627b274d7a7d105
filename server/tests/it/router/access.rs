//! Who may ask: requests from another origin or for a foreign host name are refused, and a
//! configured token is required.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use crate::common::{boot, boot_with, call, get, get_with};
use crate::SERIAL;

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
