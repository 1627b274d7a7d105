//! Spectators: a watch link reads the team as a spectator sees it (no invites, watch links,
//! secrets' digests or permission inputs), every write and every other read with it is `403`
//! (on loopback without `--token` too, and with one), and revoking it ends its streams within
//! a second.

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

use crate::common::{boot_with, call, get, get_with, post_json};

async fn console(extra: &[&str]) -> (tempfile::TempDir, soulgrid::state::AppState, axum::Router) {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_with(dir.path(), extra).await;
    let router = soulgrid::http::router(state.clone());
    (dir, state, router)
}

async fn watch_link(router: &axum::Router, label: &str) -> String {
    let made = call(router, post_json("/api/watch", json!({ "label": label }))).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let link = made.json();
    let token = link["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("sgw_"), "{link}");
    assert!(
        link["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/watch/{token}")),
        "{link}"
    );
    token
}

fn with(method: &str, uri: &str, token: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap()
}

#[tokio::test]
async fn a_watch_link_reads_as_a_spectator_and_changes_nothing() {
    let (_dir, _state, router) = console(&[]).await;
    let invite = call(&router, post_json("/api/invites", json!({}))).await;
    assert_eq!(invite.status, 201);
    let token = watch_link(&router, "for Ada").await;
    let listed = call(&router, get("/api/watch")).await.json();
    assert_eq!(listed[0]["label"], "for Ada");
    assert!(listed[0]["lastUsedAt"].is_null(), "{listed}");

    // What a spectator reads: the team, without invites, watch links or digests.
    let docs = call(&router, with("GET", "/api/docs", &token)).await;
    assert_eq!(docs.status, 200, "{}", docs.body);
    let keys: Vec<String> = docs.json()["docs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert!(
        keys.iter()
            .all(|k| !k.starts_with("invite:") && !k.starts_with("watch-link:")),
        "{keys:?}"
    );
    assert!(!docs.body.contains("tokenHash"), "{}", docs.body);
    // The same for the human: everything.
    let all = call(&router, get("/api/docs")).await;
    assert!(all.body.contains("\"invite:") && all.body.contains("\"watch-link:"));
    let listed = call(&router, get("/api/watch")).await.json();
    assert!(
        listed[0]["lastUsedAt"].is_i64(),
        "its use is noted: {listed}"
    );

    // Every write of the API, with the link as a bearer or in the query: 403.
    for e in app::contract::endpoints::ALL {
        if e.method == app::contract::endpoints::Method::Get {
            continue;
        }
        let path = app::contract::endpoints::fill(e.route, &vec!["x".to_string(); 4]);
        let method = e.method.as_str();
        let reply = call(&router, with(method, &path, &token)).await;
        assert_eq!(reply.status, 403, "{method} {path}: {}", reply.body);
        assert!(reply.body.contains("changes nothing"), "{}", reply.body);
        let query = format!("{path}?watch={token}");
        let reply = call(&router, post_json(&query, json!({}))).await;
        assert_eq!(reply.status, 403, "{method} {query}");
    }
    // Reads beyond the team's view: 403; the quests and the Hall: its to read.
    for path in [
        "/api/export",
        "/api/agents/x/bundle",
        "/api/projects",
        "/api/jobs",
        "/api/watch",
    ] {
        let reply = call(&router, with("GET", path, &token)).await;
        assert_eq!(reply.status, 403, "GET {path}: {}", reply.body);
    }
    for path in ["/api/quests", "/api/hall"] {
        let reply = call(&router, with("GET", path, &token)).await;
        assert_eq!(reply.status, 200, "GET {path}: {}", reply.body);
    }
    // A token that is no watch link is refused as such.
    let made_up = call(&router, with("GET", "/api/docs", "sgw_madeup")).await;
    assert_eq!(made_up.status, 403);
}

#[tokio::test]
async fn with_the_servers_own_token_a_watch_link_still_only_reads() {
    let (_dir, _state, router) = console(&["--token", "s3cret"]).await;
    let made = call(
        &router,
        Request::post("/api/watch")
            .header("authorization", "Bearer s3cret")
            .header("content-type", "application/json")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let token = made.json()["token"].as_str().unwrap().to_string();
    assert_eq!(
        call(&router, with("GET", "/api/docs", &token)).await.status,
        200
    );
    assert_eq!(
        call(&router, with("POST", "/api/send", &token))
            .await
            .status,
        403
    );
    assert_eq!(
        call(&router, get("/api/docs")).await.status,
        401,
        "no token, no read"
    );
    // The page's own build files carry nothing of the team: a spectator's page loads them.
    let file = call(&router, get("/pkg/soulgrid.css")).await;
    assert_ne!(file.status, 401, "{}", file.body);
}

#[tokio::test]
async fn a_spectators_stream_hides_what_is_not_theirs_and_ends_within_a_second_of_a_revoke() {
    let (_dir, _state, router) = console(&[]).await;
    call(&router, post_json("/api/invites", json!({}))).await;
    let token = watch_link(&router, "for Ada").await;
    let res = router
        .clone()
        .oneshot(get_with(
            "/api/events?after=0",
            "authorization",
            &format!("Bearer {token}"),
        ))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body();
    // The log so far: the invite and the link are there, as events of no type it knows.
    let mut seen = String::new();
    while !seen.contains("\"unknown\"") || seen.matches("\"type\":\"unknown\"").count() < 2 {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), body.frame())
            .await
            .expect("the stream's first frames")
            .unwrap()
            .unwrap();
        if let Some(data) = frame.data_ref() {
            seen.push_str(&String::from_utf8_lossy(data));
        }
    }
    assert!(!seen.contains("tokenHash"), "{seen}");
    assert!(
        !seen.contains("invite_made") && !seen.contains("watch_made"),
        "{seen}"
    );

    let revoked = call(
        &router,
        post_json(&format!("/api/watch/{token}/revoke"), json!({})),
    )
    .await;
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    let started = std::time::Instant::now();
    let ended = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        while let Some(Ok(_)) = body.frame().await {}
    })
    .await;
    assert!(
        ended.is_ok(),
        "the stream ended {:?} after the revoke",
        started.elapsed()
    );
    assert_eq!(
        call(&router, with("GET", "/api/docs", &token)).await.status,
        403
    );
    let listed = call(&router, get("/api/watch")).await.json();
    assert!(listed[0]["revokedAt"].is_i64(), "{listed}");
}

/// A spectator's page offers nothing to do: no control's words (the page said "Abandon the
/// quest…" and "Wakes 5 agents…"). A revoked link opened again is a page that says so, in
/// words and in the page's colours (it was raw JSON).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectators_page_offers_nothing_and_a_revoked_link_says_so() {
    let (_dir, state, router) = crate::common::team().await;
    let r = call(
        &router,
        post_json(
            "/api/quests",
            json!({"problem": "Name the ship. SIM_SILENT"}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    crate::common::wait_for(&state, "the quest's first stage", |d| {
        app::domain::quest::running_quest(d).is_some_and(|q| q.current().is_some())
    })
    .await;
    // Asleep, so that the grid's button would offer to wake them.
    call(&router, post_json("/api/session/end", json!({}))).await;
    let token = watch_link(&router, "for Ada").await;
    let page = {
        let _serial = crate::SERIAL.lock().await;
        call(&router, get(&format!("/watch/{token}"))).await
    };
    assert_eq!(page.status, 200);
    for control in [
        "Abandon",
        "Wakes ",
        "Begins ",
        "New quest",
        "SUMMON",
        ">WAKE<",
    ] {
        assert!(
            !page.body.contains(control),
            "{control} on a spectator's page"
        );
    }
    let revoked = call(
        &router,
        post_json(&format!("/api/watch/{token}/revoke"), json!({})),
    )
    .await;
    assert!(revoked.status.is_success(), "{}", revoked.body);
    let again = call(&router, get(&format!("/watch/{token}"))).await;
    assert_eq!(again.status, 403);
    assert!(
        again.body.starts_with("<!DOCTYPE html>") && again.body.contains("no longer works"),
        "{}",
        again.body
    );
    // Its API is still answered in JSON.
    let api = call(&router, with("GET", "/api/docs", &token)).await;
    assert_eq!(api.status, 403);
    assert!(api.body.starts_with('{'), "{}", api.body);
    soulgrid::shut_down(&state).await;
}
