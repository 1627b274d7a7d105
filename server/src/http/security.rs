//! Who may drive the agents. Agents can run commands, so a page on another site must never be
//! able to make this server act: mutating requests must come from our own origin, a loopback
//! server only answers to loopback host names (DNS rebinding), and a server reachable from the
//! network requires a token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

pub const TOKEN_COOKIE: &str = "soulgrid_token";

/// Said to a mutating request from a process of this server's tree (`peer::agent_process`).
pub const AGENT_REFUSED: &str = "this request comes from one of the agents' processes: an agent \
     cannot drive the console (approvals, rules, budgets and messages are the human's; it \
     writes with its own tools)";

/// Set on a `/healthz` request when a token is configured and the request did not carry it:
/// the answer then says only that the server is up.
#[derive(Clone, Copy, Debug)]
pub struct Anonymous;

#[derive(Debug)]
pub struct Security {
    token: Option<String>,
    /// Host headers a loopback server accepts; empty when bound to another address.
    loopback_hosts: Vec<String>,
}

impl Security {
    /// Refuses a non-loopback bind without a token.
    pub fn new(addr: SocketAddr, token: Option<String>) -> Result<Self, String> {
        let token = token.filter(|t| !t.trim().is_empty());
        let loopback = addr.ip().is_loopback();
        if !loopback && token.is_none() {
            return Err(format!(
                "refusing to listen on {addr} without a token: anyone who can reach it could run \
                 commands through the agents. Set --token (SOULGRID_TOKEN) or bind 127.0.0.1."
            ));
        }
        let port = addr.port();
        let loopback_hosts = if loopback {
            // A browser leaves the port out of Host on the scheme's default port.
            ["127.0.0.1", "localhost", "[::1]"]
                .into_iter()
                .flat_map(|h| [format!("{h}:{port}"), h.to_string()])
                .collect()
        } else {
            Vec::new()
        };
        Ok(Security {
            token,
            loopback_hosts,
        })
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
        let Some(origin) = headers.get(header::ORIGIN) else {
            // Not a browser (curl, scripts): nothing to forge.
            return Ok(());
        };
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let origin = origin.to_str().unwrap_or("null");
        let same = host.is_some_and(|host| {
            origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(|o| o.eq_ignore_ascii_case(host))
        });
        if same {
            Ok(())
        } else {
            Err(AppError::Forbidden(
                "the Origin of this request is not this server",
            ))
        }
    }

    /// `Ok(true)` when the token came in the query string and should be kept as a cookie.
    fn check_token(&self, req: &Request) -> Result<bool, AppError> {
        let Some(token) = &self.token else {
            return Ok(false);
        };
        if self.presented(req) {
            return Ok(false);
        }
        let query = req
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|kv| kv.strip_prefix("token="))
            .any(|v| constant_time_eq(v, token));
        if query && req.method() == Method::GET {
            return Ok(true);
        }
        Err(AppError::Unauthorized)
    }

    /// Whether the request carries the token (bearer or cookie), when one is configured.
    fn presented(&self, req: &Request) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
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

/// The middleware: host, token, then origin.
pub async fn guard(State(sec): State<Arc<Security>>, mut req: Request, next: Next) -> Response {
    // Anyone may ask whether the server is up; only with the token does it say more.
    if req.uri().path() == "/healthz" && sec.check_host(req.headers()).is_ok() {
        if !sec.presented(&req) {
            req.extensions_mut().insert(Anonymous);
        }
        return next.run(req).await;
    }
    // An external agent's connection carries its own credential (an invite, or its identity's
    // secret) in its first frame: it needs no access to the console.
    // A spectator's request was checked by `watch::guard`: its watch link is its credential.
    // The page's build files (`/pkg/`) are the same for everyone and carry nothing of the team:
    // a spectator's page, which has no token, loads them too.
    let public_file = req.method() == Method::GET && req.uri().path().starts_with("/pkg/");
    let own_credential = public_file
        || req.uri().path() == "/ws/agent"
        || req
            .extensions()
            .get::<crate::spectators::Spectator>()
            .is_some();
    let checked = sec
        .check_host(req.headers())
        .and_then(|_| match own_credential {
            true => Ok(false),
            false => sec.check_token(&req),
        })
        .and_then(|set_cookie| {
            sec.check_origin(req.method(), req.headers())?;
            Ok(set_cookie)
        });
    // An agent's command (a process of this server's tree) may read, never act (`peer`).
    let acts = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let peer = acts
        .then(|| req.extensions().get::<super::peer::Peer>().copied())
        .flatten();
    // Handed on by a follower: whose connection it carried is checked too (after the host,
    // token and origin: their refusal comes first).
    let relayed = match req.headers().get(super::peer::RELAYED) {
        Some(v) if acts => v.to_str().ok().and_then(super::peer::Peer::from_header),
        _ => None,
    };
    let checked = match checked {
        Ok(_) if acts && relayed.is_none() && req.headers().contains_key(super::peer::RELAYED) => {
            Err(AppError::BadRequest(format!(
                "{} must be two socket addresses",
                super::peer::RELAYED
            )))
        }
        checked => checked,
    };
    let checked = match (checked, peer) {
        (Ok(set_cookie), Some(peer)) => {
            let holder = move || {
                super::peer::agent_process(peer)
                    .or_else(|| relayed.and_then(super::peer::relayed_agent_process))
            };
            match tokio::task::spawn_blocking(holder).await {
                Ok(None) => Ok(set_cookie),
                Ok(Some(pid)) => {
                    tracing::warn!(
                        pid,
                        path = %req.uri().path(),
                        "refused: a request from one of the agents' processes"
                    );
                    Err(AppError::Forbidden(AGENT_REFUSED))
                }
                // Not known whose: not served, and said so.
                Err(e) => Err(AppError::Unavailable(format!(
                    "who sent this request could not be told ({e}); try again"
                ))),
            }
        }
        (checked, _) => checked,
    };
    match checked {
        Err(e) => e.into_response(),
        Ok(set_cookie) => {
            let mut res = next.run(req).await;
            if let (true, Some(token)) = (set_cookie, &sec.token) {
                let cookie = format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    res.headers_mut().append(header::SET_COOKIE, v);
                }
            }
            res
        }
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
    h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    res
}
