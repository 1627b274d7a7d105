//! The real Claude Code CLI with `--permissions ui`: a tool call it makes (scripted in the fake
//! model) is asked for on stdio, shown as a permission request, approved, denied, or denied by
//! the timeout, and the CLI acts on the answer; a hung turn is interrupted through the API.
//! Runs only when `make test` points `SOULGRID_REAL_CLAUDE` at the pinned CLI.

use crate::common;

use app::domain::docs::{identity, thread, Docs, SpeakerType};
use app::domain::docs::{pending, request};
use app::domain::permissions::{Decider, PermissionState};
use app::domain::process::ProcessState;
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{call, post_json, wait_for_secs};
use serde_json::json;
use soulgrid::state::AppState;

fn lead_said(d: &Docs, words: &str) -> bool {
    thread(d, LEAD_SEAT)
        .iter()
        .any(|m| m.speaker_type == SpeakerType::Lead && m.text.contains(words))
}

/// Asks the lead (through the fake model's script) to write `path`; returns the request id.
async fn ask_to_write(
    state: &AppState,
    router: &axum::Router,
    path: &std::path::Path,
    content: &str,
) -> String {
    let text = format!("DO_WRITE: {} :: {content}", path.display());
    let r = call(router, post_json("/api/send", json!({ "text": text }))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for_secs(state, 60, "the CLI's permission request", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    let docs = state.store.snapshot().0;
    let p = pending(&docs, LEAD_SEAT)[0].clone();
    assert_eq!(p.tool_name, "Write");
    assert_eq!(p.input["file_path"], path.display().to_string());
    assert_eq!(p.input["content"], content);
    assert!(p
        .tool_use_id
        .as_deref()
        .is_some_and(|t| t.starts_with("toolu_fake_")));
    p.request_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_real_cli_asks_before_a_tool_call_and_stops_a_hung_turn() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let data = cli.dir.path().join("data");
    // In the lead's own folder: its sandbox writes nowhere else.
    let out = data.join("agents/4/out");
    std::fs::create_dir_all(&out).unwrap();
    // The CLI's default permission mode: writing a file is asked for.
    let state = common::boot_with(
        &data,
        &[
            "--claude-cmd",
            &cli.claude,
            "--claude-args=",
            "--permissions",
            "ui",
            "--permission-timeout",
            "8s",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());

    // Approved: the CLI writes the file and hands the model the tool's result.
    let approved = out.join("approved.txt");
    let id = ask_to_write(&state, &router, &approved, "written after approval").await;
    let r = call(
        &router,
        post_json(
            &format!("/api/permissions/{id}"),
            json!({"decision": "allow"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    wait_for_secs(&state, 60, "the model saw the write succeed", |d| {
        lead_said(d, "Saw tool result (ok)")
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(&approved).unwrap(),
        "written after approval"
    );

    // Denied with a reason: nothing is written, the model reads the reason.
    let denied = out.join("denied.txt");
    let id = ask_to_write(&state, &router, &denied, "never").await;
    let r = call(
        &router,
        post_json(
            &format!("/api/permissions/{id}"),
            json!({"decision": "deny", "message": "not in this folder"}),
        ),
    )
    .await;
    assert_eq!(r.json()["state"], "denied", "{}", r.body);
    wait_for_secs(&state, 60, "the model read the denial", |d| {
        lead_said(d, "Saw tool result (error): not in this folder")
    })
    .await;
    assert!(!denied.exists());

    // A command that changes something (the CLI runs read-only ones, like `echo`, without
    // asking), in the agent's own folder: for a path outside it the CLI asked again even with
    // the command's rule kept (it also suggests adding that directory). The seat says which
    // tool it uses.
    let made = data.join("agents/4/made-by-bash");
    let bash = "mkdir -v made-by-bash".to_string();
    let r = call(
        &router,
        post_json("/api/send", json!({"text": format!("DO_BASH: {bash}")})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for_secs(&state, 60, "the Bash request", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    let (id, command) = state.store.with_all_docs(|d| {
        let p = pending(d, LEAD_SEAT)[0];
        (p.request_id.clone(), p.input["command"].clone())
    });
    assert_eq!(command, bash.as_str());
    // Always allowed: the CLI is handed the rule it suggested.
    let suggested = state
        .store
        .with_all_docs(|d| request(d, &id).and_then(|p| p.suggestions.clone()));
    // It suggests the rule for this command and broader ones (a directory, acceptEdits mode):
    // only the rule is kept, or the writes below would no longer be asked for.
    let rule = suggested
        .as_ref()
        .and_then(|s| s.as_array())
        .and_then(|s| s.iter().position(|x| x["type"] == "addRules"))
        .expect("the CLI suggests a rule for the command");
    let r = call(
        &router,
        post_json(
            &format!("/api/permissions/{id}"),
            json!({"decision": "allow_always", "suggestion": rule}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    wait_for_secs(&state, 60, "the command's output reached the model", |d| {
        lead_said(d, "Saw tool result (ok): mkdir: created directory")
    })
    .await;
    let used_bash = common::count_events(&state, |k| {
        matches!(k, app::domain::events::EventKind::AgentProcess { reason: Some(r), .. } if r == "using Bash")
    })
    .await;
    assert!(used_bash > 0, "the tool activity was recorded");
    assert!(made.is_dir(), "the approved command ran");
    // The same command again runs without asking.
    std::fs::remove_dir(&made).unwrap();
    call(
        &router,
        post_json("/api/send", json!({"text": format!("DO_BASH: {bash}")})),
    )
    .await;
    wait_for_secs(&state, 60, "the second run", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .filter(|m| {
                m.text
                    .contains("Saw tool result (ok): mkdir: created directory")
            })
            .count()
            == 2
    })
    .await;
    assert!(made.is_dir(), "it ran again");
    let asked = state.store.with_all_docs(|d| {
        app::domain::docs::permissions(d)
            .filter(|p| p.tool_name == "Bash")
            .count()
    });
    assert_eq!(asked, 1, "the remembered rule was not asked again");

    // Unanswered: the timeout denies it and says so.
    let late = out.join("late.txt");
    let id = ask_to_write(&state, &router, &late, "too late").await;
    wait_for_secs(&state, 60, "the timeout's denial reached the model", |d| {
        lead_said(
            d,
            "Saw tool result (error): Nobody answered within 8 s; denied automatically.",
        )
    })
    .await;
    let p = state
        .store
        .with_all_docs(|d| request(d, &id).cloned())
        .unwrap();
    assert_eq!(
        (p.state, p.decided_by),
        (PermissionState::Denied, Some(Decider::Timeout))
    );
    assert!(!late.exists());

    // A turn whose model stream never ends is stopped by an interrupt; the agent stays.
    let r = call(&router, post_json("/api/send", json!({"text": "DO_HANG"}))).await;
    assert_eq!(r.json()["delivery"], "delivered", "{}", r.body);
    // Interrupted mid-stream: once the model has sent the hung answer's first frames.
    wait_for_secs(&state, 60, "the hung answer is streaming", |_| {
        cli.recorded.1.load(std::sync::atomic::Ordering::SeqCst) == 1
    })
    .await;
    let r = call(&router, post_json("/api/agents/4/interrupt", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for_secs(&state, 30, "the lead idle after the interrupt", |d| {
        identity(d, LEAD_SEAT).is_some_and(|l| {
            l.process_state == Some(ProcessState::Idle)
                && l.process_reason.as_deref() == Some("interrupted")
        })
    })
    .await;
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "are you back?"})),
    )
    .await;
    assert_eq!(
        r.json()["delivery"],
        "delivered",
        "the same process: {}",
        r.body
    );
    wait_for_secs(&state, 60, "an answer after the interrupt", |d| {
        lead_said(d, "You said: are you back?")
    })
    .await;
    let cost = state
        .store
        .with_all_docs(|d| identity(d, LEAD_SEAT).and_then(|l| l.cost_usd));
    assert!(
        cost.is_some_and(|c| c > 0.0),
        "cost from the CLI's result: {cost:?}"
    );
    soulgrid::shut_down(&state).await;
}
