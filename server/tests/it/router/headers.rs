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

/// A server whose site holds `files` under `pkg/` (more may be written into the returned
/// site folder), for what it says about the page's own files.
async fn with_site(
    files: &[(&str, &[u8])],
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    soulgrid::state::AppState,
    axum::Router,
) {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    for (name, bytes) in files {
        std::fs::write(site.join("pkg").join(name), bytes).unwrap();
    }
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .site_root(site.display().to_string())
        .build();
    let state = soulgrid::boot(&common::config(&dir.path().join("data"), &[]), options)
        .await
        .unwrap();
    let router = soulgrid::http::router(state.clone());
    (dir, site, state, router)
}

/// The page's own files (wasm, JS, CSS) are checked with the server before each use: a browser
/// never runs a wasm cached from an older build against a newer page (which cannot hydrate).
/// The check is cheap: unchanged, it is a 304 without the body.
#[tokio::test]
async fn the_pages_files_are_checked_before_each_use() {
    let _serial = SERIAL.lock().await;
    let (_dir, _site, state, router) =
        with_site(&[("soulgrid.wasm", &b"\0asm\x01\0\0\0"[..])]).await;
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

/// Sent small and kept as long as it may be (#36): a file whose name carries its content's hash
/// (cargo-leptos `hash-files`: `soulgrid.<22 characters>.wasm`) is kept a year without asking,
/// since a new build has a new name; its brotli or gzip twin, precompressed at build time, is
/// what a browser that accepts it gets; the page itself and the API's JSON are compressed as
/// they are sent.
#[tokio::test]
async fn the_pages_files_go_compressed_and_hashed_ones_are_kept_for_good() {
    let _serial = SERIAL.lock().await;
    let hashed = "soulgrid.kq2V_0-9aZbcdEfGhIjKlM.wasm";
    let (br, gz) = (format!("{hashed}.br"), format!("{hashed}.gz"));
    let (_dir, site, state, router) = with_site(&[
        (hashed, &b"\0asm\x01\0\0\0"[..]),
        (br.as_str(), &b"brotli!"[..]),
        (gz.as_str(), &b"gzip!"[..]),
        ("soulgrid.css", &b"body{}"[..]),
    ])
    .await;
    let wasm = call(
        &router,
        get_with(
            &format!("/pkg/{hashed}"),
            "accept-encoding",
            "gzip, deflate, br, zstd",
        ),
    )
    .await;
    assert_eq!(wasm.status, StatusCode::OK);
    assert_eq!(wasm.headers["content-encoding"], "br");
    assert_eq!(wasm.body, "brotli!");
    assert_eq!(wasm.headers["content-type"], "application/wasm");
    assert_eq!(
        wasm.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let gz = call(
        &router,
        get_with(&format!("/pkg/{hashed}"), "accept-encoding", "gzip"),
    )
    .await;
    assert_eq!(gz.headers["content-encoding"], "gzip");
    // A name without a hash is checked before each use, as before.
    let css = call(&router, get("/pkg/soulgrid.css")).await;
    assert_eq!(css.headers["cache-control"], "no-cache");
    // Nor is a name that only looks like one (a hash is 22 characters of base64url).
    std::fs::write(site.join("pkg/soulgrid.short.js"), b"1").unwrap();
    let short = call(&router, get("/pkg/soulgrid.short.js")).await;
    assert_eq!(short.headers["cache-control"], "no-cache");
    // The page and the API, compressed as they go; the event stream never is (it would be
    // held back to fill a compressor's block).
    for path in ["/", "/api/docs"] {
        let r = call(&router, get_with(path, "accept-encoding", "gzip")).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert_eq!(r.headers["content-encoding"], "gzip", "{path}");
        assert!(
            r.headers["vary"]
                .to_str()
                .unwrap()
                .contains("accept-encoding"),
            "{path}"
        );
    }
    let stream = tower::ServiceExt::oneshot(
        router.clone(),
        get_with("/api/events", "accept-encoding", "gzip"),
    )
    .await
    .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    assert!(stream.headers().get("content-encoding").is_none());
    drop(stream);
    soulgrid::shut_down(&state).await;
}

/// What is kept and how it is told apart: a hashed wasm with no twin (a debug-sized file) goes
/// as it is, never compressed on the fly; a hashed name that is not there is a 404 checked
/// again, never kept; a 304 for a kept file keeps it kept; every `/pkg/` answer varies with
/// the encoding asked (one name, three bodies, for a shared cache too).
#[tokio::test]
async fn a_kept_file_stays_kept_and_nothing_else_is() {
    let _serial = SERIAL.lock().await;
    let hashed = "soulgrid.Zq2V_0-9aZbcdEfGhIjKlM.wasm";
    let (_dir, _site, state, router) = with_site(&[(hashed, &[b'a'; 64 * 1024][..])]).await;
    let path = format!("/pkg/{hashed}");
    let plain = call(&router, get_with(&path, "accept-encoding", "gzip, br")).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(plain.headers.get("content-encoding").is_none());
    assert_eq!(plain.body.len(), 64 * 1024);
    assert!(plain.headers["vary"]
        .to_str()
        .unwrap()
        .contains("accept-encoding"));
    let modified = plain.headers["last-modified"].to_str().unwrap().to_string();
    let again = call(&router, get_with(&path, "if-modified-since", &modified)).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert_eq!(
        again.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let missing = call(&router, get("/pkg/soulgrid.AAAAAAAAAAAAAAAAAAAAAA.js")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.headers["cache-control"], "no-cache");
    soulgrid::shut_down(&state).await;
}

/// Which names the page gives its files: a release build's `hash.txt` beside the binary is
/// used when the site holds the wasm it names; one the site no longer matches (a later build
/// without hashes) is said and not used; `LEPTOS_HASH_FILES` decides when it is set.
#[test]
fn the_page_names_its_files_as_its_build_did() {
    use soulgrid::http::site::{content_hashed, hashed_build};
    let dir = tempfile::tempdir().unwrap();
    let (bin, site) = (dir.path().join("release"), dir.path().join("site"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .site_root(site.display().to_string())
        .build();
    assert_eq!(hashed_build(None, &bin, &options), Ok(false));
    std::fs::write(
        bin.join("hash.txt"),
        "js: 4HSAszgy1ExLVqI7hYaboA\nwasm: 1dVlU51Ce13VCEjEgC6-CQ\ncss: V9dRO8Kpnig8NvTW5_ktkg\n",
    )
    .unwrap();
    let stale = hashed_build(None, &bin, &options).unwrap_err();
    assert!(
        stale.contains("soulgrid.1dVlU51Ce13VCEjEgC6-CQ.wasm"),
        "{stale}"
    );
    std::fs::write(
        site.join("pkg/soulgrid.1dVlU51Ce13VCEjEgC6-CQ.wasm"),
        b"\0asm",
    )
    .unwrap();
    assert_eq!(hashed_build(None, &bin, &options), Ok(true));
    assert_eq!(
        hashed_build(Some("false".as_ref()), &bin, &options),
        Ok(false)
    );
    assert_eq!(
        hashed_build(Some("true".as_ref()), &dir.path().join("none"), &options),
        Ok(true)
    );
    assert!(content_hashed("soulgrid.1dVlU51Ce13VCEjEgC6-CQ.wasm"));
    for plain in [
        "soulgrid.wasm",
        "soulgrid.d.0vVL0-80hxfbF9nR_GcnYw.ts",
        "__wasm_split.______________________.js",
        "soulgrid.1dVlU51Ce13VCEjEgC6-C.wasm",
    ] {
        assert!(!content_hashed(plain), "{plain}");
    }
}
