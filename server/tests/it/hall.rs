//! Retire and recall through the running server: a retired agent's process stops and its seat
//! empties; it waits in the Hall with its history; recall seats it in another empty seat and
//! wakes it with the mail that waited.

use crate::common;

use app::contract::HallEntry;
use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_retired_agent_waits_in_the_hall_and_is_recalled_into_another_seat() {
    let (_dir, state, router) = common::team().await;
    // Wren talks, then is retired.
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "remember the window", "seat": 2}),
        ),
    )
    .await;
    wait_for(&state, "Wren answers", |d| {
        thread(d, 2)
            .iter()
            .any(|m| m.speaker_name == "Wren" && m.text.contains("remember the window"))
    })
    .await;
    let r = call(
        &router,
        post_json("/api/agents/2/kill", json!({"cascade": false})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let retired = r.json()["retired"].as_array().unwrap().clone();
    assert_eq!(retired.len(), 1);
    let wren_id = retired[0].as_str().unwrap().to_string();
    assert!(!state.runtime.running().contains(&2), "its process stopped");
    state.store.with_all_docs(|d| {
        assert!(
            !identity(d, 2).unwrap().status().is_visible(),
            "the seat is empty"
        );
        assert!(thread(d, 2).is_empty());
    });
    let hall: Vec<HallEntry> =
        serde_json::from_str(&call(&router, get("/api/hall")).await.body).unwrap();
    assert_eq!(hall.len(), 1);
    assert_eq!(
        (hall[0].id.as_str(), hall[0].name.as_deref()),
        (wren_id.as_str(), Some("Wren"))
    );
    for (path, why) in [
        ("/api/agents/2/kill", "an empty seat"),
        ("/api/agents/4/kill", "the lead"),
    ] {
        let r = call(&router, post_json(path, json!({}))).await;
        assert_eq!(r.status, StatusCode::CONFLICT, "{why}: {}", r.body);
    }

    // Mail for her arrives while she is in the Hall.
    let inbox = state.runtime.mailboxes().path("wren").unwrap();
    common::external_append_text(&inbox, "Orin", "for Wren, wherever she is");
    let r = call(
        &router,
        post_json(&format!("/api/hall/{wren_id}/recall"), json!({"seat": 1})),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::CONFLICT,
        "seat 1 is taken: {}",
        r.body
    );
    let r = call(&router, post_json("/api/hall/nobody/recall", json!({}))).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);

    // Sable retires; Wren comes back in Sable's seat, with her history and her mail.
    call(&router, post_json("/api/agents/5/kill", json!({}))).await;
    let r = call(
        &router,
        post_json(&format!("/api/hall/{wren_id}/recall"), json!({"seat": 5})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seat"], 5);
    wait_for(
        &state,
        "Wren awake in seat 5 with the mail that waited",
        |d| {
            identity(d, 5).is_some_and(|i| {
                i.name.as_deref() == Some("Wren") && i.status() == AgentStatus::Alive
            }) && thread(d, 5).iter().any(|m| {
                m.speaker_name == "Wren"
                    && m.text.contains("1 letters waited for me")
                    && m.text.contains("for Wren, wherever she is")
            })
        },
    )
    .await;
    state.store.with_all_docs(|d| {
        assert!(
            thread(d, 5).iter().any(|m| m.text == "remember the window"),
            "her earlier thread came with her"
        );
        let hall: Vec<_> = app::domain::docs::hall(d).map(|h| h.name.clone()).collect();
        assert_eq!(hall, [Some("Sable".to_string())]);
    });
    common::assert_no_impossible_transitions(&state);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lead_retires_and_recalls_by_marker() {
    let (_dir, state, router) = common::team().await;
    call(
        &router,
        post_json("/api/send", json!({"text": "kill: Kael"})),
    )
    .await;
    wait_for(&state, "Kael in the Hall", |d| {
        app::domain::docs::hall(d).any(|h| h.name.as_deref() == Some("Kael"))
            && !identity(d, 1).unwrap().status().is_visible()
    })
    .await;
    call(
        &router,
        post_json("/api/send", json!({"text": "recall: kael"})),
    )
    .await;
    wait_for(&state, "Kael back in his seat, awake", |d| {
        identity(d, 1)
            .is_some_and(|i| i.name.as_deref() == Some("Kael") && i.status() == AgentStatus::Alive)
            && app::domain::docs::hall(d).next().is_none()
    })
    .await;
    // Someone not in the Hall: said on the lead's seat.
    call(
        &router,
        post_json("/api/send", json!({"text": "recall: Nobody"})),
    )
    .await;
    wait_for(&state, "the lead told why", |d| {
        identity(d, app::domain::LEAD_SEAT)
            .and_then(|l| l.last_problem.as_ref())
            .is_some_and(|p| {
                p.detail
                    .as_deref()
                    .is_some_and(|d| d.contains("recall Nobody"))
            })
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_waits_for_the_parents_turn_then_hatches_from_its_session() {
    let (dir, state, router) = common::team_with(&["--claude-args", "--sim-latency-ms 300"]).await;
    // A full grid: nothing is made.
    let before = state.store.last_event_id();
    let r = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("no seat is empty"));
    assert_eq!(
        common::count_events(&state, |k| matches!(
            k,
            app::domain::events::EventKind::AgentForked { .. }
        ))
        .await,
        0
    );
    let _ = before;
    // Kael retires; Lyra is in the middle of a turn when she is forked.
    call(&router, post_json("/api/agents/1/kill", json!({}))).await;
    let lyra_id = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    let r = call(
        &router,
        post_json("/api/send", json!({"text": "a long thought", "seat": 0})),
    )
    .await;
    assert_eq!(r.json()["delivery"], "delivered", "{}", r.body);
    let r = call(
        &router,
        post_json("/api/agents/0/fork", json!({"prompt": "hello, child"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seat"], 1);
    wait_for(
        &state,
        "the child hatched in seat 1 with a name of its own",
        |d| {
            identity(d, 1).is_some_and(|c| {
                c.status() == AgentStatus::Alive
                    && c.parent_uuid.as_deref() == Some(lyra_id.as_str())
                    && c.name.as_deref().is_some_and(|n| n != "Lyra")
            })
        },
    )
    .await;
    // The barrier: the fork is recorded after the parent's turn ended, and said meanwhile.
    let events = state.store.events_after(0, 100_000).await.unwrap();
    let at = |f: &dyn Fn(&app::domain::events::EventKind) -> bool| {
        events.iter().position(|e| f(&e.kind)).unwrap_or(usize::MAX)
    };
    use app::domain::events::EventKind;
    let waiting = at(
        &|k| matches!(k, EventKind::AgentProcess { seat: 0, reason: Some(r), .. } if r == "forking after this turn"),
    );
    let forked = at(&|k| matches!(k, EventKind::AgentForked { .. }));
    let answered = at(
        &|k| matches!(k, EventKind::AgentMessage { seat: 0, text, .. } if text.contains("a long thought")),
    );
    assert!(
        waiting < answered && answered < forked,
        "{waiting} < {answered} < {forked}"
    );
    // The child was started from the parent's Claude session, as a fork, with the letter.
    let parent_session = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().claude_session_id.clone())
        .unwrap();
    let from =
        std::fs::read_to_string(dir.path().join("agents/1/.soulgrid-sim/forked-from")).unwrap();
    assert_eq!(from, parent_session);
    let got =
        std::fs::read_to_string(dir.path().join("agents/1/.soulgrid-sim/received.jsonl")).unwrap();
    assert!(
        got.contains("a fork of Lyra") && got.contains("hello, child"),
        "{got}"
    );
    soulgrid::shut_down(&state).await;
}

/// The lead's `kill` marker with `"cascade": true` retires the descendants too, as the HTTP
/// route does (the marker's flag was dropped on the way: the child was re-parented instead).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leads_kill_marker_keeps_its_cascade() {
    let (_dir, state, router) = common::team().await;
    call(&router, post_json("/api/agents/3/kill", json!({}))).await;
    let r = call(&router, post_json("/api/agents/1/fork", json!({}))).await;
    let child = r.json()["seat"].as_u64().unwrap() as u8;
    wait_for(&state, "Kael's child", |d| {
        identity(d, child).is_some_and(|c| c.status() == AgentStatus::Alive)
    })
    .await;
    call(
        &router,
        post_json("/api/send", json!({"text": "kill-all: Kael"})),
    )
    .await;
    wait_for(&state, "Kael and his child in the Hall", |d| {
        !identity(d, 1).unwrap().status().is_visible()
            && !identity(d, child).unwrap().status().is_visible()
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cascade_retires_a_three_level_branch_deepest_first() {
    let (_dir, state, router) = common::team().await;
    // Room for two forks: Orin and Sable leave.
    for s in [3, 5] {
        call(
            &router,
            post_json(&format!("/api/agents/{s}/kill"), json!({})),
        )
        .await;
    }
    let r = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    let child = r.json()["seat"].as_u64().unwrap() as u8;
    wait_for(&state, "the child", |d| {
        identity(d, child).is_some_and(|c| c.status() == AgentStatus::Alive)
    })
    .await;
    let r = call(
        &router,
        post_json(&format!("/api/agents/{child}/fork"), json!({})),
    )
    .await;
    let grandchild = r.json()["seat"].as_u64().unwrap() as u8;
    wait_for(&state, "the grandchild", |d| {
        identity(d, grandchild).is_some_and(|c| c.status() == AgentStatus::Alive)
    })
    .await;
    let ids: Vec<String> = state.store.with_all_docs(|d| {
        [grandchild, child, 0]
            .iter()
            .map(|&s| identity(d, s).unwrap().stable_id())
            .collect()
    });
    let r = call(
        &router,
        post_json("/api/agents/0/kill", json!({"cascade": true})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let retired: Vec<String> = serde_json::from_value(r.json()["retired"].clone()).unwrap();
    assert_eq!(retired, ids, "deepest first");
    state.store.with_all_docs(|d| {
        for s in [0, child, grandchild] {
            assert!(
                !identity(d, s).unwrap().status().is_visible(),
                "seat {s} empty"
            );
        }
        assert!(identity(d, 1).unwrap().status().is_visible(), "others stay");
    });
    soulgrid::shut_down(&state).await;
}

/// With every seat taken, a recall and a fork take the seat of the agent asleep longest,
/// which goes to the Hall asleep (said in the answer and as its reason there); with nobody
/// asleep, the refusal says what would make room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_grid_full_a_newcomer_takes_the_seat_of_the_agent_asleep_longest() {
    let (_dir, state, router) = common::team().await;
    let kael = call(&router, post_json("/api/agents/1/kill", json!({}))).await;
    let kael = kael.json()["retired"][0].as_str().unwrap().to_string();
    call(
        &router,
        post_json("/api/agents/summon", json!({"seats": [1]})),
    )
    .await;
    wait_for(&state, "a newborn named in seat 1", |d| {
        identity(d, 1).is_some_and(|i| i.has_name() && i.status() == AgentStatus::Alive)
    })
    .await;
    // Wren (seat 2) sleeps first, then Sable (seat 5).
    for seat in [2, 5] {
        let r = call(
            &router,
            post_json(&format!("/api/agents/{seat}/dismiss"), json!({})),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let recalled = call(
        &router,
        post_json(&format!("/api/hall/{kael}/recall"), json!({})),
    )
    .await;
    assert_eq!(recalled.status, StatusCode::ACCEPTED, "{}", recalled.body);
    assert_eq!(recalled.json(), json!({"seat": 2, "madeRoom": "Wren"}));
    let hall: Vec<HallEntry> =
        serde_json::from_str(&call(&router, get("/api/hall")).await.body).unwrap();
    let wren = hall
        .iter()
        .find(|e| e.name.as_deref() == Some("Wren"))
        .unwrap();
    assert_eq!(
        wren.reason.as_deref(),
        Some("went to the Hall asleep to make room for Kael")
    );
    let forked = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    assert_eq!(forked.status, StatusCode::ACCEPTED, "{}", forked.body);
    assert_eq!(forked.json(), json!({"seat": 5, "madeRoom": "Sable"}));
    // Everyone seated is awake (or hatching): nobody goes.
    wait_for(&state, "Kael awake in seat 2", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Alive)
    })
    .await;
    let refused = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert_eq!(
        refused.json()["error"],
        "no seat is empty and nobody seated sleeps: put someone to sleep (who sleeps longest \
         makes room) or retire someone"
    );
    soulgrid::shut_down(&state).await;
}
