//! The router, built by a function so tests can drive it with `oneshot`.

mod api;
mod api_errors;
mod hall;
pub mod heavy;
pub mod idempotency;
mod knowledge;
mod portable;
mod quests;
pub mod security;
pub mod serve;
pub mod sse;

use std::sync::Arc;

use app::functions::SnapshotSource;
use axum::routing::{get, post, put};
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::limit::RequestBodyLimitLayer;

use crate::state::AppState;

pub use api::MAX_TEXT_BYTES;

/// Request bodies larger than this are refused before a handler sees them.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// A soul bundle brought into the Hall may be this large (a long thread, many vault versions).
pub const MAX_BUNDLE_BYTES: usize = 64 * 1024 * 1024;

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(app::App);
    let snapshots: Arc<dyn SnapshotSource> = Arc::new(state.clone());
    let shell_options = state.leptos_options.clone();
    let security = state.security.clone();
    // Bundles are larger than any other body: their route has its own limit.
    let bundles = Router::new()
        .route("/api/import/agent", post(portable::import_agent))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BUNDLE_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_BUNDLE_BYTES));
    // The page's own files, served with conditional requests (an unchanged file is a 304):
    // leptos's fallback file handler drops `If-Modified-Since`.
    let options = &state.leptos_options;
    let pkg = format!("/{}", options.site_pkg_dir);
    let files = tower_http::services::ServeDir::new(
        std::path::Path::new(&*options.site_root).join(&*options.site_pkg_dir),
    )
    .precompressed_gzip()
    .precompressed_br();
    let rest = Router::new()
        .nest_service(&pkg, files)
        .route("/healthz", get(api::healthz))
        .route("/api/docs", get(api::docs))
        .route("/api/events", get(sse::events))
        .route("/api/send", post(api::send))
        .route("/api/agents/summon", post(api::summon))
        .route("/api/agents/wake", post(api::wake))
        .route("/api/agents/{pos}/dismiss", post(api::dismiss))
        .route("/api/agents/{pos}/interrupt", post(api::interrupt))
        .route("/api/agents/{pos}/kill", post(hall::kill))
        .route("/api/agents/{pos}/fork", post(hall::fork))
        .route("/api/agents/{id}", get(hall::agent))
        .route("/api/agents/{id}/knowledge", get(knowledge::knowledge))
        .route("/api/agents/{id}/knowledge/{*path}", put(knowledge::edit))
        .route("/api/agents/{id}/commits", get(knowledge::commits))
        .route("/api/agents/{id}/bundle", get(portable::download))
        .route("/api/export", get(portable::export))
        .route("/api/hall", get(hall::hall))
        .route("/api/hall/{id}/recall", post(hall::recall))
        .route("/api/quests", post(quests::start).get(quests::list))
        .route("/api/quests/{id}", get(quests::one))
        .route("/api/quests/{id}/abandon", post(quests::abandon))
        .route("/api/quests/{id}/findings/{fid}", post(quests::mark))
        .route("/api/quests/{id}/artifacts/{file}", get(quests::artifact))
        .route("/api/jobs", post(quests::post_job).get(quests::jobs))
        .route("/api/session/end", post(api::end_session))
        .route("/api/permissions/{id}", post(api::permission))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(snapshots.clone()),
            move || app::shell(shell_options.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(
            app::shell,
        ))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES));
    bundles
        .merge(rest)
        .layer(axum::middleware::from_fn_with_state(
            heavy::HeavyReads::default(),
            heavy::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            security,
            security::guard,
        ))
        .layer(axum::middleware::from_fn(api_errors::json_errors))
        .layer(axum::middleware::from_fn(security::headers))
        // Every request and its answer in the log (`RUST_LOG=tower_http=debug`).
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}
