//! Reads that cost the server the whole log: a team export, a soul bundle, a page of the past
//! (`/?at=`). Only a person's own navigation or download from this console, or a client that is
//! not a browser, may start one, and only a few run at once.
//!
//! A browser says who asked in fetch metadata no page can set or forge (`Sec-Fetch-Site`,
//! `Sec-Fetch-Dest`). An image in a message (`<img src="/api/export">`), one on another site, a
//! script or a style sheet pointing here each said so, and each used to start a whole-team
//! export: twelve images in one reply made a page view read 515 MB.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use crate::error::AppError;

/// How many heavy reads may run at once; more are told to try again.
pub const AT_ONCE: usize = 2;

#[derive(Clone, Debug)]
pub struct HeavyReads(Arc<Semaphore>);

impl Default for HeavyReads {
    fn default() -> Self {
        HeavyReads(Arc::new(Semaphore::new(AT_ONCE)))
    }
}

/// Whether the request reads the whole log.
pub fn is_heavy(path: &str, query: Option<&str>) -> bool {
    let past = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .any(|kv| kv == "at" || kv.starts_with("at="));
    path == "/api/export"
        || (path.starts_with("/api/agents/") && path.ends_with("/bundle"))
        || (past && !path.starts_with("/api/") && !path.starts_with("/pkg/"))
}

/// Refused: a request a page made for something other than a person's navigation, or one from
/// another site. No metadata (curl, the command line, an old browser's navigation) passes.
pub fn check(headers: &HeaderMap) -> Result<(), AppError> {
    let value = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    if let Some(site) = value("sec-fetch-site") {
        if site != "same-origin" && site != "none" {
            return Err(AppError::Forbidden(
                "an export, a bundle or a page of the past is read only when asked for from this \
                 console (this request came from another site)",
            ));
        }
    }
    if let Some(dest) = value("sec-fetch-dest") {
        if dest != "document" && dest != "empty" {
            return Err(AppError::Forbidden(
                "an export, a bundle or a page of the past is read only when asked for, not \
                 loaded as an image, a script or a style",
            ));
        }
    }
    Ok(())
}

/// The middleware: heavy reads checked, and at most [`AT_ONCE`] of them running.
pub async fn guard(State(reads): State<HeavyReads>, req: Request, next: Next) -> Response {
    if !is_heavy(req.uri().path(), req.uri().query()) {
        return next.run(req).await;
    }
    if let Err(e) = check(req.headers()) {
        return e.into_response();
    }
    // Held until the answer is made, or by the export that streams it (`HeavyPermit`).
    let Ok(permit) = reads.0.clone().try_acquire_owned() else {
        return AppError::Busy(format!(
            "{AT_ONCE} exports, bundles or pages of the past are being read; try again in a moment"
        ))
        .into_response();
    };
    let mut req = req;
    req.extensions_mut().insert(HeavyPermit(Arc::new(permit)));
    next.run(req).await
}

/// A heavy read's place among the [`AT_ONCE`]: a handler whose answer streams after it returns
/// keeps it until the stream ends.
#[derive(Clone, Debug)]
pub struct HeavyPermit(#[allow(dead_code)] Arc<tokio::sync::OwnedSemaphorePermit>);
