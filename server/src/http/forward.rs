//! What a follower answers itself, and what it hands to the leader. It serves what the log
//! holds (the pages and their files, `/api/docs`, the event stream, `/healthz`); everything
//! else (every write, and the reads only the leader's runtime can answer: diffs, files,
//! knowledge) goes to the leader as it came, after this server's own checks (host, token,
//! origin), and the leader's answer comes back as it was sent. Without a leader, or when it does
//! not answer: 503 with `Retry-After`. An external agent's WebSocket is not carried: it is
//! told where the leader is.

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;
use crate::state::AppState;

/// The middleware.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !state.role.is_follower() || served_here(req.method(), req.uri().path()) {
        return next.run(req).await;
    }
    let Some(leader) = state.role.leader_address() else {
        return AppError::Leaderless(
            "no server leads the team now: one takes over within moments".into(),
        )
        .into_response();
    };
    if req.uri().path() == "/ws/agent" {
        return AppError::Leaderless(format!(
            "this server follows the team: connect to the leader at {leader}"
        ))
        .into_response();
    }
    match forward(&leader, req).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

/// What a follower answers from its own replica of the log.
pub fn served_here(method: &Method, path: &str) -> bool {
    let reads = matches!(*method, Method::GET | Method::HEAD);
    reads
        && (matches!(path, "/healthz" | "/api/docs" | "/api/events")
            || !(path.starts_with("/api/") || path.starts_with("/ws/")))
}

/// Headers that are this hop's, not the request's: the leader's own are set by the client.
/// `Origin` and `Sec-Fetch-Site` were checked here, against this server's address.
const HOP: [&str; 8] = [
    "host",
    "origin",
    "sec-fetch-site",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
    "upgrade",
];

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // The leader is reached over plain HTTP; reqwest asks for a provider all the same.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(2))
            // A leader cut off midway is found out; one that works long (a merge's check, a
            // checkout) is waited for.
            .tcp_keepalive(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client without TLS")
    })
}

async fn forward(leader: &str, req: Request) -> Result<Response, AppError> {
    let (parts, body) = req.into_parts();
    // Streamed as it comes: the leader holds it to its own limits.
    let body = reqwest::Body::wrap_stream(body.into_data_stream());
    let path = parts
        .uri
        .path_and_query()
        .map_or(parts.uri.path(), |p| p.as_str());
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if !HOP.contains(&name.as_str()) {
            headers.append(name.clone(), value.clone());
        }
    }
    let answer = client()
        .request(parts.method.clone(), format!("{leader}{path}"))
        .headers(headers)
        .body(body)
        .send()
        .await
        .map_err(|e| {
            tracing::warn!(%leader, error = %e, "the leader does not answer");
            AppError::Leaderless(format!("the leader at {leader} does not answer: try again"))
        })?;
    let mut out = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if !HOP.contains(&name.as_str()) || name == header::CONTENT_LENGTH {
            out = out.header(name, value);
        }
    }
    out.body(Body::from_stream(answer.bytes_stream()))
        .map_err(|e| AppError::Unavailable(format!("the leader's answer: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_serves_the_log_and_hands_on_the_rest() {
        for (method, path) in [
            (Method::GET, "/"),
            (Method::GET, "/agent/ada"),
            (Method::GET, "/pkg/soulgrid.wasm"),
            (Method::GET, "/api/docs"),
            (Method::GET, "/api/events"),
            (Method::HEAD, "/healthz"),
        ] {
            assert!(served_here(&method, path), "{method} {path}");
        }
        for (method, path) in [
            (Method::POST, "/api/send"),
            (Method::POST, "/"),
            (Method::GET, "/api/projects"),
            (Method::GET, "/api/hall"),
            (Method::GET, "/ws/agent"),
            (Method::DELETE, "/api/docs"),
        ] {
            assert!(!served_here(&method, path), "{method} {path}");
        }
    }
}
