//! Fork through the real Claude Code CLI (pinned) against the fake Messages API: the child's
//! first model request carries the parent's earlier turns (`--resume <parent> --fork-session`,
//! measured with CLI 2.1.330 to work from another working directory under the same HOME), and
//! the child registers a name of its own.

use crate::common;

use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use common::{all_agents, boot_with, call, post_json, wait_for_secs};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forked_child_carries_the_parents_conversation_and_names_itself() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let (claude, recorded) = (cli.claude.clone(), cli.recorded.clone());
    let data = cli.dir.path().join("data");
    let state = boot_with(&data, &["--claude-cmd", &claude]).await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/agents/summon", json!({}))).await;
    wait_for_secs(&state, 120, "eight agents through the real CLI", |d| {
        all_agents(d, AgentStatus::Alive)
    })
    .await;
    let parent = state
        .store
        .with_all_docs(|d| identity(d, 0).and_then(|i| i.name.clone()))
        .unwrap();
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "PARENT_SAYS_BLUEBERRY", "seat": 0}),
        ),
    )
    .await;
    wait_for_secs(&state, 60, "the parent's answer", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.speaker_name == parent && m.text.contains("PARENT_SAYS_BLUEBERRY"))
    })
    .await;
    let r = call(&router, post_json("/api/agents/1/kill", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["seat"], 1);
    wait_for_secs(&state, 120, "the child registered in seat 1", |d| {
        identity(d, 1).is_some_and(|c| {
            c.status() == AgentStatus::Alive && c.parent_uuid.is_some() && c.has_name()
        })
    })
    .await;
    let child = state
        .store
        .with_all_docs(|d| identity(d, 1).and_then(|i| i.name.clone()))
        .unwrap();
    assert_ne!(child, parent, "a name of its own");
    let requests = recorded.0.lock().unwrap().clone();
    let first = requests
        .iter()
        .find(|b| b.to_string().contains(&format!("a fork of {parent}")))
        .expect("the child's first request");
    let body = first.to_string();
    assert!(
        body.contains("PARENT_SAYS_BLUEBERRY") && body.contains("You said: PARENT_SAYS_BLUEBERRY"),
        "the child's first request carries the parent's user and assistant turns"
    );
    soulgrid::shut_down(&state).await;
}
