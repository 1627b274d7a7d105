//! The real CLI in its sandbox: it answers at all only through the egress proxy (the fake
//! Messages API is on loopback, which the sandbox has no way to but the proxy), and its `Bash`
//! tool's `curl` of the console fails both ways (through the proxy: refused, the flag named;
//! past it: no network), which the model is told in the tool's result. Outside its folders it
//! writes nothing.

use crate::common;

use app::domain::docs::{thread, Docs, SpeakerType};
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{call, post_json, wait_for_secs};
use serde_json::json;

fn lead_said(d: &Docs, words: &str) -> bool {
    thread(d, LEAD_SEAT)
        .iter()
        .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains(words))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_cli_answers_through_its_sandbox_and_its_bash_cannot_reach_the_console() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let sandbox = soulgrid::sandbox::Sandbox::detect(soulgrid::sandbox::SandboxMode::Auto).unwrap();
    if !sandbox.is_on() {
        eprintln!("skipped: no sandbox on this machine ({})", sandbox.said());
        return;
    }
    let data = cli.dir.path().join("data");
    // A port that stands for the console's (the server under test listens nowhere).
    let console = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = console.local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let state = common::boot_with(
        &data,
        &[
            "--claude-cmd",
            &cli.claude,
            "--claude-args=",
            "--permissions",
            "ui",
            "--addr",
            &addr,
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    let outside = data.join("planted");
    let bash = format!(
        "curl -sS -m 5 http://{addr}/api/docs; echo; curl -sS -m 5 --noproxy '*' http://{addr}/api/docs; echo x > {}",
        outside.display()
    );
    let r = call(
        &router,
        post_json("/api/send", json!({"text": format!("DO_BASH: {bash}")})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    // The CLI reached the model (through the proxy) and asks to run the command.
    common::real_cli::approve_the_leads_request(&state, &router).await;
    wait_for_secs(&state, 90, "the command's result, told to the model", |d| {
        lead_said(d, "Saw tool result")
    })
    .await;
    let said = state.store.with_all_docs(|d| {
        thread(d, LEAD_SEAT)
            .iter()
            .rev()
            .find(|m| m.text.contains("Saw tool result"))
            .map(|m| m.text.clone())
            .unwrap()
    });
    assert!(
        said.contains("is not reachable from an agent's sandbox")
            && said.contains("--agent-net-allow"),
        "through the proxy: refused, the flag named: {said}"
    );
    assert!(
        said.contains("Failed to connect") || said.contains("Couldn't connect"),
        "past the proxy: no network: {said}"
    );
    assert!(said.contains("Read-only file system"), "{said}");
    assert!(!outside.exists(), "nothing written outside its folders");
    drop(console);
    soulgrid::shut_down(&state).await;
}
