//! A quest through the real Claude Code CLI (pinned) against the fake Messages API: the lead
//! plans it, two stages and more of findings, a reinforcement summoned between stages (who
//! joins under the name it chose), and the report.

use crate::common;

use app::domain::docs::identity;
use app::domain::status::AgentStatus;
use common::{all_agents, boot_with, call, post_json, wait_for_secs};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quest_runs_through_the_real_cli_to_its_report() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let claude = cli.claude.clone();
    let data = cli.dir.path().join("data");
    let state = boot_with(&data, &["--claude-cmd", &claude]).await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/agents/summon", json!({}))).await;
    wait_for_secs(&state, 120, "eight agents through the real CLI", |d| {
        all_agents(d, AgentStatus::Alive)
    })
    .await;
    // An empty seat for the critic the lead summons after the first stage.
    call(&router, post_json("/api/agents/7/kill", json!({}))).await;
    let r = call(
        &router,
        post_json(
            "/api/quests",
            json!({"problem": "Which sea bird should the team be named for?"}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    wait_for_secs(&state, 240, "the quest done", |d| {
        app::domain::quest::quest(d, &id).is_some_and(|q| q.status.is_over())
    })
    .await;
    let v = state
        .store
        .with_all_docs(|d| app::contract::quest_view(d, &id))
        .unwrap();
    assert_eq!(v.status, "done", "{v:#?}");
    assert!(
        v.stages.len() >= 2 && v.stages.iter().all(|s| s.status == "done"),
        "{:#?}",
        v.stages
    );
    for s in &v.stages {
        assert!(
            v.findings.iter().any(|f| f.stage == s.index),
            "findings in stage {}",
            s.index + 1
        );
    }
    let newcomer = state
        .store
        .with_all_docs(|d| identity(d, 7).and_then(|i| i.name.clone()))
        .expect("a newcomer in seat 8");
    assert!(v.stages[1].agents.contains(&newcomer), "{:#?}", v.stages[1]);
    assert!(v.findings.iter().any(|f| f.agent == newcomer));
    let report = v
        .artifacts
        .iter()
        .find(|a| a.id == "report")
        .expect("a report");
    assert_eq!(report.title, "What the fake team found");
    soulgrid::shut_down(&state).await;
}
