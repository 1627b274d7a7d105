//! A tool call that asks the runtime for something is answered once it is carried out, with
//! what happened (the seats a summon filled, where a recall sits, whether a message reached
//! its reader, a job's id) or why nothing did; a refusal is recorded once. Driven through the
//! simulated CLI, which calls the tool as the real one does and says the answer it got.

use crate::common;

use app::domain::docs::{identity, thread, Docs};
use app::domain::{Seat, LEAD_SEAT};
use axum::Router;
use common::{call, post_json, wait_for};
use serde_json::json;
use soulgrid::state::AppState;

/// Sends `text` to the agent in `seat` (the lead: 4) and waits for the tool's answer it says.
pub(crate) async fn ask(state: &AppState, router: &Router, seat: Seat, text: &str) -> String {
    let before = state.store.with_all_docs(|d| said(d, seat).len());
    let body = match seat {
        LEAD_SEAT => json!({ "text": text }),
        _ => json!({ "text": text, "seat": seat }),
    };
    let r = call(router, post_json("/api/send", body)).await;
    assert!(r.status.is_success(), "{}", r.body);
    wait_for(state, "the tool's answer, said", |d| {
        said(d, seat).len() > before
    })
    .await;
    state.store.with_all_docs(|d| said(d, seat)).pop().unwrap()
}

/// What the agent in `seat` said of its tools' answers, oldest first.
fn said(d: &Docs, seat: Seat) -> Vec<String> {
    thread(d, seat)
        .iter()
        .filter(|m| m.text.starts_with("Tool "))
        .map(|m| m.text.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_tool_call_is_answered_with_what_the_runtime_did() {
    let (_dir, state, router) = common::team().await;
    let kael = state
        .store
        .with_docs(|d| identity(d, 1).unwrap().name.clone().unwrap());

    // A full grid: the summon is refused with what to do instead, recorded once.
    let answer = ask(&state, &router, LEAD_SEAT, "SIM_CALL: summon {}").await;
    assert_eq!(
        answer,
        "Tool summon answered (error): no seat is empty: retire someone first"
    );
    assert_eq!(
        common::marker_errors(&state, LEAD_SEAT).await,
        ["no seat is empty: retire someone first"]
    );

    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!("SIM_CALL: retire {{\"agent\":\"{kael}\"}}"),
    )
    .await;
    assert_eq!(
        answer,
        format!("Tool retire answered (ok): {kael} is in the Hall now; recall brings it back.")
    );
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        "SIM_CALL: recall {\"agent\":\"Nobody\"}",
    )
    .await;
    assert!(
        answer.starts_with("Tool recall answered (error): nobody in the Hall is called \"Nobody\""),
        "{answer}"
    );
    // Seat 1 holds someone, seat 2 (Kael's) is empty: the answer names both.
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        "SIM_CALL: summon {\"seats\":[1,2]}",
    )
    .await;
    assert_eq!(
        answer,
        "Tool summon answered (ok): Summoned into seat 2 (seat 1 is not empty: nobody was \
         summoned there): each newborn is choosing its name; call team to see them."
    );

    // A message: to an awake agent, delivered; to the human, shown in the sender's thread.
    let lyra = state
        .store
        .with_docs(|d| identity(d, 0).unwrap().name.clone().unwrap());
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!("SIM_CALL: send_message {{\"to\":\"{lyra}\",\"text\":\"tea at five\"}}"),
    )
    .await;
    assert_eq!(
        answer,
        format!(
            "Tool send_message answered (ok): Delivered to {lyra}, who is awake and gets it now."
        )
    );
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: send_message {\"to\":\"human\",\"text\":\"the build is green\"}",
    )
    .await;
    assert!(
        answer.starts_with("Tool send_message answered (ok): Shown to "),
        "{answer}"
    );
    state.store.with_all_docs(|d| {
        assert!(thread(d, 0).iter().any(|m| m.text == "the build is green"));
    });

    // Anyone posts a job and gets its id; the others are offered it.
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: post_job {\"title\":\"Tidy the notes\",\"text\":\"Sort them by date.\"}",
    )
    .await;
    let id = answer
        .strip_prefix("Tool post_job answered (ok): Posted as job ")
        .and_then(|r| r.split(';').next())
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string();
    state.store.with_docs(|d| {
        assert!(d.contains_key(&app::domain::docs::job_doc_id(&id)), "{id}");
    });

    // The inbox, pulled: nothing waits (what came was handed over and taken).
    let answer = ask(&state, &router, 0, "SIM_CALL: check_mail {}").await;
    assert!(
        answer.starts_with("Tool check_mail answered (ok): "),
        "{answer}"
    );
    let answer = ask(&state, &router, 0, "SIM_CALL: read_mail {\"max\": 0}").await;
    assert!(
        answer.starts_with("Tool read_mail answered (error): read_mail needs max (integer)"),
        "{answer}"
    );
    soulgrid::shut_down(&state).await;
}

/// What an agent is doing names its tool as the console does everywhere: `send_message`, never
/// the CLI's `mcp__soulgrid__send_message` (its face said "using mcp__soulgrid__send_message").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_in_use_is_named_as_the_console_names_it() {
    let (_dir, state, router) = common::team().await;
    let after = state.store.last_event_id();
    ask(
        &state,
        &router,
        0,
        "SIM_CALL: send_message {\"to\":\"lead\",\"text\":\"hello\"}",
    )
    .await;
    let reasons: Vec<String> = state
        .store
        .events_after(after, 1_000_000)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            app::domain::events::EventKind::AgentProcess {
                seat: 0, reason, ..
            } => reason,
            _ => None,
        })
        .filter(|r| r.starts_with("using "))
        .collect();
    assert!(
        reasons.contains(&"using send_message".to_string()),
        "{reasons:?}"
    );
    assert!(reasons.iter().all(|r| !r.contains("mcp__")), "{reasons:?}");
    soulgrid::shut_down(&state).await;
}
