//! While the server shuts down (`Runtime::close`, from the first SIGTERM), nothing new is taken:
//! a request that would change something under `/api/` is a `503` saying so, and the page,
//! which reads `/healthz`'s `closing`, says "shutting down". Reads are still served, and so is
//! logging out.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;
use crate::state::AppState;

/// What a request that would change something hears while the server shuts down.
pub const CLOSING: &str = "the server is shutting down: nothing new is taken now; \
     try again once it is back";

pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let path = req.uri().path();
    let api = path.starts_with("/api/") && path != super::login_page::LOGOUT;
    if changes && api && state.runtime.is_closing() {
        tracing::info!(%path, "refused: the server is shutting down");
        return AppError::Unavailable(CLOSING.into()).into_response();
    }
    next.run(req).await
}
