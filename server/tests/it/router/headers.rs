//! What every response says to the browser: no framing, only the page's own scripts and
//! styles, and the page's files checked before each use.

use axum::http::StatusCode;

use crate::common::{self, boot, call, get, get_with};
use crate::SERIAL;

/// No site may frame the console (clicks in a frame would pass the Origin check); the page
/// runs only its own scripts (the inline hydration script by this response's nonce), its own
/// styles, and images from itself or `data:` (agent Markdown cannot load a tracking pixel).
#[tokio::test]
async fn every_response_forbids_framing_and_the_page_runs_only_its_own_scripts() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let page = call(&router, get("/")).await;
    let csp = page.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    let nonce = page
        .body
        .split("<script type=\"module\" nonce=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the hydration script carries a nonce");
    for directive in [
        "default-src 'self'".to_string(),
        format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        "style-src 'self'".to_string(),
        "img-src 'self' data:".to_string(),
        "frame-ancestors 'none'".to_string(),
        "base-uri 'none'".to_string(),
        "object-src 'none'".to_string(),
    ] {
        assert!(csp.contains(&directive), "{directive} in {csp}");
    }
    let again = call(&router, get("/")).await;
    assert_ne!(
        again.headers["content-security-policy"].to_str().unwrap(),
        csp,
        "a new nonce for every page"
    );
    for r in [
        &page,
        &call(&router, get("/api/docs")).await,
        &call(&router, get("/pkg/none.js")).await,
    ] {
        assert_eq!(r.headers["x-frame-options"], "DENY");
        assert_eq!(r.headers["x-content-type-options"], "nosniff");
        assert_eq!(r.headers["referrer-policy"], "no-referrer");
        let csp = r.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    }
}

/// The page's own files (wasm, JS, CSS) are checked with the server before each use: a browser
/// never runs a wasm cached from an older build against a newer page (which cannot hydrate).
/// The check is cheap: unchanged, it is a 304 without the body.
#[tokio::test]
async fn the_pages_files_are_checked_before_each_use() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    std::fs::write(site.join("pkg/soulgrid.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .site_root(site.display().to_string())
        .build();
    let state = soulgrid::boot(&common::config(&dir.path().join("data"), &[]), options)
        .await
        .unwrap();
    let router = soulgrid::http::router(state.clone());
    let first = call(&router, get("/pkg/soulgrid.wasm")).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.headers["cache-control"], "no-cache");
    let modified = first.headers["last-modified"].to_str().unwrap().to_string();
    let again = call(
        &router,
        get_with("/pkg/soulgrid.wasm", "if-modified-since", &modified),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    // Only the page's files: the API says what it says itself.
    let docs = call(&router, get("/api/docs")).await;
    assert!(docs.headers.get("cache-control").is_none());
    soulgrid::shut_down(&state).await;
}
