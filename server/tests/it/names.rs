//! Names through the running server: agents that all ask for one name get it once (the others
//! are told why and choose again), every name gets an inbox of its own that can be written to,
//! sending addresses a seat, and a human called `first.last` keeps a working inbox.

use crate::common;

use app::domain::docs::{identity, thread, Docs};
use app::domain::events::EventKind;
use app::domain::names::fold;
use app::domain::process::ProcessState;
use app::domain::status::AgentStatus;
use common::{call, post_json, wait_for};
use serde_json::json;

fn names(d: &Docs) -> Vec<String> {
    app::domain::agent_seats()
        .filter_map(|s| identity(d, s).and_then(|i| i.name.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_newborns_asking_for_one_name_get_it_once_and_each_can_be_written_to() {
    let (_dir, state, router) = common::team_with(&["--claude-args", "--sim-name Zoë"]).await;
    let all = state.store.with_all_docs(names);
    assert_eq!(all.iter().filter(|n| *n == "Zoë").count(), 1, "{all:?}");
    let mut folded: Vec<String> = all.iter().map(|n| fold(n)).collect();
    folded.sort();
    folded.dedup();
    assert_eq!(folded.len(), 8, "eight distinct names: {all:?}");
    let refused = common::count_events(&state, |k| {
        matches!(k, EventKind::MarkerError { error, .. } if error.contains("the name is taken"))
    })
    .await;
    assert_eq!(refused, 7, "the seven others were told why");

    // Each seat is written to by seat: the message lands in its own inbox and thread.
    for seat in app::domain::agent_seats() {
        let r = call(
            &router,
            post_json(
                "/api/send",
                json!({"text": format!("hello seat {seat}"), "seat": seat}),
            ),
        )
        .await;
        assert_eq!(r.status, 202, "seat {seat}: {}", r.body);
        assert_eq!(r.json()["seat"], seat);
    }
    wait_for(&state, "every agent answers its own message", |d| {
        app::domain::agent_seats().all(|s| {
            thread(d, s).iter().any(|m| {
                m.speaker_type == app::domain::docs::SpeakerType::Agent
                    && m.text.contains(&format!("hello seat {s}"))
            })
        })
    })
    .await;
    let zoe = state
        .store
        .with_all_docs(|d| {
            app::domain::agent_seats()
                .find(|&s| identity(d, s).and_then(|i| i.name.as_deref()) == Some("Zoë"))
        })
        .unwrap();
    let inbox = state.runtime.mailboxes().path("zoe").unwrap();
    let text = std::fs::read_to_string(inbox).unwrap();
    assert!(text.contains(&format!("hello seat {zoe}")), "{text}");
    // A name, folded, still finds its agent.
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "by name", "targetAgent": "ZOE"}),
        ),
    )
    .await;
    assert_eq!(r.json()["seat"], zoe, "{}", r.body);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newborn_refused_twice_is_stopped_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot_with(
        dir.path(),
        &["--claude-args", "--sim-name Lyra --sim-stubborn"],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/agents/summon", json!({}))).await;
    wait_for(&state, "one Lyra; seven stopped eggs", |d| {
        let stopped = app::domain::agent_seats()
            .filter(|&s| {
                identity(d, s).is_some_and(|i| {
                    i.status() == AgentStatus::Hatching
                        && i.process_state == Some(ProcessState::Stopped)
                        && i.process_reason.as_deref() == Some("chose no name it could have")
                })
            })
            .count();
        names(d) == ["Lyra"] && stopped == 7
    })
    .await;
    let problem = state.store.with_all_docs(|d| {
        app::domain::agent_seats()
            .filter_map(|s| identity(d, s)?.last_problem.clone())
            .map(|p| p.message)
            .collect::<Vec<_>>()
    });
    assert!(
        problem.iter().all(|p| p.contains("the name is taken")),
        "{problem:?}"
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_called_first_dot_last_keeps_a_working_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot_with(dir.path(), &["--human-name", "first.last"]).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "hello lead"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let inbox = dir.path().join("teams/soulgrid/inboxes/first-last.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_to_string(&inbox).is_ok_and(|t| t.contains("“hello lead")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the lead's answer is filed in first-last.json"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Another program writes to the human: it is shown.
    common::external_append_text(&inbox, "Someone", "a note for First.last");
    wait_for(&state, "the note shown", |d| {
        thread(d, app::domain::LEAD_SEAT)
            .iter()
            .any(|m| m.text == "a note for First.last")
    })
    .await;
    soulgrid::shut_down(&state).await;
}
