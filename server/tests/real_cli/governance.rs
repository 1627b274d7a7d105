//! The real CLI under governance (`--permissions ui --approvals lead-first`): a Write one of the
//! agent's rules covers is allowed before anyone is asked (the CLI writes the file, the rule is
//! the recorded reason), and an agent's Write put to the lead is decided by the lead's own
//! `decide_permission` tool call, recorded as the lead's.

use crate::common;

use app::domain::docs::{identity, pending, request, thread, Docs};
use app::domain::escalation::Approver;
use app::domain::permissions::{Decider, PermissionState};
use app::domain::{Seat, LEAD_SEAT};
use axum::http::StatusCode;
use common::{call, post_json, wait_for_secs};
use serde_json::json;

fn said(d: &Docs, seat: Seat, words: &str) -> bool {
    thread(d, seat).iter().any(|m| m.text.contains(words))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_cli_is_allowed_by_a_rule_without_asking_and_decided_by_the_lead() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let data = cli.dir.path().join("data");
    // In the agent's own folder: its sandbox writes nowhere else.
    let out = data.join("agents/1/out");
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
            "--approvals",
            "lead-first",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    let r = call(
        &router,
        post_json("/api/agents/summon", json!({"seats": [1]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for_secs(&state, 90, "the newcomer named", |d| {
        identity(d, 1).is_some_and(|i| i.has_name())
    })
    .await;
    let (id, name) = state.store.with_all_docs(|d| {
        let who = identity(d, 1).unwrap();
        (who.stable_id(), who.name.clone().unwrap())
    });
    let send = |seat: Seat, text: String| {
        let router = router.clone();
        async move {
            let r = call(
                &router,
                post_json("/api/send", json!({ "text": text, "seat": seat })),
            )
            .await;
            assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        }
    };

    // A rule of its own covers this write: nobody is asked.
    let ruled = out.join("ruled.txt");
    let rule = format!("Write({}/*.txt)", out.display());
    let r = call(
        &router,
        post_json(&format!("/api/agents/{id}/rules"), json!({ "rule": rule })),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    send(1, format!("DO_WRITE: {} :: by the rule", ruled.display())).await;
    wait_for_secs(&state, 90, "the write went through", |d| {
        said(d, 1, "Saw tool result (ok)")
    })
    .await;
    assert_eq!(std::fs::read_to_string(&ruled).unwrap(), "by the rule");
    state.store.with_all_docs(|d| {
        let asked: Vec<_> = app::domain::docs::permissions(d).collect();
        assert_eq!(asked.len(), 1, "the CLI asked once, and the rule answered");
        assert_eq!(
            (
                asked[0].state,
                asked[0].decided_by,
                asked[0].rule.as_deref()
            ),
            (
                PermissionState::Allowed,
                Some(Decider::Rule),
                Some(rule.as_str())
            )
        );
    });

    // Not covered, in its own folder (outside it, the human would keep it): the request goes
    // to the lead, which decides it with its tool.
    let decided = data.join("agents/1/decided.md");
    send(1, format!("DO_WRITE: {} :: by the lead", decided.display())).await;
    wait_for_secs(&state, 90, "the request with the lead", |d| {
        pending(d, 1).iter().any(|p| p.with == Some(Approver::Lead))
    })
    .await;
    let request_id = state
        .store
        .with_all_docs(|d| pending(d, 1)[0].request_id.clone());
    // The lead was told (its CLI started for it): the model saw the request's id in what the
    // lead's CLI sent it, fenced as the agent's words. Then the lead decides.
    tokio::time::timeout(
        std::time::Duration::from_secs(90),
        cli.recorded.until(|body| {
            let text = body.to_string();
            text.contains(&request_id) && text.contains("asks to use Write")
        }),
    )
    .await
    .expect("the lead's model was asked about the request");
    send(
        LEAD_SEAT,
        format!(
            "DO_TOOL: mcp__soulgrid__decide_permission {{\"request\":\"{request_id}\",\"decision\":\"allow\",\"reason\":\"{name} may write there\"}}"
        ),
    )
    .await;
    wait_for_secs(&state, 90, "the agent's write went through", |d| {
        request(d, &request_id).is_some_and(|p| p.state == PermissionState::Allowed)
            && thread(d, 1)
                .iter()
                .filter(|m| m.text.contains("Saw tool result (ok)"))
                .count()
                == 2
    })
    .await;
    assert_eq!(std::fs::read_to_string(&decided).unwrap(), "by the lead");
    let p = state
        .store
        .with_all_docs(|d| request(d, &request_id).cloned().unwrap());
    assert_eq!(p.decided_by, Some(Decider::Lead));
    assert_eq!(
        p.outcome(),
        format!("approved by the lead: {name} may write there")
    );
    soulgrid::shut_down(&state).await;
}
