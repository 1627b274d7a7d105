//! What an agent knows, through the real Claude Code CLI (pinned) against the fake Messages API:
//! the agent writes its vault with its own Write tool, is put to sleep (its distil turn, then
//! the capture), and is woken: the first model request of its new session carries what it wrote.

use crate::common;

use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use common::{boot_with, call, post_json, wait_for_secs};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn what_an_agent_wrote_in_its_vault_reaches_the_model_when_it_wakes() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let (claude, recorded) = (cli.claude.clone(), cli.recorded.clone());
    let data = cli.dir.path().join("data");
    let state = boot_with(
        &data,
        &["--claude-cmd", &claude, "--distill-timeout", "60s"],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    call(
        &router,
        post_json("/api/agents/summon", json!({"seats": [0]})),
    )
    .await;
    wait_for_secs(
        &state,
        120,
        "the agent in seat 0 through the real CLI",
        |d| identity(d, 0).is_some_and(|i| i.status() == AgentStatus::Alive && i.has_name()),
    )
    .await;
    let file = data.join("agents/0/knowledge/insights.md");
    let text = format!("DO_WRITE: {} :: VAULT_REMEMBERS_THE_TIDE", file.display());
    call(
        &router,
        post_json("/api/send", json!({"text": text, "seat": 0})),
    )
    .await;
    wait_for_secs(&state, 60, "the Write done", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.contains("Saw tool result (ok)"))
    })
    .await;
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("VAULT_REMEMBERS_THE_TIDE"));

    // Asleep: its distil turn (a model request with the letter), then the capture.
    let r = call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        recorded
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|b| b.to_string().contains("Before you sleep.")),
        "the distil letter reached the model"
    );
    let kept = state.store.with_all_docs(|d| {
        let who = identity(d, 0).unwrap();
        app::domain::knowledge::knowledge_at(d, &who.stable_id(), who.vault_version)
            .map(|v| v.files.get("insights.md").cloned().unwrap_or_default())
    });
    assert!(kept.is_some_and(|t| t.contains("VAULT_REMEMBERS_THE_TIDE")));

    // Woken: a fresh session whose first request carries the vault.
    std::fs::remove_file(&file).unwrap();
    call(
        &router,
        post_json("/api/agents/wake", json!({"seats": [0]})),
    )
    .await;
    common::wait_until("the woken session's first model request", || {
        recorded
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|b| b.to_string().contains("You are waking up."))
    })
    .await;
    let requests = recorded.0.lock().unwrap().clone();
    let wake = requests
        .iter()
        .map(|b| b.to_string())
        .find(|b| b.contains("You are waking up."))
        .expect("the wake's first request");
    assert!(
        wake.contains("<your-knowledge>") && wake.contains("VAULT_REMEMBERS_THE_TIDE"),
        "the vault is in the first request of the new session"
    );
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("VAULT_REMEMBERS_THE_TIDE"),
        "the folder was restored before the start"
    );
    soulgrid::shut_down(&state).await;
}
