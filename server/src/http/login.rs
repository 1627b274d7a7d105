//! The login's form and logging out. A page asked for without the login is the login page
//! (`login_page.rs`: `401`, never blank, never JSON), which takes the login pasted into its
//! form; the form keeps it as an HttpOnly, `SameSite=Strict` cookie.

use axum::extract::State;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;

use super::login_page::{cookie, page_saying, TOKEN_COOKIE};
use crate::state::AppState;

#[derive(serde::Deserialize)]
pub struct Pasted {
    token: String,
}

/// `POST /login`: the pasted login kept as a cookie and the console shown (`303` to `/`), or
/// the page again saying it was not the login.
pub async fn form(State(state): State<AppState>, Form(pasted): Form<Pasted>) -> Response {
    let login = state.security.login();
    if !crate::secret::same(pasted.token.trim(), &login) {
        tracing::info!("a login was pasted that is not the login");
        return page_saying(&Method::POST, Some("That is not the login."));
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, HeaderValue::from_static("/")),
            (header::SET_COOKIE, cookie(&login)),
        ],
    )
        .into_response()
}

/// `POST /api/logout`: this browser's cookie cleared (`{}`).
pub async fn logout() -> Response {
    let gone = format!("{TOKEN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    let gone = HeaderValue::from_str(&gone).unwrap_or_else(|_| HeaderValue::from_static(""));
    let empty = axum::Json(app::contract::endpoints::Empty {});
    (StatusCode::OK, [(header::SET_COOKIE, gone)], empty).into_response()
}
