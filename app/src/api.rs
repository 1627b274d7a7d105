//! Calls from the browser to the server's JSON API (through `gloo-net`), with the request and
//! response types of [`crate::contract`].

use serde::de::DeserializeOwned;
use serde::Serialize;

/// POSTs `body` as JSON to `path` and reads the answer as `R`; the server's `{error}` message
/// on failure.
pub async fn post<B: Serialize, R: DeserializeOwned>(path: &str, body: &B) -> Result<R, String> {
    post_once(path, body, None).await
}

/// PUTs `body` as JSON to `path`, as [`post`] does.
pub async fn put<B: Serialize, R: DeserializeOwned>(path: &str, body: &B) -> Result<R, String> {
    send(Method::Put, path, body, None).await
}

thread_local! {
    /// The page shows the past (time travel): nothing is sent.
    static READ_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this page may act (not when it shows the past).
pub fn set_read_only(past: bool) {
    READ_ONLY.with(|r| r.set(past));
}

/// POSTs `body` as it is (a file's text) to `path`, as [`post`] does with JSON.
#[cfg(feature = "hydrate")]
pub async fn post_text<R: DeserializeOwned>(path: &str, body: String) -> Result<R, String> {
    use gloo_net::http::Request;
    if READ_ONLY.with(|r| r.get()) {
        return Err("This page shows the past: go back to now to act.".into());
    }
    let response = Request::post(path)
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

/// The methods the browser sends with a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Post,
    Put,
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

/// As [`post`], with an `Idempotency-Key` when given: the server answers a retry with the same
/// key as it answered the first request, and does nothing twice.
pub async fn post_once<B: Serialize, R: DeserializeOwned>(
    path: &str,
    body: &B,
    key: Option<&str>,
) -> Result<R, String> {
    send(Method::Post, path, body, key).await
}

#[cfg(feature = "hydrate")]
async fn send<B: Serialize, R: DeserializeOwned>(
    method: Method,
    path: &str,
    body: &B,
    key: Option<&str>,
) -> Result<R, String> {
    use gloo_net::http::Request;

    if READ_ONLY.with(|r| r.get()) {
        return Err("This page shows the past: go back to now to act.".into());
    }
    let mut request = match method {
        Method::Post => Request::post(path),
        Method::Put => Request::put(path),
    };
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = request
        .json(body)
        .map_err(|e| format!("cannot build a request to {path}: {e}"))?
        .send()
        .await
        .map_err(|_| "the server cannot be reached".to_string())?;
    answer(response).await
}

/// On the server nothing is sent: actions only run in the browser.
#[cfg(not(feature = "hydrate"))]
pub async fn post_text<R: DeserializeOwned>(_path: &str, _body: String) -> Result<R, String> {
    Err("only the browser calls the API".into())
}

/// On the server nothing is sent: actions only run in the browser.
#[cfg(not(feature = "hydrate"))]
async fn send<B: Serialize, R: DeserializeOwned>(
    _method: Method,
    _path: &str,
    _body: &B,
    _key: Option<&str>,
) -> Result<R, String> {
    Err("only the browser calls the API".into())
}

/// `s` as one URL path segment: unreserved characters as they are, everything else
/// percent-encoded (ids come from the agent's CLI, not from us).
pub fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(
            super::path_segment("b2dc09c1-def1_x.y~"),
            "b2dc09c1-def1_x.y~"
        );
        assert_eq!(super::path_segment("a/b c?é"), "a%2Fb%20c%3F%C3%A9");
    }
}
