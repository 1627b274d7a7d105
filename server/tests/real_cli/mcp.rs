//! The real CLI and the agent's `soulgrid` MCP server: a tool call the model makes (scripted in
//! the fake model) is answered by the server, allowed without asking, and its result is what
//! the model's next request carries; a refused call reaches the model as an error it can act
//! on; the CLI's own cross-session tools are not there (the side door is closed).

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
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_real_cli_calls_soulgrid_tools_and_has_no_side_door() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let data = cli.dir.path().join("data");
    let state = common::boot_with(&data, &["--claude-cmd", &cli.claude, "--claude-args="]).await;
    let router = soulgrid::http::router(state.clone());
    let ask = |script: &'static str| {
        let router = router.clone();
        async move {
            let r = call(&router, post_json("/api/send", json!({ "text": script }))).await;
            assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        }
    };

    // `team`, allowed without asking: the model sees who sits where.
    ask("DO_TOOL: mcp__soulgrid__team {}").await;
    wait_for_secs(&state, 90, "the team tool's result", |d| {
        lead_said(d, "Saw tool result (ok): - seat 5:") && lead_said(d, "In the Hall: nobody.")
    })
    .await;
    // A refused call: an error with what to do instead, recorded on the seat.
    ask(r#"DO_TOOL: mcp__soulgrid__recall {"agent":"Nobody"}"#).await;
    wait_for_secs(&state, 60, "the refused call's result", |d| {
        lead_said(
            d,
            "Saw tool result (error): nobody in the Hall is called \"Nobody\"",
        )
    })
    .await;
    ask(r#"DO_TOOL: mcp__soulgrid__claim_job {"job":"nope"}"#).await;
    wait_for_secs(&state, 60, "the claim of no job refused", |d| {
        lead_said(d, "Saw tool result (error): there is no job \"nope\"")
    })
    .await;
    // Carried out, and answered with what happened: a message shown to the human, a summon
    // into the seat asked for (the newborn there is a real CLI too, and names itself).
    ask(r#"DO_TOOL: mcp__soulgrid__send_message {"to":"human","text":"all well here"}"#).await;
    wait_for_secs(&state, 60, "the message's result", |d| {
        lead_said(d, "Saw tool result (ok): Shown to ") && lead_said(d, "all well here")
    })
    .await;
    ask(r#"DO_TOOL: mcp__soulgrid__summon {"seats":[1]}"#).await;
    wait_for_secs(
        &state,
        90,
        "the summon's result and the newborn named",
        |d| {
            lead_said(d, "Saw tool result (ok): Summoned into seat 1:")
                && app::domain::docs::identity(d, 0).is_some_and(|i| i.name.is_some())
        },
    )
    .await;
    // The side door: the CLI's own cross-session messaging is not there.
    ask(r#"DO_TOOL: SendMessage {"to":"someone","message":"psst"}"#).await;
    wait_for_secs(&state, 60, "SendMessage refused", |d| {
        lead_said(
            d,
            "Saw tool result (error): <tool_use_error>Error: No such tool available: SendMessage",
        )
    })
    .await;

    // What the model was given: our tool in its tools, and our result as its tool_result.
    let requests = cli.recorded.0.lock().unwrap().clone();
    let offered = requests.iter().any(|r| {
        r["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "mcp__soulgrid__team"))
            || r.to_string().contains("mcp__soulgrid__team")
    });
    assert!(offered, "the model was offered mcp__soulgrid__team");
    assert!(!requests
        .iter()
        .any(|r| r["tools"].as_array().is_some_and(|t| t
            .iter()
            .any(|t| t["name"] == "SendMessage" || t["name"] == "ListAgents"))));
    let results: Vec<String> = requests
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "tool_result")
        .map(|p| p.to_string())
        .collect();
    for said in [
        "In the Hall: nobody.",
        "Summoned into seat 1",
        "is_error\":true",
    ] {
        assert!(
            results.iter().any(|r| r.contains(said)),
            "{said}: {results:#?}"
        );
    }
    soulgrid::shut_down(&state).await;
}
