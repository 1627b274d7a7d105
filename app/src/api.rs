//! Calls from the browser to the server's JSON API (through `gloo-net`), with the request and
//! response types of [`crate::contract`].

use serde::de::DeserializeOwned;

use crate::contract::endpoints::{Endpoint, Method, Text};

/// A request to one endpoint, made typed: its path from the endpoint's own parameters, its
/// body of the endpoint's own type (a button holds one and sends it when pressed).
#[derive(Clone, Debug)]
pub struct Call {
    method: Method,
    path: String,
    body: serde_json::Value,
}

impl Call {
    pub fn new<E: Endpoint>(params: &E::Params, body: &E::Body) -> Self {
        Call {
            method: E::METHOD,
            path: E::path(params),
            body: serde_json::to_value(body).unwrap_or_default(),
        }
    }
}

/// Calls `E` with `params` and `body`: its answer, or the server's `{error}` message.
pub async fn call<E: Endpoint>(params: &E::Params, body: &E::Body) -> Result<E::Answer, String> {
    send(&Call::new::<E>(params, body), None).await
}

/// As [`call`], with an `Idempotency-Key` when given: the server answers a retry with the same
/// key as it answered the first request, and does nothing twice.
pub async fn call_once<E: Endpoint>(
    params: &E::Params,
    body: &E::Body,
    key: Option<&str>,
) -> Result<E::Answer, String> {
    send(&Call::new::<E>(params, body), key).await
}

/// Sends a call made earlier; the answer only tells success.
pub async fn send_call(call: &Call) -> Result<(), String> {
    send::<serde_json::Value>(call, None).await.map(drop)
}

thread_local! {
    /// The page shows the past (time travel): nothing is sent.
    static READ_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this page may act (not when it shows the past).
pub fn set_read_only(past: bool) {
    READ_ONLY.with(|r| r.set(past));
}

/// Refuses every call while the page shows the past.
#[cfg(feature = "hydrate")]
fn may_act() -> Result<(), String> {
    match READ_ONLY.with(|r| r.get()) {
        true => Err("This page shows the past: go back to now to act.".into()),
        false => Ok(()),
    }
}

/// Calls `E`, whose body is text (a file's), not JSON.
#[cfg(feature = "hydrate")]
pub async fn call_text<E: Endpoint<Body = Text>>(
    params: &E::Params,
    body: String,
) -> Result<E::Answer, String> {
    use gloo_net::http::Request;
    may_act()?;
    let path = E::path(params);
    let response = Request::post(&path)
        .header("content-type", "application/x-soulgrid-soul")
        .body(body)
        .map_err(|e| format!("cannot build a request to {path}: {e}"))?
        .send()
        .await
        .map_err(|_| "the server cannot be reached".to_string())?;
    answer(response).await
}

/// The answer of a request: `R`, or the server's `{error}`.
#[cfg(feature = "hydrate")]
async fn answer<R: DeserializeOwned>(response: gloo_net::http::Response) -> Result<R, String> {
    let text = response.text().await.unwrap_or_default();
    if response.ok() {
        serde_json::from_str(&text).map_err(|e| format!("an answer this page cannot read: {e}"))
    } else {
        let said: Option<crate::contract::ApiError> = serde_json::from_str(&text).ok();
        Err(said
            .map(|e| e.error)
            .unwrap_or_else(|| format!("the server answered {}", response.status())))
    }
}

/// A fresh key for one composed message (`Idempotency-Key`): 128 random bits, hex.
#[cfg(feature = "hydrate")]
pub fn idempotency_key() -> String {
    let mut bytes = [0u8; 16];
    if let Some(crypto) = web_sys::window().and_then(|w| w.crypto().ok()) {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// On the server there is nothing to send.
#[cfg(not(feature = "hydrate"))]
pub fn idempotency_key() -> String {
    String::new()
}

#[cfg(feature = "hydrate")]
async fn send<R: DeserializeOwned>(call: &Call, key: Option<&str>) -> Result<R, String> {
    use gloo_net::http::Request;

    may_act()?;
    let path = &call.path;
    let mut request = match call.method {
        Method::Get => Request::get(path),
        Method::Post => Request::post(path),
        Method::Put => Request::put(path),
        Method::Delete => Request::delete(path),
    };
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = match call.method {
        Method::Get | Method::Delete => request.send().await,
        _ => {
            request
                .json(&call.body)
                .map_err(|e| format!("cannot build a request to {path}: {e}"))?
                .send()
                .await
        }
    }
    .map_err(|_| "the server cannot be reached".to_string())?;
    answer(response).await
}

/// On the server nothing is sent: actions only run in the browser.
#[cfg(not(feature = "hydrate"))]
pub async fn call_text<E: Endpoint<Body = Text>>(
    _params: &E::Params,
    _body: String,
) -> Result<E::Answer, String> {
    Err("only the browser calls the API".into())
}

/// On the server nothing is sent: actions only run in the browser.
#[cfg(not(feature = "hydrate"))]
async fn send<R: DeserializeOwned>(call: &Call, _key: Option<&str>) -> Result<R, String> {
    let Call { method, path, body } = call;
    let _ = (method, path, body);
    Err("only the browser calls the API".into())
}
