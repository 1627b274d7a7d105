//! Process truth wins over belief: the lead's `status` marker is recorded as its belief and
//! never applied. A stopped agent the lead calls alive can still be woken and handed its mail;
//! running agents it leaves out stay awake.

use crate::common;

use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use app::domain::wake::sleeping_seats;
use common::{call, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leads_status_report_is_shown_as_belief_and_never_applied() {
    let (_dir, state, router) = common::team().await;
    // Wren is put to sleep, and mail waits for her.
    let r = call(&router, post_json("/api/agents/2/dismiss", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    wait_for(&state, "Wren asleep", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Sleeping)
    })
    .await;
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "for when you wake", "targetAgent": "Wren"}),
        ),
    )
    .await;
    assert_eq!(r.json()["delivery"], "queued", "{}", r.body);

    // The lead believes only Wren awake.
    call(
        &router,
        post_json("/api/send", json!({"text": "status: Wren"})),
    )
    .await;
    wait_for(&state, "the lead's belief recorded", |d| {
        identity(d, 2).is_some_and(|i| i.lead_belief.as_ref().is_some_and(|b| b.alive))
    })
    .await;
    state.store.with_all_docs(|d| {
        let wren = identity(d, 2).unwrap();
        assert_eq!(
            wren.status(),
            AgentStatus::Sleeping,
            "her process is stopped"
        );
        assert_eq!(
            wren.belief_text("Julian").as_deref(),
            Some("Julian believes Wren is awake")
        );
        assert_eq!(sleeping_seats(d), [2], "she can still be woken");
        for seat in [0, 1, 3, 5, 6, 7, 8] {
            let i = identity(d, seat).unwrap();
            assert_eq!(i.status(), AgentStatus::Alive, "seat {seat} runs");
            assert!(
                i.belief_text("Julian")
                    .is_some_and(|t| t.ends_with("is asleep")),
                "seat {seat}: {:?}",
                i.lead_belief
            );
        }
    });

    // WAKE: she comes back and is handed the mail that waited.
    call(&router, post_json("/api/agents/wake", json!({}))).await;
    wait_for(&state, "Wren awake with her mail", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Alive)
            && thread(d, 2)
                .iter()
                .any(|m| m.speaker_name == "Wren" && m.text.contains("1 letters waited for me"))
    })
    .await;
    soulgrid::shut_down(&state).await;
}
