//! Every answer under `/api/` is JSON, errors included. Handlers answer with [`AppError`]; what
//! answers before a handler runs (no such route, a method the route does not take, a body over
//! the limit, a rejection an extractor wrote as plain text) is rewritten here to the same
//! `{"error": …}` shape with its status kept.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The longest error text carried over from a plain-text answer.
const MAX_TEXT: usize = 4096;

pub async fn json_errors(req: Request, next: Next) -> Response {
    if !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let response = next.run(req).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/plain"));
    let (parts, body) = response.into_parts();
    let text = match plain {
        true => axum::body::to_bytes(body, MAX_TEXT)
            .await
            .ok()
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
            .filter(|t| !t.is_empty()),
        false => None,
    };
    let error = text.unwrap_or_else(|| said(status, &method, &path));
    let mut out = (status, Json(app::contract::ApiError { error })).into_response();
    // What the answer said besides its body (Allow on a 405, the security headers) stays.
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

fn is_json(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The sentence for an answer that had none fit to show.
fn said(status: StatusCode, method: &axum::http::Method, path: &str) -> String {
    let path: String = path.chars().take(200).collect();
    match status {
        StatusCode::NOT_FOUND => format!("there is no endpoint {method} {path}"),
        StatusCode::METHOD_NOT_ALLOWED => format!("{path} does not take {method}"),
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is too large".into(),
        s => s
            .canonical_reason()
            .map(str::to_lowercase)
            .unwrap_or_else(|| format!("status {}", s.as_u16())),
    }
}
