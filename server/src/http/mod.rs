//! The router, built by a function so tests can drive it with `oneshot`.

mod api;

use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::limit::RequestBodyLimitLayer;

use crate::state::AppState;

/// Request bodies larger than this are refused before a handler sees them.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(app::App);
    let snapshots = state.snapshots.clone();
    let shell_options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(api::healthz))
        .route("/api/docs", get(api::docs))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(snapshots.clone()),
            move || app::shell(shell_options.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(app::shell))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .with_state(state)
}
