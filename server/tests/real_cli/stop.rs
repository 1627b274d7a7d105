//! The real Claude Code CLI runs its Bash tool's shell detached (a session and a process group
//! of its own): what a command leaves running outlived the agent's stop when only the agent's
//! group was killed. With the fake model making the CLI run `(sleep … &)`, the sleeper is gone
//! after a dismiss. Runs only when `make test` points `SOULGRID_REAL_CLAUDE` at the pinned CLI.

use crate::common;

use app::domain::docs::{thread, SpeakerType};
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{alive, call, post_json, wait_for_secs};
use serde_json::json;

/// Live processes whose command line holds `words`.
fn running(words: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .contains(words)
            })
        })
        .filter(|pid| alive(*pid))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_real_clis_bash_tool_leaves_running_is_gone_after_a_dismiss() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let data = cli.dir.path().join("data");
    let state = common::boot_with(
        &data,
        &[
            "--claude-cmd",
            &cli.claude,
            "--claude-args=",
            "--permissions",
            "ui",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    // A duration nothing else on the machine sleeps for.
    let marker = format!("sleep {}", 900_000 + std::process::id() % 90_000);
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": format!("DO_BASH: ({marker} &)")}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    common::real_cli::approve_the_leads_request(&state, &router).await;
    wait_for_secs(&state, 60, "the command ran", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains("Saw tool result"))
    })
    .await;
    let sleepers = running(&marker);
    assert_eq!(sleepers.len(), 1, "the sleeper runs: {sleepers:?}");
    let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    common::wait_until("the sleeper gone after the dismiss", || {
        running(&marker).is_empty()
    })
    .await;
    soulgrid::shut_down(&state).await;
}
