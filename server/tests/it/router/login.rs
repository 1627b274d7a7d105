//! The human's login (`soulgrid::login`, `http/login.rs`): every request needs it, from any
//! address, but `/healthz` (bare), the login page and the doors with a credential of their own.
//! A local process without it is a `401` that records nothing; a page asked for without it is
//! the login page; a rotated login ends every session, on a running server too.

use crate::common::call_anonymous;
use crate::common::{self, boot_with, call, get, get_with, post_json};
use crate::SERIAL;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

/// A server given no `--token`: it makes its own login.
async fn without_a_given_login(dir: &std::path::Path) -> soulgrid::state::AppState {
    boot_with(dir, &["--token="]).await
}

#[tokio::test]
async fn a_request_without_the_login_is_refused_from_loopback_too_and_records_nothing() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = without_a_given_login(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let before = state.store.last_event_id();
    // What an agent's detached `curl` did: a message as the human, its own budget raised.
    let send = post_json("/api/send", json!({"text": "approve everything"}));
    let budget = post_json("/api/budgets", json!({"perDayUsd": 99999}));
    for req in [send, budget, get("/api/docs"), get("/api/events")] {
        let path = req.uri().path().to_string();
        let r = call_anonymous(&router, req).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}: {}", r.body);
        assert!(r.json()["error"].is_string(), "{path}: JSON: {}", r.body);
    }
    assert_eq!(state.store.last_event_id(), before, "nothing recorded");
    // The login made at the first start is kept for the user alone, and opens the door.
    let file = dir.path().join(soulgrid::login::TOKEN_FILE);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&file).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let login = std::fs::read_to_string(&file).unwrap().trim().to_string();
    let bearer = get_with("/api/docs", "authorization", &format!("Bearer {login}"));
    assert_eq!(call(&router, bearer).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_page_without_the_login_is_the_login_page_and_the_open_doors_stay_open() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(without_a_given_login(dir.path()).await);
    for path in ["/", "/agents/agent-identity:4", "/?seat=2", "/nowhere"] {
        let r = call_anonymous(&router, get(path)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
        let kind = r.headers["content-type"].to_str().unwrap();
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
        assert!(
            r.body.contains("Log in to Soulgrid") && r.body.contains("soulgrid token"),
            "{path}: says how to log in: {}",
            r.body
        );
        assert!(!r.body.contains("<script"), "the login page runs nothing");
        // Its form posts with its origin said (`no-referrer` makes a browser say `null`).
        assert_eq!(r.headers["referrer-policy"], "same-origin", "{path}");
    }
    let health = call_anonymous(&router, get("/healthz")).await;
    assert_eq!(
        (health.status, health.json()),
        (StatusCode::OK, json!({"ok": true}))
    );
}

#[tokio::test]
async fn the_login_link_and_the_pasted_login_set_the_cookie_and_log_out_clears_it() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = without_a_given_login(dir.path()).await;
    let login = state.security.login().to_string();
    let router = soulgrid::http::router(state);
    // The link printed at start.
    let link = call_anonymous(&router, get(&format!("/?token={login}"))).await;
    assert_eq!(link.status, StatusCode::OK);
    let set = link.headers["set-cookie"].to_str().unwrap();
    assert!(
        set.starts_with(&format!("soulgrid_token={login};")),
        "{set}"
    );
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    // Pasted into the login page's form.
    let form = |token: &str| {
        Request::post("/login")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(format!("token={token}")))
            .unwrap()
    };
    let wrong = call_anonymous(&router, form("sgl_not-it")).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(
        wrong.body.contains("That is not the login"),
        "{}",
        wrong.body
    );
    assert!(!wrong.headers.contains_key("set-cookie"));
    let right = call_anonymous(&router, form(&login)).await;
    assert_eq!(right.status, StatusCode::SEE_OTHER);
    assert_eq!(right.headers["location"], "/");
    assert!(right.headers["set-cookie"]
        .to_str()
        .unwrap()
        .starts_with(&format!("soulgrid_token={login};")));
    // Log out: the cookie is cleared, whether or not it still holds.
    let out = call_anonymous(&router, post_json("/api/logout", json!({}))).await;
    assert_eq!(out.status, StatusCode::OK, "{}", out.body);
    let cleared = out.headers["set-cookie"].to_str().unwrap();
    assert!(
        cleared.starts_with("soulgrid_token=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
}

#[tokio::test]
async fn a_rotated_login_ends_every_session_of_the_running_server() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = without_a_given_login(dir.path()).await;
    let old = state.security.login().to_string();
    let router = soulgrid::http::router(state);
    let with = |token: &str| get_with("/api/docs", "cookie", &format!("soulgrid_token={token}"));
    assert_eq!(call(&router, with(&old)).await.status, StatusCode::OK);
    // A stream the browser keeps open with the old login.
    let stream = tower::ServiceExt::oneshot(router.clone(), {
        let mut r = get("/api/events");
        r.headers_mut().remove("authorization");
        r.headers_mut()
            .insert("cookie", format!("soulgrid_token={old}").parse().unwrap());
        r
    })
    .await
    .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut stream = stream.into_body();
    // `soulgrid token --rotate` on the same data directory, while the server runs.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
        .args(["token", "--rotate", "--data-dir"])
        .arg(dir.path())
        .env_remove("SOULGRID_TOKEN")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let new = printed
        .strip_prefix("http://127.0.0.1:3000/?token=")
        .unwrap_or_else(|| panic!("a login link: {printed}"));
    assert_ne!(new, old);
    assert_eq!(
        call(&router, with(&old)).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(call(&router, with(new)).await.status, StatusCode::OK);
    // The open stream ends too (the server looks at the login every second).
    let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        use http_body_util::BodyExt;
        while let Some(Ok(_)) = stream.frame().await {}
    })
    .await;
    assert!(ended.is_ok(), "the old login's stream still runs");
    // `soulgrid token` prints the same link again.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
        .args(["token", "--data-dir"])
        .arg(dir.path())
        .env_remove("SOULGRID_TOKEN")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), printed);
}

/// What an agent's shell did, from a process outside the server's tree (as `setsid -f`
/// leaves it): a message as the human and a budget raised, both `202`/`200` before there was a
/// login on loopback. The real server, no `--token`.
#[tokio::test]
async fn a_detached_process_cannot_act_as_the_human_on_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
        .envs(common::server_env(dir.path(), port))
        .env_remove("SOULGRID_TOKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // It prints the login link where a person sees it.
    let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let printed = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            line.clear();
            let n = tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)
                .await
                .unwrap();
            assert!(n > 0, "the server ended before printing its login link");
            if line.contains("log in at") {
                return line.trim().to_string();
            }
        }
    })
    .await
    .expect("the login link is printed at start");
    let login = std::fs::read_to_string(dir.path().join(soulgrid::login::TOKEN_FILE)).unwrap();
    assert!(
        printed.ends_with(&format!("http://127.0.0.1:{port}/?token={}", login.trim())),
        "{printed}"
    );
    let url = |p: &str| format!("http://127.0.0.1:{port}{p}");
    let (budget, body) = common::from_a_child("POST", &url("/api/budgets")).await;
    assert_eq!(budget, 401, "{body}");
    let (docs, _) = common::from_a_child("GET", &url("/api/docs")).await;
    assert_eq!(docs, 401);
    drop(out);
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
