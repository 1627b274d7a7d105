//! Exports, soul bundles and pages of the past read the whole log: an image in a message, a page
//! on another site or a script cannot start one; a person's own download or navigation, and the
//! command line, can.

use axum::http::{header, Request, StatusCode};

use crate::common::{boot, call};
use crate::SERIAL;

fn get_with(uri: &str, headers: &[(&str, &str)]) -> Request<axum::body::Body> {
    let mut b = Request::get(uri).header("authorization", crate::common::BEARER);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(axum::body::Body::empty()).unwrap()
}

#[tokio::test]
async fn an_image_or_another_site_cannot_start_an_export_a_bundle_or_a_page_of_the_past() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let lead = state
        .store
        .with_all_docs(|d| app::domain::docs::identity(d, 4).unwrap().stable_id());
    let router = soulgrid::http::router(state);
    let lead_bundle = format!("/api/agents/{lead}/bundle");
    for uri in ["/api/export", lead_bundle.as_str(), "/?at=1"] {
        for (who, headers) in [
            (
                "an image in our own page",
                vec![
                    ("sec-fetch-site", "same-origin"),
                    ("sec-fetch-dest", "image"),
                ],
            ),
            (
                "another site's image",
                vec![
                    ("sec-fetch-site", "cross-site"),
                    ("sec-fetch-dest", "image"),
                ],
            ),
            (
                "a link on another site",
                vec![
                    ("sec-fetch-site", "cross-site"),
                    ("sec-fetch-dest", "document"),
                ],
            ),
            (
                "a script",
                vec![
                    ("sec-fetch-site", "same-origin"),
                    ("sec-fetch-dest", "script"),
                ],
            ),
        ] {
            let r = call(&router, get_with(uri, &headers)).await;
            assert_eq!(
                r.status,
                StatusCode::FORBIDDEN,
                "{uri} from {who}: {}",
                r.body
            );
            if uri.starts_with("/api/") {
                assert!(
                    r.json()["error"].as_str().unwrap().contains("asked for"),
                    "{}",
                    r.body
                );
            }
        }
        for (who, headers) in [
            (
                "the console's own download",
                vec![
                    ("sec-fetch-site", "same-origin"),
                    ("sec-fetch-dest", "empty"),
                ],
            ),
            (
                "a typed address",
                vec![("sec-fetch-site", "none"), ("sec-fetch-dest", "document")],
            ),
            ("curl", vec![]),
        ] {
            let r = call(&router, get_with(uri, &headers)).await;
            assert_eq!(r.status, StatusCode::OK, "{uri} from {who}: {}", r.body);
        }
    }
    let r = call(&router, get_with("/api/export", &[])).await;
    assert!(r.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("attachment"));
}

#[test]
fn what_counts_as_a_heavy_read() {
    use soulgrid::http::whole_log::is_heavy;
    assert!(is_heavy("/api/export", None));
    assert!(is_heavy("/api/agents/abc/bundle", None));
    assert!(is_heavy("/", Some("at=12")));
    assert!(is_heavy("/agents/3", Some("x=1&at=2026-01-01")));
    assert!(!is_heavy("/", Some("cat=1")));
    assert!(!is_heavy("/api/docs", Some("at=1")));
    assert!(!is_heavy("/api/agents/abc/knowledge", None));
}

/// At most two heavy reads at once, an export's place held until its whole body is read or
/// dropped: a third is told to try again (429, JSON); once a download goes, its place is free.
#[tokio::test]
async fn a_third_heavy_read_waits_for_a_place_held_through_the_stream() {
    use tower::ServiceExt;
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    // An export larger than what its stream holds in flight (a few 64 KB chunks).
    std::fs::create_dir_all(dir.path().join("agents/0")).unwrap();
    std::fs::write(dir.path().join("agents/0/big.md"), "x".repeat(4 << 20)).unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    // Two downloads whose bodies nobody reads yet.
    let mut held = Vec::new();
    for _ in 0..2 {
        let r = router
            .clone()
            .oneshot(get_with("/api/export", &[]))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        held.push(r);
    }
    let third = call(&router, get_with("/?at=1", &[])).await;
    assert_eq!(
        third.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        third.body
    );
    let third = call(&router, get_with("/api/export", &[])).await;
    assert_eq!(third.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(third.json()["error"]
        .as_str()
        .unwrap()
        .contains("try again"));
    // One download read to its end, one dropped: both places come free.
    let first = held.remove(0);
    let body = http_body_util::BodyExt::collect(first.into_body())
        .await
        .unwrap()
        .to_bytes();
    assert!(body.starts_with(b"{\"soulgridExport\""));
    drop(held);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let r = call(&router, get_with("/api/export", &[])).await;
        if r.status == StatusCode::OK {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "a place came free: {}",
            r.status
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
