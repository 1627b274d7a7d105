//! Calls from the browser to the server's JSON API.

/// POSTs `body` as JSON to `path`; the server's `{error}` message on failure.
pub async fn post_json(path: &str, body: &serde_json::Value) -> Result<serde_json::Value, String> {
    post_json_once(path, body, None).await
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

/// As [`post_json`], with an `Idempotency-Key` when given: the server answers a retry with
/// the same key as it answered the first request, and does nothing twice.
#[cfg(feature = "hydrate")]
pub async fn post_json_once(
    path: &str,
    body: &serde_json::Value,
    key: Option<&str>,
) -> Result<serde_json::Value, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&wasm_bindgen::JsValue::from_str(&body.to_string()));
    let headers = web_sys::Headers::new().map_err(|_| "cannot build headers".to_string())?;
    headers
        .set("content-type", "application/json")
        .map_err(|_| "cannot build headers".to_string())?;
    if let Some(key) = key {
        headers
            .set("idempotency-key", key)
            .map_err(|_| "cannot build headers".to_string())?;
    }
    init.set_headers(&headers);
    let request = web_sys::Request::new_with_str_and_init(path, &init)
        .map_err(|_| format!("cannot build a request to {path}"))?;
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(|_| "the server cannot be reached".to_string())?
        .unchecked_into();
    let text = JsFuture::from(
        response
            .text()
            .map_err(|_| "no response body".to_string())?,
    )
    .await
    .ok()
    .and_then(|t| t.as_string())
    .unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
    if response.ok() {
        Ok(value)
    } else {
        Err(value["error"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("the server answered {}", response.status())))
    }
}

/// On the server nothing is posted: actions only run in the browser.
#[cfg(not(feature = "hydrate"))]
pub async fn post_json_once(
    _path: &str,
    _body: &serde_json::Value,
    _key: Option<&str>,
) -> Result<serde_json::Value, String> {
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
