//! `--notify-url`: a permission that waits and an agent that crashes are POSTed as small JSON
//! to every URL; a URL that answers 500 gets it again, and one that hangs or cannot be reached
//! holds up neither the others nor the runtime.

use std::sync::{Arc, Mutex};

use crate::common;

use app::domain::docs::identity;
use axum::http::StatusCode;
use axum::routing::post;
use common::{call, post_json, wait_until};
use serde_json::{json, Value};

type Got = Arc<Mutex<Vec<Value>>>;

/// A receiver on a free port: `fail_first` answers 500 to its first request; `hang` never
/// answers. Returns its URL and what it got.
async fn receiver(fail_first: bool, hang: bool) -> (String, Got) {
    let got: Got = Default::default();
    let seen = Arc::new(Mutex::new(0u32));
    let app = axum::Router::new().route(
        "/hook",
        post({
            let got = got.clone();
            move |axum::Json(v): axum::Json<Value>| {
                let (got, seen) = (got.clone(), seen.clone());
                async move {
                    if hang {
                        std::future::pending::<()>().await;
                    }
                    let n = {
                        let mut s = seen.lock().unwrap();
                        *s += 1;
                        *s
                    };
                    if fail_first && n == 1 {
                        return StatusCode::INTERNAL_SERVER_ERROR;
                    }
                    got.lock().unwrap().push(v);
                    StatusCode::OK
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, got)
}

fn has(got: &Got, what: &str) -> Option<Value> {
    got.lock()
        .unwrap()
        .iter()
        .find(|v| v["what"] == what)
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn what_matters_is_posted_to_every_url_and_a_bad_one_holds_up_nothing() {
    let (good, got) = receiver(false, false).await;
    let (flaky, flaky_got) = receiver(true, false).await;
    let (hangs, _) = receiver(false, true).await;
    let nobody = format!("http://127.0.0.1:{}/hook", common::free_port());
    let args = [
        "--permissions",
        "ui",
        "--notify-url",
        &hangs,
        "--notify-url",
        &nobody,
        "--notify-url",
        &good,
        "--notify-url",
        &flaky,
    ];
    let (_dir, state, router) = common::team_with(&args).await;
    let (lyra, kael) = state.store.with_all_docs(|d| {
        (
            identity(d, 0).unwrap().name.clone().unwrap(),
            identity(d, 1).unwrap().name.clone().unwrap(),
        )
    });

    // A call one of Zoe's rules allows waits for nobody: nothing is posted for it.
    let zoe = state
        .store
        .with_all_docs(|d| identity(d, 2).unwrap().stable_id());
    let r = call(
        &router,
        post_json(
            &format!("/api/agents/{zoe}/rules"),
            json!({"rule": "Bash(echo:*)"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL now", "seat": 2})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    common::wait_for(&state, "Zoe ran it", |d| {
        app::domain::docs::thread(d, 2)
            .iter()
            .any(|m| m.text.contains("I ran `echo hi`"))
    })
    .await;

    let r = call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL now", "seat": 0})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_until("the permission posted", || {
        has(&got, "permission").is_some()
    })
    .await;
    let note = has(&got, "permission").unwrap();
    assert_eq!(note["agent"], lyra.as_str());
    assert_eq!(note["title"], format!("{lyra} asks to use Bash"));
    assert_eq!(note["message"], "echo hi");
    assert_eq!(note["text"], format!("{lyra} asks to use Bash: echo hi"));
    assert!(
        note["click"].as_str().unwrap().ends_with("/?seat=0"),
        "{note}"
    );
    assert_eq!(note["team"], "soulgrid");
    // The one that answered 500 first got it on a later try.
    wait_until("the flaky URL got it again", || {
        has(&flaky_got, "permission").is_some()
    })
    .await;

    let r = call(
        &router,
        post_json("/api/send", json!({"text": "SIM_CRASH", "seat": 1})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_until("the crash posted", || has(&got, "crash").is_some()).await;
    let crash = has(&got, "crash").unwrap();
    assert_eq!(crash["title"], format!("{kael} crashed"));
    assert!(
        crash["message"]
            .as_str()
            .unwrap()
            .starts_with("crashed with exit code 3"),
        "{crash}"
    );
    // In order, once each: the rule's call was never posted, and the flaky URL got the
    // permission once (its 500 was tried again, not counted twice).
    let whats = |g: &Got| -> Vec<String> {
        g.lock()
            .unwrap()
            .iter()
            .map(|v| v["what"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(whats(&got), ["permission", "crash"]);
    wait_until("the flaky URL got the crash", || {
        has(&flaky_got, "crash").is_some()
    })
    .await;
    assert_eq!(whats(&flaky_got), ["permission", "crash"]);
    soulgrid::shut_down(&state).await;
}

#[test]
fn a_notify_url_that_is_not_one_is_refused_at_start() {
    use clap::Parser;
    for bad in ["ftp://x/hook", "hooks.example.com", "http:///x"] {
        let e = soulgrid::config::Config::try_parse_from(["soulgrid", "--notify-url", bad])
            .unwrap_err()
            .to_string();
        assert!(e.contains("URL") || e.contains("no host"), "{bad}: {e}");
    }
}

/// A receiver whose every answer is `307` to `to`; how many times it was asked.
async fn redirecting(to: String) -> (String, Arc<Mutex<u32>>) {
    let asked = Arc::new(Mutex::new(0u32));
    let app = axum::Router::new().route(
        "/hook",
        post({
            let asked = asked.clone();
            move || {
                *asked.lock().unwrap() += 1;
                let to = to.clone();
                async move { (StatusCode::TEMPORARY_REDIRECT, [("location", to)]) }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, asked)
}

/// A webhook's answer could make the server POST where it pointed (its own
/// `/api/session/end` ended a session): a redirect is a failed delivery, never followed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_that_redirects_is_a_failed_delivery_and_is_never_followed() {
    let (target, target_got) = receiver(false, false).await;
    let (url, asked) = redirecting(target).await;
    let args = ["--notify-url", url.as_str()];
    let (_dir, state, router) = common::team_with(&args).await;
    // Two crashes, two notifications: the second is sent only once the first's delivery ended
    // (one URL's are sent in order), so when it is asked for, any redirect of the first was
    // followed or not.
    for seat in [1, 3] {
        let r = call(
            &router,
            post_json("/api/send", json!({"text": "SIM_CRASH", "seat": seat})),
        )
        .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    }
    wait_until("both notifications were tried", || {
        *asked.lock().unwrap() >= 2
    })
    .await;
    assert!(
        target_got.lock().unwrap().is_empty(),
        "the redirect was followed: {:?}",
        target_got.lock().unwrap()
    );
    soulgrid::shut_down(&state).await;
}

/// A URL that names this server itself is refused at start: no webhook knocks on its door.
#[tokio::test]
async fn a_notify_url_on_this_servers_own_address_is_refused_at_start() {
    let port = common::free_port();
    let addr = format!("127.0.0.1:{port}");
    for own in [
        format!("http://127.0.0.1:{port}/api/session/end"),
        format!("http://localhost:{port}/api/session/end"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = common::config(dir.path(), &["--addr", &addr, "--notify-url", &own]);
        let options = leptos::prelude::LeptosOptions::builder()
            .output_name("soulgrid")
            .build();
        let e = soulgrid::boot(&config, options)
            .await
            .err()
            .expect("refused");
        assert!(
            e.to_string().contains("this server's own address"),
            "{own}: {e}"
        );
    }
}
