//! Requests to the router as the tests make them, its reply read whole, and Server-Sent
//! Events parsed.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// `req` as the logged-in human sends it: with the login as a bearer unless it carries a
/// credential of its own (a bearer, a cookie, a watch link). [`call_anonymous`] sends it
/// without.
pub async fn call(router: &Router, mut req: Request<Body>) -> Reply {
    let uri = req.uri().to_string();
    let h = req.headers();
    let own = h.contains_key("authorization")
        || h.contains_key("cookie")
        || uri.contains("watch=")
        || uri.starts_with("/watch/");
    if !own {
        let bearer = format!("Bearer {}", super::TOKEN);
        req.headers_mut()
            .insert("authorization", bearer.parse().unwrap());
    }
    send(router, req).await
}

async fn send(router: &Router, req: Request<Body>) -> Reply {
    let res = router.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// `req` without the human's login that the requests made here carry (a stranger's).
pub async fn call_anonymous(router: &Router, mut req: Request<Body>) -> Reply {
    let ours = format!("Bearer {}", super::TOKEN);
    if req
        .headers()
        .get("authorization")
        .is_some_and(|v| v == ours.as_str())
    {
        req.headers_mut().remove("authorization");
    }
    send(router, req).await
}

/// The human's login, as every request made here carries it (as a logged-in browser its
/// cookie); a header a test gives replaces it.
fn logged_in(builder: axum::http::request::Builder) -> axum::http::request::Builder {
    builder.header("authorization", format!("Bearer {}", super::TOKEN))
}

pub fn get(uri: &str) -> Request<Body> {
    logged_in(Request::get(uri)).body(Body::empty()).unwrap()
}

/// A GET with one extra header.
pub fn get_with(uri: &str, header: &str, value: &str) -> Request<Body> {
    let mut req = get(uri);
    if !header.is_empty() {
        req.headers_mut().insert(
            axum::http::HeaderName::from_bytes(header.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    req
}

/// `POST /api/import/agent` with a `.soul` file's text.
pub fn import_soul(soul: String) -> Request<Body> {
    logged_in(Request::builder())
        .method("POST")
        .uri("/api/import/agent")
        .header("content-type", "application/x-soulgrid-soul")
        .body(Body::from(soul))
        .unwrap()
}

pub fn post_json(uri: &str, body: Value) -> Request<Body> {
    logged_in(Request::post(uri))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// One parsed Server-Sent Event.
#[derive(Debug, Clone, PartialEq)]
pub struct Sse {
    pub id: Option<u64>,
    pub event: Option<String>,
    pub data: String,
}

/// Splits SSE text into events; returns the unparsed remainder.
pub fn parse_sse(buf: &str) -> (Vec<Sse>, String) {
    let mut out = Vec::new();
    let mut rest = buf;
    while let Some(end) = rest.find("\n\n") {
        let block = &rest[..end];
        rest = &rest[end + 2..];
        let mut ev = Sse {
            id: None,
            event: None,
            data: String::new(),
        };
        let mut any = false;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                ev.id = v.trim().parse().ok();
                any = true;
            } else if let Some(v) = line.strip_prefix("event:") {
                ev.event = Some(v.trim().to_string());
                any = true;
            } else if let Some(v) = line.strip_prefix("data:") {
                if !ev.data.is_empty() {
                    ev.data.push('\n');
                }
                ev.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                any = true;
            }
        }
        if any {
            out.push(ev);
        }
    }
    (out, rest.to_string())
}
