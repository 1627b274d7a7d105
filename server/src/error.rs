//! One error type for the HTTP surface. It becomes a JSON response that says what went wrong in
//! terms a client can act on, and never leaks internals: those go to the log.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("a valid token is required (Authorization: Bearer, or the soulgrid_token cookie)")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("not found")]
    NotFound,
    /// A named thing that does not exist, said by name.
    #[error("{0}")]
    NoSuch(String),
    /// The request is valid but the state moved on (a permission already answered).
    #[error("{0}")]
    Conflict(String),
    #[error("the request body is too large")]
    TooLarge,
    #[error("the store is unavailable; see the server log")]
    Store(StoreError),
    /// Something the server depends on is not available now; trying again may work.
    #[error("{0}")]
    Unavailable(String),
    /// Too many of this kind of request at once; trying again in a moment will work.
    #[error("{0}")]
    Busy(String),
    /// No server leads the team now (`cluster`), or this one just stopped leading: one will in
    /// moments (`Retry-After`).
    #[error("{0}")]
    Leaderless(String),
}

/// What a request told to wait for a leader waits, in seconds.
pub const LEADERLESS_RETRY_SECS: u32 = 2;

impl AppError {
    fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound | AppError::NoSuch(_) => StatusCode::NOT_FOUND,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Store(_) | AppError::Unavailable(_) | AppError::Leaderless(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AppError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        match e {
            // Says nothing internal, and what to do: the client is told (the log has the cause).
            StoreError::NotDurable => AppError::Unavailable(e.to_string()),
            StoreError::Fenced(_) | StoreError::Replica => AppError::Leaderless(e.to_string()),
            e => AppError::Store(e),
        }
    }
}

impl From<axum::extract::rejection::PathRejection> for AppError {
    fn from(r: axum::extract::rejection::PathRejection) -> Self {
        AppError::BadRequest(format!("bad path: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::QueryRejection> for AppError {
    fn from(r: axum::extract::rejection::QueryRejection) -> Self {
        AppError::BadRequest(format!("bad query: {}", r.body_text()))
    }
}

impl From<JsonRejection> for AppError {
    fn from(r: JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return AppError::TooLarge;
        }
        AppError::BadRequest(format!("invalid JSON body: {}", r.body_text()))
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        if let AppError::Store(e) = &self {
            tracing::error!(error = %e, "store error");
        }
        let body = app::contract::ApiError {
            error: self.to_string(),
        };
        let mut response = (self.status(), Json(body)).into_response();
        if let AppError::Leaderless(_) = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                LEADERLESS_RETRY_SECS.into(),
            );
        }
        response
    }
}
