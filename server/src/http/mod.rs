//! The router, built by a function so tests can drive it with `oneshot`.

mod api;
mod api_errors;
mod closing;
mod external;
pub mod extract;
pub mod forward;
mod governance;
mod hall;
pub mod idempotency;
mod knowledge;
pub mod login;
pub mod login_page;
mod portable;
mod projects;
mod quests;
pub mod security;
pub mod serve;
pub mod site;
pub mod spectators;
pub mod sse;
pub mod switch;
pub mod whole_log;

use std::sync::Arc;

use app::contract::endpoints as e;
use app::functions::SnapshotSource;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::limit::RequestBodyLimitLayer;

use crate::state::AppState;
use extract::Mount;

pub use api::MAX_TEXT_BYTES;

/// Request bodies larger than this are refused before a handler sees them.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// A soul bundle brought into the Hall may be this large (a long thread, many vault versions).
pub const MAX_BUNDLE_BYTES: usize = 64 * 1024 * 1024;

/// Every route of the server, then its layers (outermost last): security headers, JSON
/// errors, the spectators' and the login's guards, reads of the whole log, a follower's
/// forwarding, the shutdown's refusal.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(app::App);
    let snapshots: Arc<dyn SnapshotSource> = Arc::new(state.clone());
    let shell_options = state.leptos_options.clone();
    // Bundles are larger than any other body: their route has its own limit.
    let bundles = Router::new()
        .at::<e::ImportAgent, _, _>(portable::import_agent)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BUNDLE_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_BUNDLE_BYTES));
    let rest = governing_routes(team_routes(page_files(&state.leptos_options)))
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
    layers(bundles.merge(rest), &state).with_state(state)
}

/// The page's own files, served with conditional requests (an unchanged file is a 304):
/// leptos's fallback file handler drops `If-Modified-Since`.
fn page_files(options: &leptos::prelude::LeptosOptions) -> Router<AppState> {
    let pkg = format!("/{}", options.site_pkg_dir);
    let files = tower_http::services::ServeDir::new(
        std::path::Path::new(&*options.site_root).join(&*options.site_pkg_dir),
    )
    .precompressed_gzip()
    .precompressed_br();
    Router::new().nest_service(&pkg, files)
}

/// The team's endpoints of the contract (app/src/contract/endpoints.rs), at their methods and
/// routes (docs/API.md lists them): the team, the Hall, knowledge, quests and projects.
fn team_routes(router: Router<AppState>) -> Router<AppState> {
    router
        .at::<e::Healthz, _, _>(api::healthz)
        .at::<e::Docs, _, _>(api::docs)
        .at::<e::Events, _, _>(sse::events)
        .at::<e::SendMessage, _, _>(api::send)
        .at::<e::Summon, _, _>(api::summon)
        .at::<e::Wake, _, _>(api::wake)
        .at::<e::Dismiss, _, _>(api::dismiss)
        .at::<e::Interrupt, _, _>(api::interrupt)
        .at::<e::Kill, _, _>(hall::kill)
        .at::<e::Fork, _, _>(hall::fork)
        .at::<e::Agent, _, _>(hall::agent)
        .at::<e::Knowledge, _, _>(knowledge::knowledge)
        .at::<e::EditKnowledge, _, _>(knowledge::edit)
        .at::<e::CaptureKnowledge, _, _>(knowledge::capture)
        .at::<e::Commits, _, _>(knowledge::commits)
        .at::<e::Rules, _, _>(governance::rules)
        .at::<e::AddRule, _, _>(governance::add_rule)
        .at::<e::RemoveRule, _, _>(governance::remove_rule)
        .at::<e::Bundle, _, _>(portable::download)
        .at::<e::Export, _, _>(portable::export)
        .at::<e::Hall, _, _>(hall::hall)
        .at::<e::Recall, _, _>(hall::recall)
        .at::<e::StartQuest, _, _>(quests::start)
        .at::<e::Quests, _, _>(quests::list)
        .at::<e::Quest, _, _>(quests::one)
        .at::<e::AbandonQuest, _, _>(quests::abandon)
        .at::<e::MarkFinding, _, _>(quests::mark)
        .at::<e::Artifact, _, _>(quests::artifact)
        .at::<e::LinkProject, _, _>(projects::link)
        .at::<e::Projects, _, _>(projects::list)
        .at::<e::ProjectFolders, _, _>(projects::folders)
        .at::<e::Project, _, _>(projects::one)
        .at::<e::PutToWork, _, _>(projects::put_to_work)
        .at::<e::ProjectDiff, _, _>(projects::diff)
        .at::<e::ProjectFile, _, _>(projects::file)
        .at::<e::UnlinkProject, _, _>(projects::unlink)
        .at::<e::CommentLine, _, _>(projects::comment)
        .at::<e::RequestChanges, _, _>(projects::request_changes)
        .at::<e::AskRebase, _, _>(projects::ask_rebase)
        .at::<e::ApproveBranch, _, _>(projects::approve)
        .at::<e::MergeBranch, _, _>(projects::merge)
        .at::<e::PostJob, _, _>(quests::post_job)
        .at::<e::Jobs, _, _>(quests::jobs)
}

/// The rest of the contract: the login, the session, budgets and approvals, external agents
/// and spectators; and what is not JSON (the login form, the external agents' WebSocket).
fn governing_routes(router: Router<AppState>) -> Router<AppState> {
    router
        .at::<e::Logout, _, _>(login::logout)
        // The login page's form: not JSON, so not in the contract.
        .route(login_page::FORM, axum::routing::post(login::form))
        .at::<e::EndSession, _, _>(api::end_session)
        .at::<e::SetBudget, _, _>(governance::set_budget)
        .at::<e::Budgets, _, _>(governance::budgets)
        .at::<e::Permissions, _, _>(governance::list)
        .at::<e::AnswerPermission, _, _>(api::permission)
        .at::<e::MakeInvite, _, _>(external::make_invite)
        .at::<e::RotateSecret, _, _>(external::rotate_secret)
        .at::<e::MakeWatch, _, _>(spectators::make)
        .at::<e::Watches, _, _>(spectators::list)
        .at::<e::RevokeWatch, _, _>(spectators::revoke)
        // External agents' WebSocket (docs/EXTERNAL.md): not JSON, so not in the contract.
        .route("/ws/agent", axum::routing::get(external::agent_socket))
}

/// The layers every request passes, outermost last.
fn layers(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    router
        // Shutting down, nothing new is taken.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            closing::guard,
        ))
        // A follower hands what it cannot answer to the leader (after the checks below).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            forward::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            whole_log::HeavyReads::default(),
            whole_log::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.security.clone(),
            security::guard,
        ))
        // Before the token: a watch link's request may only read, token or not.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            spectators::guard,
        ))
        .layer(axum::middleware::from_fn(api_errors::json_errors))
        .layer(axum::middleware::from_fn(security::headers))
        // The page and the API's JSON compressed as they go (brotli at 4, gzip): a browser's
        // first visit is mostly the server-rendered page and `/api/docs`. Not the event stream
        // (the default predicate: a compressor would hold its events back), nor a file that
        // is compressed already (the release build's `.br`/`.gz` twins), nor a wasm without
        // one (a debug build's: tens of megabytes, for tests on this machine).
        .layer(
            tower_http::compression::CompressionLayer::new()
                .no_deflate()
                .no_zstd()
                .compress_when({
                    use tower_http::compression::predicate::{
                        DefaultPredicate, NotForContentType, Predicate,
                    };
                    DefaultPredicate::new().and(NotForContentType::const_new("application/wasm"))
                }),
        )
        // Every request and its answer in the log (`RUST_LOG=tower_http=debug`).
        .layer(tower_http::trace::TraceLayer::new_for_http())
}
