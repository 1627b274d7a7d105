//! One listener for every part a server of a cluster plays in turn (`cluster`): the router the
//! accept loop serves is the part's of the moment, swapped as the server goes from follower to
//! leader and back; between parts (booting one, or waiting for the database to come back) it
//! answers every request itself, `/healthz` and `/api/…` with a 503 that says why (with
//! `Retry-After`), a page with a short one that reloads: a load balancer and a browser are
//! told, never refused a connection.

use std::convert::Infallible;
use std::sync::{Arc, RwLock};

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::error::{AppError, LEADERLESS_RETRY_SECS};

/// The router of the part being served, replaceable while the accept loop runs.
#[derive(Clone)]
pub struct Switch {
    current: Arc<RwLock<Router>>,
}

impl Switch {
    /// Answers as [`unavailable`] until a part is set.
    pub fn new(why: &str) -> Switch {
        Switch {
            current: Arc::new(RwLock::new(unavailable(why))),
        }
    }

    /// From the next request on, `router` answers (requests under way finish where they are).
    pub fn set(&self, router: Router) {
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = router;
    }

    /// Between parts: every request answered 503, saying `why`.
    pub fn between(&self, why: &str) {
        self.set(unavailable(why));
    }

    /// What the accept loop serves: each request goes to the router set at its arrival.
    pub fn router(&self) -> Router {
        let current = self.current.clone();
        Router::new().fallback_service(tower::service_fn(move |req: Request| {
            let router = current.read().unwrap_or_else(|p| p.into_inner()).clone();
            async move {
                Ok::<Response, Infallible>(
                    tower::ServiceExt::oneshot(router, req)
                        .await
                        .into_response(),
                )
            }
        }))
    }
}

/// Every request answered 503 with `why`: JSON on `/healthz` (`"ok": false`) and `/api/…`
/// (`Retry-After`), a page that tries again by itself elsewhere.
fn unavailable(why: &str) -> Router {
    let why: Arc<str> = why.into();
    Router::new().fallback(move |req: Request| {
        let why = why.clone();
        async move {
            let path = req.uri().path();
            if path == "/healthz" {
                let mut health = app::contract::Health::default_ok();
                health.ok = false;
                let mut response =
                    (StatusCode::SERVICE_UNAVAILABLE, axum::Json(health)).into_response();
                no_store(&mut response);
                return response;
            }
            if path == "/api" || path.starts_with("/api/") {
                let mut response = AppError::Leaderless(why.to_string()).into_response();
                no_store(&mut response);
                return response;
            }
            let page = format!(
                "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
                 <meta http-equiv=\"refresh\" content=\"{LEADERLESS_RETRY_SECS}\">\
                 <title>Soulgrid: a moment</title></head><body><p>{}</p></body></html>",
                html_escape(&why)
            );
            let mut response = (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                page,
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, LEADERLESS_RETRY_SECS.into());
            no_store(&mut response);
            response
        }
    })
}

fn no_store(response: &mut Response) {
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt;

    async fn answer(router: Router, path: &str) -> (StatusCode, String, Option<String>) {
        let response = router
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let retry = response
            .headers()
            .get(header::RETRY_AFTER)
            .map(|v| v.to_str().unwrap().to_string());
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).into_owned(), retry)
    }

    #[tokio::test]
    async fn between_parts_every_request_is_a_503_that_says_why() {
        let switch = Switch::new("the database cannot be reached <yet>");
        let (status, body, _) = answer(switch.router(), "/healthz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body, r#"{"ok":false}"#);
        let (status, body, retry) = answer(switch.router(), "/api/nothing/here").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(body.contains("the database cannot be reached"), "{body}");
        assert_eq!(retry.as_deref(), Some("2"));
        let (status, body, retry) = answer(switch.router(), "/agents/x").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(body.contains("&lt;yet&gt;"), "{body}");
        assert_eq!(retry.as_deref(), Some("2"));
    }

    #[tokio::test]
    async fn a_part_set_answers_from_the_next_request_on() {
        let switch = Switch::new("starting");
        let served = switch.router();
        switch.set(Router::new().route("/healthz", axum::routing::get(|| async { "fine" })));
        let (status, body, _) = answer(served.clone(), "/healthz").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "fine"));
        switch.between("stopped");
        let (status, _, _) = answer(served, "/healthz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
