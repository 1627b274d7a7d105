//! What an agent knows, through the running server with `soulgrid-sim`: its vault survives a
//! sleep, a folder deleted by hand and a `kill -9`, a distil turn is bounded, a vault past its
//! limits keeps what fits, and the human can read and edit the vault (the agent is told). Its
//! work cycle in git: `work_cycle.rs`.

use crate::common;

use std::path::Path;

use app::contract::KnowledgeView;
use app::domain::docs::{identity, thread, Author};
use app::domain::status::AgentStatus;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

pub(crate) fn lyra_id(state: &soulgrid::state::AppState) -> String {
    state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id())
}

fn received(dir: &Path, seat: u8) -> String {
    std::fs::read_to_string(dir.join(format!("agents/{seat}/.soulgrid-sim/received.jsonl")))
        .unwrap_or_default()
}

pub(crate) async fn send(router: &axum::Router, seat: u8, text: &str) {
    let r = call(
        router,
        post_json("/api/send", json!({"text": text, "seat": seat})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vault_survives_a_sleep_and_a_folder_deleted_by_hand() {
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    send(&router, 0, "SIM_LEARN: the harp has eleven strings").await;
    wait_for(&state, "Lyra noted it", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.starts_with("Noted in my vault"))
    })
    .await;
    // Put to sleep: the distil turn (the sim notes what it last heard), then the capture.
    let r = call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let insights = state.store.with_all_docs(|d| {
        let who = identity(d, 0).unwrap();
        assert_eq!(who.status(), AgentStatus::Sleeping);
        app::domain::knowledge::knowledge_at(d, &id, who.vault_version)
            .map(|v| v.files["insights.md"].clone())
    });
    let insights = insights.expect("a vault version after the sleep");
    assert!(
        insights.contains("- the harp has eleven strings"),
        "{insights}"
    );
    assert!(
        insights.contains("- Before sleeping I noted:"),
        "{insights}"
    );
    assert!(received(dir.path(), 0).contains("Before you sleep."));
    let log = std::fs::read_to_string(dir.path().join("agents/0/logout.log")).unwrap();
    assert!(log.contains("Lyra logout (dismissed)"), "{log}");

    // The folder is lost; the store is the record: waking restores it and gives it back.
    std::fs::remove_dir_all(dir.path().join("agents/0/knowledge")).unwrap();
    call(
        &router,
        post_json("/api/agents/wake", json!({"seats": [0]})),
    )
    .await;
    wait_for(&state, "Lyra awake again", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.starts_with("Hello. I am Lyra"))
    })
    .await;
    let restored = std::fs::read_to_string(dir.path().join("agents/0/knowledge/insights.md"));
    assert_eq!(restored.unwrap(), insights);
    let got = received(dir.path(), 0);
    let wake = got
        .lines()
        .rfind(|l| l.contains("You are waking up."))
        .unwrap();
    assert!(
        wake.contains("<your-knowledge>") && wake.contains("eleven strings"),
        "{wake}"
    );

    // Over HTTP: the current files and every version.
    let r = call(&router, get(&format!("/api/agents/{id}/knowledge"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let v: KnowledgeView = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v.files.len(), 1);
    assert_eq!(v.files[0].path, "insights.md");
    assert!(v.versions.iter().all(|x| x.author == Author::Agent));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_distil_turn_that_hangs_is_ended_at_its_timeout() {
    let (_dir, state, router) = common::team_with(&["--distill-timeout", "1s"]).await;
    send(&router, 0, "SIM_HANG and think forever").await;
    wait_for(&state, "Lyra is in her turn", |d| {
        identity(d, 0).unwrap().process_state == Some(app::domain::process::ProcessState::Running)
    })
    .await;
    let t = std::time::Instant::now();
    let r = call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let took = t.elapsed();
    assert!(
        took >= std::time::Duration::from_secs(1),
        "given its distil turn: {took:?}"
    );
    assert!(
        took < std::time::Duration::from_secs(8),
        "bounded: {took:?}"
    );
    assert!(!state.runtime.running().contains(&0));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_human_edits_a_vault_file_and_the_agent_is_told() {
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    let put = |path: &str, body: serde_json::Value| {
        let mut r = post_json(&format!("/api/agents/{id}/knowledge/{path}"), body);
        *r.method_mut() = axum::http::Method::PUT;
        r
    };
    let r = call(
        &router,
        put("insights.md", json!({"text": "Kael owes me a song."})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json()["version"], 1);
    let file = std::fs::read_to_string(dir.path().join("agents/0/knowledge/insights.md")).unwrap();
    assert_eq!(file, "Kael owes me a song.");
    wait_for(&state, "Lyra told of the edit", |d| {
        thread(d, 0).iter().any(|m| {
            m.speaker_name == "Lyra" && m.text.contains("Marcus edited your knowledge/insights.md")
        })
    })
    .await;
    let v: KnowledgeView = serde_json::from_str(
        &call(&router, get(&format!("/api/agents/{id}/knowledge")))
            .await
            .body,
    )
    .unwrap();
    assert_eq!(v.versions[0].author, Author::Human);
    assert_eq!(v.versions[0].author_name.as_deref(), Some("Marcus"));
    for (path, body, want) in [
        (
            "..%2Fescape.md",
            json!({"text": "x"}),
            StatusCode::BAD_REQUEST,
        ),
        ("run.sh", json!({"text": "x"}), StatusCode::BAD_REQUEST),
        (
            "big.md",
            json!({"text": "y".repeat(70 * 1024)}),
            StatusCode::BAD_REQUEST,
        ),
        ("notes.md", json!({"words": "x"}), StatusCode::BAD_REQUEST),
    ] {
        let r = call(&router, put(path, body)).await;
        assert_eq!(r.status, want, "{path}: {}", r.body);
        assert!(r.json()["error"].is_string());
    }
    let mut r = post_json("/api/agents/nobody/knowledge/a.md", json!({"text": "x"}));
    *r.method_mut() = axum::http::Method::PUT;
    assert_eq!(call(&router, r).await.status, StatusCode::NOT_FOUND);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vault_past_its_limits_is_kept_without_what_does_not_fit_and_the_agent_is_told() {
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    send(&router, 0, "SIM_LEARN: small and true").await;
    send(&router, 0, "SIM_BIG_VAULT").await;
    send(&router, 0, "SIM_STATE: bootstrap").await;
    wait_for(&state, "the seat told what was left out", |d| {
        identity(d, 0)
            .and_then(|i| i.last_problem.as_ref())
            .is_some_and(|p| {
                p.message
                    .contains("knowledge/huge.md: 102400 bytes; a vault file may have 65536")
            })
    })
    .await;
    wait_for(&state, "the agent told too", |_| {
        received(dir.path(), 0)
            .contains("Your knowledge vault was saved without: knowledge/huge.md")
    })
    .await;
    state.store.with_all_docs(|d| {
        let who = identity(d, 0).unwrap();
        let v = app::domain::knowledge::knowledge_at(d, &id, who.vault_version).unwrap();
        assert!(v.files.contains_key("insights.md"));
        assert!(!v.files.contains_key("huge.md"));
    });
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_kill_9_the_last_captured_vault_stands() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = common::ServerProcess::start(&data).await;
    let port = server.port;
    let post = |path: &'static str, body: serde_json::Value| async move {
        common::raw_request(port, "POST", path, Some(&body.to_string())).await
    };
    let docs_text = || async move {
        common::raw_request(port, "GET", "/api/docs", None)
            .await
            .and_then(|r| common::body_json(&r))
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    post("/api/agents/summon", json!({"seats": [0]})).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    // Captured at a transition: the first line.
    let mut asked = false;
    while !docs_text().await.contains("- the first thing") {
        if !asked && docs_text().await.contains(r#""name":"Lyra""#) {
            post(
                "/api/send",
                json!({"text": "SIM_LEARN: the first thing", "seat": 0}),
            )
            .await;
            post(
                "/api/send",
                json!({"text": "SIM_STATE: bootstrap", "seat": 0}),
            )
            .await;
            asked = true;
        }
        assert!(std::time::Instant::now() < deadline, "never captured");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Written by the agent, never captured: the server dies first.
    post(
        "/api/send",
        json!({"text": "SIM_LEARN: the second thing", "seat": 0}),
    )
    .await;
    let file = data.join("agents/0/knowledge/insights.md");
    common::wait_until("the second line in the folder", || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("the second thing"))
    })
    .await;
    server.kill().await;

    let state = common::boot(&data).await;
    let router = soulgrid::http::router(state.clone());
    call(
        &router,
        post_json("/api/agents/wake", json!({"seats": [0]})),
    )
    .await;
    wait_for(&state, "Lyra awake", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.starts_with("Hello. I am Lyra"))
    })
    .await;
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("- the first thing"), "{text}");
    assert!(
        !text.contains("the second thing"),
        "the last captured version stands: {text}"
    );
    soulgrid::shut_down(&state).await;
}
