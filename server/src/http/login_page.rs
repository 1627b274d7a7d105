//! The login page and the login's cookie, as the security guard and the login's handlers
//! (`login.rs`) give them: a page that runs no script and loads nothing.

use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// The cookie a browser keeps the login in.
pub const TOKEN_COOKIE: &str = "soulgrid_token";

/// Where the login page's form posts.
pub const FORM: &str = "/login";
/// Where the header's **Log out** posts (`app::contract::endpoints::Logout`).
pub const LOGOUT: &str = "/api/logout";

/// The cookie that keeps `token` in this browser.
pub fn cookie(token: &str) -> HeaderValue {
    let cookie = format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
    HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The login page, `401`, said as `wrong` when a pasted login was not the login.
pub fn page(method: &Method) -> Response {
    page_saying(method, None)
}

/// The style every plain page of the server's has (the login page, a revoked watch link's):
/// the console's dark colours, no script, nothing loaded.
const STYLE: &str = "body{font-family:system-ui,sans-serif;background:#14161b;color:#e6e6e6;\
display:flex;justify-content:center;padding:10vh 1rem;margin:0}main{max-width:34rem}\
h1{font-size:1.4rem}";

/// A plain page of the server's: `title` and `body` (HTML the server wrote), in the console's
/// colours, running no script and loading nothing.
pub fn plain(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Soulgrid</title><style>{STYLE}</style></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>\n"
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; \
                 base-uri 'none'",
            ),
        ],
        html,
    )
        .into_response()
}

pub(super) fn page_saying(method: &Method, wrong: Option<&str>) -> Response {
    let said = wrong
        .map(|w| format!(r#"<p class="wrong" role="alert">{w}</p>"#))
        .unwrap_or_default();
    let html = format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in · Soulgrid</title>
<style>
body{{font-family:system-ui,sans-serif;background:#14161b;color:#e6e6e6;display:flex;justify-content:center;padding:10vh 1rem;margin:0}}
main{{max-width:34rem}} h1{{font-size:1.4rem}} code{{background:#22252d;padding:0 .3em;border-radius:3px}}
input{{width:100%;box-sizing:border-box;padding:.5rem;margin:.5rem 0;background:#22252d;color:inherit;border:1px solid #444;border-radius:4px}}
button{{padding:.5rem 1rem;border-radius:4px;border:0;background:#7aa2f7;color:#111;font-weight:600}}
.wrong{{color:#f7768e}}
</style></head>
<body><main>
<h1>Log in to Soulgrid</h1>
<p>This console drives agents that run commands, so it asks for the login first. Open the link the
server printed when it started (<code>http://127.0.0.1:3000/?token=…</code>), or print it again on
the server's machine with <code>soulgrid token</code> (<code>make run</code> prints it too).</p>
{said}
<form method="post" action="{FORM}">
<label for="token">Or paste the login here</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
</main></body></html>
"#
    );
    let body = match *method == Method::HEAD {
        true => String::new(),
        false => html,
    };
    (
        StatusCode::UNAUTHORIZED,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            // A form posted from a page with no referrer says `Origin: null`, which the
            // origin check refuses: this page's form says its own origin.
            (header::REFERRER_POLICY, "same-origin"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
                 frame-ancestors 'none'; base-uri 'none'",
            ),
        ],
        body,
    )
        .into_response()
}
