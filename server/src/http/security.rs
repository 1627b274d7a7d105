//! Who may drive the agents: the human, who holds the login (`crate::login`), from any address,
//! loopback included. An agent never gets the login (not in its environment, files or prompts)
//! and its sandbox reaches no console port; with `--sandbox off`, the login is the one wall
//! (docs/SECURITY.md). A page on another site must never make this server act: mutating requests
//! come from our own origin, and a loopback server answers only to loopback host names (DNS
//! rebinding).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

pub use super::login_page::TOKEN_COOKIE;

/// Set on a `/healthz` request when a token is configured and the request did not carry it:
/// the answer then says only that the server is up.
#[derive(Clone, Copy, Debug)]
pub struct Anonymous;

#[derive(Debug)]
pub struct Security {
    /// The human's login (`crate::login`): needed by every request but the few with a
    /// credential of their own.
    login: crate::login::Login,
    /// Host headers a loopback server accepts; empty when bound to another address.
    loopback_hosts: Vec<String>,
}

impl Security {
    pub fn new(addr: SocketAddr, login: crate::login::Login) -> Self {
        let port = addr.port();
        let loopback_hosts = if addr.ip().is_loopback() {
            // A browser leaves the port out of Host on the scheme's default port.
            ["127.0.0.1", "localhost", "[::1]"]
                .into_iter()
                .flat_map(|h| [format!("{h}:{port}"), h.to_string()])
                .collect()
        } else {
            Vec::new()
        };
        Security {
            login,
            loopback_hosts,
        }
    }

    /// The login of the moment (for the link printed at start).
    pub fn login(&self) -> std::sync::Arc<str> {
        self.login.current()
    }

    /// Cancelled when the login of the moment is replaced (`soulgrid token --rotate`).
    pub fn login_ended(&self) -> tokio_util::sync::CancellationToken {
        self.login.ended()
    }

    /// Looks at the login file every second until `stop`, so a rotation ends the open
    /// streams even when no new request comes to notice it.
    pub fn watch_rotation(
        self: &Arc<Self>,
        (stop, tasks): (tokio_util::sync::CancellationToken, &crate::tasks::Tasks),
    ) {
        let me = self.clone();
        tasks.spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
                        let me = me.clone();
                        let _ = tokio::task::spawn_blocking(move || me.login()).await;
                    }
                }
            }
        });
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), AppError> {
        if self.loopback_hosts.is_empty() {
            return Ok(());
        }
        match headers.get(header::HOST).and_then(|h| h.to_str().ok()) {
            // Requests built in-process (tests) carry no Host; a browser always sends one.
            None => Ok(()),
            Some(host)
                if self
                    .loopback_hosts
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(host)) =>
            {
                Ok(())
            }
            Some(_) => Err(AppError::Forbidden("unexpected Host header")),
        }
    }

    fn check_origin(&self, method: &Method, headers: &HeaderMap) -> Result<(), AppError> {
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return Ok(());
        }
        if headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes() == b"cross-site")
        {
            return Err(AppError::Forbidden(
                "cross-site requests may not change anything",
            ));
        }
        if same_origin(headers) {
            Ok(())
        } else {
            Err(AppError::Forbidden(
                "the Origin of this request is not this server",
            ))
        }
    }

    /// `Ok(true)` when the token came in the query string and should be kept as a cookie.
    fn check_token(&self, req: &Request) -> Result<bool, AppError> {
        let token = self.login.current();
        if self.presented_as(req, &token) {
            return Ok(false);
        }
        let query = req
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|kv| kv.strip_prefix("token="))
            .any(|v| constant_time_eq(v, &token));
        if query && req.method() == Method::GET {
            return Ok(true);
        }
        Err(AppError::Unauthorized)
    }

    /// Whether the request carries the login (bearer or cookie).
    fn presented(&self, req: &Request) -> bool {
        self.presented_as(req, &self.login.current())
    }

    fn presented_as(&self, req: &Request, token: &str) -> bool {
        let headers = req.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix(TOKEN_COOKIE)?.strip_prefix('='))
            .find(|v| constant_time_eq(v, token));
        bearer.is_some_and(|b| constant_time_eq(b, token)) || cookie.is_some()
    }
}

use crate::secret::same as constant_time_eq;

/// Whether a request carries no `Origin` (not a browser: nothing to forge) or this server's
/// own (`http(s)://` and the request's `Host`).
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = origin.to_str().unwrap_or("null");
    host.is_some_and(|host| {
        origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .is_some_and(|o| o.eq_ignore_ascii_case(host))
    })
}

/// The middleware: host, token, then origin.
pub async fn guard(State(sec): State<Arc<Security>>, mut req: Request, next: Next) -> Response {
    // Anyone may ask whether the server is up; only with the token does it say more.
    if req.uri().path() == "/healthz" && sec.check_host(req.headers()).is_ok() {
        match sec.presented(&req) {
            true => proven(&req),
            false => {
                req.extensions_mut().insert(Anonymous);
            }
        }
        return next.run(req).await;
    }
    let path = req.uri().path();
    let checked = match (req.method(), path) {
        // The login page's form and logging out need no login (an old cookie is cleared).
        (&Method::POST, super::login_page::FORM) | (&Method::POST, super::login_page::LOGOUT) => {
            sec.check_host(req.headers())
                .and_then(|_| sec.check_origin(req.method(), req.headers()))
                .map(|_| false)
        }
        _ => sec.checked(&req),
    };
    // A credential shown (the login, a watch link): this connection is no anonymous one.
    let public =
        path.starts_with("/pkg/") || path == "/ws/agent" || path == super::login_page::FORM;
    if checked.is_ok() && !public && path != super::login_page::LOGOUT {
        proven(&req);
    }
    let checked = match checked {
        Ok(set_cookie) => Ok(set_cookie),
        Err(AppError::Unauthorized) if !path.starts_with("/api/") && path != "/ws/agent" => {
            return super::login_page::page(req.method());
        }
        Err(e) => Err(e),
    };
    match checked {
        Err(e) => e.into_response(),
        Ok(set_cookie) => {
            let mut res = next.run(req).await;
            if set_cookie {
                let cookie = super::login_page::cookie(&sec.login.current());
                res.headers_mut().append(header::SET_COOKIE, cookie);
            }
            res
        }
    }
}

impl Security {
    /// Host, then the login (unless the request carries a credential of its own), then origin:
    /// `Ok(true)` when the login came in the query string and is to be kept as a cookie.
    fn checked(&self, req: &Request) -> Result<bool, AppError> {
        // An external agent's connection carries its own credential (an invite, or its
        // identity's secret) in its first frame: it needs no access to the console.
        // A spectator's request was checked by `spectators::guard`: its watch link is its credential.
        // The page's build files (`/pkg/`) are the same for everyone and carry nothing of the
        // team: a spectator's page, and the login page, load them too.
        let path = req.uri().path();
        let public_file = req.method() == Method::GET && path.starts_with("/pkg/");
        let own_credential = public_file
            || path == "/ws/agent"
            || req
                .extensions()
                .get::<crate::spectators::Spectator>()
                .is_some();
        self.check_host(req.headers())?;
        let set_cookie = match own_credential {
            true => false,
            false => self.check_token(req)?,
        };
        self.check_origin(req.method(), req.headers())?;
        Ok(set_cookie)
    }
}

/// The request's connection showed a credential (`serve::Unproven`).
fn proven(req: &Request) {
    if let Some(admission) = req.extensions().get::<super::serve::Admission>() {
        admission.prove();
    }
}

/// What any response may do in a browser, unless the page set its own policy: nothing framed,
/// nothing sniffed, no referrer; a response that is not the page runs nothing at all. The
/// page's own files (`/pkg/`) are checked with the server before each use (`no-cache`; an
/// unchanged file is a 304): a wasm cached from an older build never meets a newer page;
/// those whose name carries their content's hash (`site::content_hashed`) are kept a year.
pub async fn headers(req: Request, next: Next) -> Response {
    use axum::http::header::{
        CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
        X_FRAME_OPTIONS,
    };
    use axum::http::HeaderValue;
    use axum::http::StatusCode;
    let site_file = req
        .uri()
        .path()
        .strip_prefix("/pkg/")
        .map(|name| super::site::content_hashed(name.rsplit('/').next().unwrap_or(name)));
    let mut res = next.run(req).await;
    // A 304 refreshes what the cache holds: it must not turn a kept file into a checked one.
    let found = res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED;
    let h = res.headers_mut();
    if let Some(hashed) = site_file {
        let kept = match hashed && found {
            // Its name changes with its content: kept a year, never asked again.
            true => "public, max-age=31536000, immutable",
            false => "no-cache",
        };
        h.entry(CACHE_CONTROL)
            .or_insert(HeaderValue::from_static(kept));
        // One name, three bodies (brotli, gzip, as is): a shared cache must tell them apart.
        if !h.get_all(VARY).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.to_ascii_lowercase().contains("accept-encoding"))
        }) {
            h.append(VARY, HeaderValue::from_static("accept-encoding"));
        }
    }
    h.entry(CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(
            "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
        ));
    h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // Unless the response chose its own (the login page's form must say where it posts from).
    h.entry(REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("no-referrer"));
    res
}
