//! Every answer under `/api/` is JSON with its fitting status, whoever answered it: a handler,
//! the router (no such path, a method the path does not take), a body limit or an extractor.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};

use crate::common::{boot, call};
use crate::SERIAL;

fn req(
    method: &str,
    uri: &str,
    content_type: Option<&str>,
    body: impl Into<Body>,
) -> Request<Body> {
    let mut b = Request::builder()
        .method(method)
        .uri(uri)
        .header("authorization", crate::common::BEARER);
    if let Some(t) = content_type {
        b = b.header(header::CONTENT_TYPE, t);
    }
    b.body(body.into()).unwrap()
}

#[tokio::test]
async fn every_kind_of_bad_request_is_answered_in_json() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let json = Some("application/json");
    let huge = format!("{{\"text\": \"{}\"}}", "x".repeat(300 * 1024));
    let cases = [
        (
            "an unknown path",
            req("GET", "/api/no-such-thing", None, ""),
            StatusCode::NOT_FOUND,
        ),
        (
            "an unknown path, posted",
            req("POST", "/api/agents/1/no-such", json, "{}"),
            StatusCode::NOT_FOUND,
        ),
        (
            "a method the path does not take",
            req("DELETE", "/api/send", None, ""),
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        (
            "a body over the limit",
            req("POST", "/api/send", json, huge),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (
            "a body that is not JSON",
            req("POST", "/api/send", json, "{not json"),
            StatusCode::BAD_REQUEST,
        ),
        (
            "no content type",
            req("POST", "/api/send", None, "{\"text\": \"hi\"}"),
            StatusCode::BAD_REQUEST,
        ),
        (
            "a seat that is not a number",
            req("POST", "/api/agents/x/dismiss", json, "{}"),
            StatusCode::BAD_REQUEST,
        ),
        (
            "JSON of the wrong shape",
            req("POST", "/api/send", json, "{\"txt\": 1}"),
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (what, request, status) in cases {
        let r = call(&router, request).await;
        assert_eq!(r.status, status, "{what}: {}", r.body);
        let kind = r.headers[header::CONTENT_TYPE].to_str().unwrap();
        assert!(
            kind.starts_with("application/json"),
            "{what}: {kind}: {}",
            r.body
        );
        let error = r.json()["error"].as_str().map(str::to_owned);
        assert!(error.is_some_and(|e| !e.is_empty()), "{what}: {}", r.body);
        assert_eq!(
            r.headers["x-frame-options"], "DENY",
            "{what}: security headers kept"
        );
    }
    // Outside /api/ the page's own 404 stays a page.
    let page = call(&router, req("GET", "/no-such-page", None, "")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
}

/// Every endpoint of the contract (`app::contract::endpoints::ALL`, which docs/API.md lists)
/// is routed at its method and path: none answers "no such endpoint" or "does not take".
#[tokio::test]
async fn every_endpoint_of_the_contract_is_routed() {
    use tower::ServiceExt;
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    for e in app::contract::endpoints::ALL {
        // Seat 0 and id "0" fill any route; a body that is not JSON stops a handler before
        // it acts.
        let path = app::contract::endpoints::fill(e.route, &["0".into(), "0".into()]);
        let body = match e.method {
            app::contract::endpoints::Method::Get => "",
            _ => "not json",
        };
        let request = req(e.method.as_str(), &path, Some("application/json"), body);
        let res = router.clone().oneshot(request).await.unwrap();
        let status = res.status();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{} {path}", e.name);
        if status == StatusCode::NOT_FOUND {
            let body = http_body_util::BodyExt::collect(res.into_body())
                .await
                .unwrap()
                .to_bytes();
            let body = String::from_utf8_lossy(&body);
            assert!(
                !body.contains("there is no endpoint"),
                "{} {path}: {body}",
                e.name
            );
        }
    }
    soulgrid::shut_down(&state).await;
}
