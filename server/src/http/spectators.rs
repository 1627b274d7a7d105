//! Spectators: watch links (`POST /api/watch`, `GET /api/watch`, `POST /api/watch/{token}/
//! revoke`) and what a request carrying one may do. A watch token comes as `Authorization:
//! Bearer`, `?watch=` or the page's path `/watch/{token}`; with one, a request may only read
//! (the documents and the stream as a spectator sees them, quests, the Hall, the page and its
//! files): anything else is `403`, whatever the server's own `--token` says. Revoking a link
//! ends its open streams at once.

use app::contract::{NewWatch, WatchLink, WatchView};
use app::domain::docs::{watch_doc_id, Doc};
use app::domain::events::EventKind;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::extract::{AppJson, AppPath};
use crate::error::AppError;
use crate::secret::digest;
use crate::spectators::Spectator;
use crate::state::AppState;

/// The paths a spectator may read (the page, its files, what the page reads).
fn readable(path: &str) -> bool {
    let api = [
        "/api/docs",
        "/api/events",
        "/api/quests",
        "/api/hall",
        "/healthz",
    ];
    api.contains(&path)
        || path.starts_with("/api/quests/")
        || path.starts_with("/watch/")
        || path.starts_with("/pkg/")
}

/// The watch token a request carries, if any.
fn presented(req: &Request) -> Option<String> {
    let bearer = req
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .filter(|t| t.starts_with("sgw_"));
    let query = req
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|kv| kv.strip_prefix("watch="));
    let path = req
        .uri()
        .path()
        .strip_prefix("/watch/")
        .map(|rest| rest.split('/').next().unwrap_or(rest));
    bearer.or(query).or(path).map(str::to_string)
}

/// The middleware: a request with a watch token is a spectator's (it may only read), checked
/// before the server's own token.
pub async fn guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let Some(token) = presented(&req) else {
        return next.run(req).await;
    };
    let hash = digest(&token);
    if !crate::spectators::valid(&state.store, &token) {
        // A page asked for is a page that says so; the API answers in JSON.
        if !req.uri().path().starts_with("/api/") && req.method() == Method::GET {
            return super::login_page::plain(
                axum::http::StatusCode::FORBIDDEN,
                "This watch link no longer works",
                "<p>Whoever gave it to you has revoked it (or it was never made): nothing of the \
                 team is shown through it any more. Ask them for a new one.</p>",
            );
        }
        return AppError::Forbidden("this watch link is not valid (revoked, or never made)")
            .into_response();
    }
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return AppError::Forbidden("a watch link only looks: it changes nothing").into_response();
    }
    if !readable(req.uri().path()) {
        return AppError::Forbidden("a watch link shows the team, not this").into_response();
    }
    state.spectators.used(&hash, state.runtime.clock().now_ms());
    let revoked = state.spectators.token(&hash);
    req.extensions_mut().insert(Spectator {
        token_hash: hash,
        revoked,
    });
    next.run(req).await
}

/// `POST /api/watch {"label"?}` → `201 {"token", "url"}`.
pub async fn make(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppJson(request): AppJson<NewWatch>,
) -> Result<(StatusCode, Json<WatchLink>), AppError> {
    let label = request
        .label
        .map(|l| l.trim().chars().take(80).collect::<String>())
        .filter(|l| !l.is_empty());
    let token = crate::secret::new_token("sgw_");
    state
        .runtime
        .recorder()
        .record(vec![EventKind::WatchMade {
            token_hash: digest(&token),
            label,
        }])
        .await
        .map_err(AppError::from)?;
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1:3000");
    let url = format!("http://{host}/watch/{token}");
    Ok((StatusCode::CREATED, Json(WatchLink { token, url })))
}

/// `GET /api/watch`: every watch link, newest first.
pub async fn list(State(state): State<AppState>) -> Json<Vec<WatchView>> {
    let mut links: Vec<WatchView> = state.store.with_docs(|d| {
        d.values()
            .filter_map(Doc::as_watch)
            .map(|w| WatchView {
                id: w.id.trim_start_matches("watch-link:").to_string(),
                label: w.label.clone(),
                created_at: w.created_at,
                last_used_at: state.spectators.last_used(&w.token_hash),
                revoked_at: w.revoked_at,
            })
            .collect()
    });
    links.sort_by_key(|w| std::cmp::Reverse(w.created_at));
    Json(links)
}

/// `POST /api/watch/{token}/revoke` (its token or its id) → `204`; its open streams end.
pub async fn revoke(
    State(state): State<AppState>,
    AppPath(which): AppPath<String>,
) -> Result<StatusCode, AppError> {
    let id = match which.starts_with("sgw_") {
        true => watch_doc_id(&digest(&which)),
        false => format!("watch-link:{which}"),
    };
    let link = state
        .store
        .with_docs(|d| d.get(&id).and_then(Doc::as_watch).cloned())
        .ok_or_else(|| AppError::NoSuch("no watch link has this token or id".into()))?;
    if !link.is_revoked() {
        state
            .runtime
            .recorder()
            .record(vec![EventKind::WatchRevoked {
                token_hash: link.token_hash.clone(),
            }])
            .await
            .map_err(AppError::from)?;
    }
    // At once here; on every other server of the team from the log (`Spectators::end_revoked`).
    state.spectators.token(&link.token_hash).cancel();
    Ok(StatusCode::NO_CONTENT)
}
