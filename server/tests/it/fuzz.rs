//! Arbitrary input at every edge: HTTP paths, query values and bodies through the router, lines
//! on a CLI's stdout through the parser and the translator, bytes in an inbox file. Nothing
//! panics, nothing is written outside the data directory, and every bad request is answered
//! with a 4xx JSON error.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};

use app::domain::docs::Docs;
use axum::body::Body;
use axum::http::Request;
use proptest::prelude::*;
use soulgrid::mailbox::lock::LockTiming;
use soulgrid::runtime::protocol::parse_line;
use soulgrid::runtime::turn::Translator;

/// A path segment from anything: percent-encoded so that it is a valid URI.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,24}",
        Just("..".to_string()),
        Just("%2e%2e".to_string()),
        "[0-9]{1,6}",
        Just("4".to_string()),
    ]
    .prop_map(|s| encode(&s))
}

/// Percent-encodes everything but unreserved characters (and `%`, so that ready-made escapes
/// such as `%2e` reach the router as they are).
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'%' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        ("\\PC{0,80}", "\\PC{0,20}").prop_map(|(text, to)| {
            serde_json::json!({"text": text, "targetAgent": to})
                .to_string()
                .into_bytes()
        }),
        ("\\PC{0,12}", "\\PC{0,40}", any::<i64>()).prop_map(|(d, m, i)| {
            serde_json::json!({"decision": d, "message": m, "suggestion": i})
                .to_string()
                .into_bytes()
        }),
        Just(b"{\"text\": 7}".to_vec()),
        Just(b"[]".to_vec()),
    ]
}

/// Requests that change nothing big (no SUMMON or WAKE: they start processes) at every route
/// that takes input.
fn request() -> impl Strategy<Value = (String, String, Vec<u8>)> {
    (
        prop_oneof![
            segment().prop_map(|s| format!("/api/agents/{s}/dismiss")),
            segment().prop_map(|s| format!("/api/agents/{s}/interrupt")),
            segment().prop_map(|s| format!("/api/agents/{s}/kill")),
            segment().prop_map(|s| format!("/api/hall/{s}/recall")),
            Just("/api/hall".to_string()),
            segment().prop_map(|s| format!("/api/permissions/{s}")),
            Just("/api/send".to_string()),
            segment().prop_map(|s| format!("/api/{s}")),
            segment().prop_map(|s| format!("/api/events?after={s}")),
        ],
        prop_oneof![Just("POST".to_string()), Just("GET".to_string())],
        body(),
    )
        .prop_map(|(path, method, body)| (method, path, body))
}

#[test]
fn the_router_answers_any_request_without_a_panic_a_5xx_or_a_write_outside_its_directory() {
    // Most random paths render the 404 page: one page at a time in this binary (`crate::SERIAL`).
    let _serial = crate::SERIAL.blocking_lock();
    let outer = tempfile::tempdir().unwrap();
    let data = outer.path().join("data");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let state = runtime.block_on(common::boot(&data));
    let router = soulgrid::http::router(state.clone());
    let cases = AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&request(), |(method, path, body)| {
            cases.fetch_add(1, Ordering::Relaxed);
            let req = Request::builder()
                .header("authorization", crate::common::BEARER)
                .method(method.as_str())
                .uri(&path)
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap();
            let is_events = path.starts_with("/api/events");
            let r = runtime.block_on(async {
                if is_events {
                    // A stream: only its head is read.
                    use tower::ServiceExt;
                    let res = router.clone().oneshot(req).await.unwrap();
                    let status = res.status();
                    let body = if status.is_success() {
                        String::new()
                    } else {
                        let bytes = http_body_util::BodyExt::collect(res.into_body())
                            .await
                            .unwrap()
                            .to_bytes();
                        String::from_utf8_lossy(&bytes).into_owned()
                    };
                    (status, body)
                } else {
                    let r = common::call(&router, req).await;
                    (r.status, r.body)
                }
            });
            let (status, body) = r;
            prop_assert!(
                !status.is_server_error(),
                "{method} {path}: {status} {body}"
            );
            if status.is_client_error() && status != 404 && status != 405 {
                let v: serde_json::Value = serde_json::from_str(&body).map_err(|e| {
                    TestCaseError::fail(format!("{method} {path}: {status} not JSON ({e}): {body}"))
                })?;
                prop_assert!(v["error"].is_string(), "{method} {path}: {body}");
            }
            Ok(())
        })
        .unwrap();
    runtime.block_on(soulgrid::shut_down(&state));
    let outside: Vec<_> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        outside,
        vec![std::ffi::OsString::from("data")],
        "nothing outside the data dir"
    );
    println!(
        "router: {} requests, none answered with a panic or a 5xx",
        cases.into_inner()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any stdout line: parsed or refused, and what parses translates, without a panic.
    #[test]
    fn any_stdout_line_is_parsed_or_refused_and_translated_without_a_panic(
        line in prop_oneof![
            "\\PC{0,200}",
            ("(system|assistant|user|result|control_request|control_response|stream_event|x)", "\\PC{0,60}")
                .prop_map(|(t, s)| format!("{{\"type\":\"{t}\",\"subtype\":\"init\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":{}}}]}},\"request_id\":\"r\",\"request\":{{\"subtype\":\"can_use_tool\",\"tool_name\":{}}}}}", serde_json::Value::String(s.clone()), serde_json::Value::String(s))),
        ],
        seat in 0u8..9,
    ) {
        if let Ok(cli) = parse_line(&line) {
            let mut t = Translator::new(seat, None, seat % 2 == 0);
            let _ = t.on_line(&cli, &Docs::new());
        }
    }

    /// Any bytes in an inbox file: read, or moved aside as invalid, never a panic.
    #[test]
    fn any_inbox_file_is_read_or_moved_aside(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lyra.json");
        std::fs::write(&file, &bytes).unwrap();
        let _ = soulgrid::mailbox::file::unread(&file, LockTiming::default());
    }

    /// Any bytes as a team export: checked and refused (or, if by chance valid, read), never a
    /// panic; so is any text as a soul bundle.
    #[test]
    fn any_file_is_checked_as_an_export_or_a_bundle_without_a_panic(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            ("\\PC{0,40}", 0u64..4, "\\PC{0,80}").prop_map(|(team, n, rest)| format!(
                "{{\"soulgridExport\":1,\"soulgrid\":\"0.1.0\",\"team\":{},\"exportedAt\":\"x\",\"upTo\":{n},\"parts\":[{{\"name\":\"events\",\"lines\":{n},\"sha256\":\"00\"}},{{\"name\":\"files\",\"lines\":1,\"sha256\":\"00\"}}]}}\n{{\"event\":{{\"id\":1,\"ts\":0,\"sessionId\":\"s\",\"type\":\"session_start\"}}}}\n{rest}\n",
                serde_json::Value::String(team)
            ).into_bytes()),
        ],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.export");
        std::fs::write(&file, &bytes).unwrap();
        let _ = soulgrid::portable::team::verify(&file, &mut |_| {});
        let _ = soulgrid::portable::bundle::read(&String::from_utf8_lossy(&bytes));
    }
}
