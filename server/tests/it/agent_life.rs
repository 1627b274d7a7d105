//! An identity's life through the running server (with `soulgrid-sim`): `GET /api/agents/{id}`
//! tells its souls, sessions, ledger and lineage; SUMMON and WAKE can name their seats; a fork
//! that sleeps wakes with what it inherited.

use crate::common;

use app::contract::AgentView;
use app::domain::docs::{identity, thread};
use app::domain::process::ProcessState;
use app::domain::status::AgentStatus;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_api_tells_its_souls_sessions_ledger_and_lineage() {
    let (_dir, state, router) = common::team().await;
    let lyra = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    // A turn with a tool call (the sim runs Bash when asked).
    call(
        &router,
        post_json("/api/send", json!({"text": "SIM_TOOL please", "seat": 0})),
    )
    .await;
    // Its words come before the turn's end (the `result` line, which the ledger counts).
    wait_for(&state, "Lyra ran the tool and her turn ended", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.text.contains("I ran `echo hi`"))
            && identity(d, 0).is_some_and(|i| i.process_state == Some(ProcessState::Idle))
    })
    .await;
    let r = call(&router, get(&format!("/api/agents/{lyra}"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let v: AgentView = serde_json::from_str(&r.body).unwrap();
    assert_eq!(
        (v.id.as_str(), v.name.as_deref()),
        (lyra.as_str(), Some("Lyra"))
    );
    assert_eq!((v.status.as_str(), v.seat), ("alive", Some(0)));
    assert_eq!(v.souls.len(), 1);
    assert!(v.souls[0].text.contains("I am Lyra"));
    assert_eq!(v.sessions.len(), 1, "{:?}", v.sessions);
    let session = &v.sessions[0];
    assert_eq!((session.processes, session.ended_at), (1, None));
    // The summon turn and the tool turn; the sim reports 0.0012 a turn, in total.
    assert_eq!(v.ledger.turns, 2);
    assert_eq!(session.turns, 2);
    assert_eq!(v.ledger.tool_calls.get("Bash"), Some(&1));
    assert!(
        (v.ledger.cost_usd - 0.0024).abs() < 1e-9,
        "{}",
        v.ledger.cost_usd
    );
    assert!(v.ledger.input_tokens > 0 && v.ledger.output_tokens > 0);
    assert!(v.ledger.messages_sent >= 2 && v.ledger.messages_received >= 1);
    assert_eq!(v.lineage.id, lyra);
    assert!(v.children.is_empty() && v.parent_id.is_none());

    // Its soul shifts: a second version, the first kept.
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "SIM_SOUL: I keep the lighthouse now.", "seat": 0}),
        ),
    )
    .await;
    wait_for(&state, "a second soul version", |d| {
        identity(d, 0).is_some_and(|i| i.soul_version == 2)
    })
    .await;
    let v: AgentView = serde_json::from_str(
        &call(&router, get(&format!("/api/agents/{lyra}")))
            .await
            .body,
    )
    .unwrap();
    let versions: Vec<u32> = v.souls.iter().map(|s| s.version).collect();
    assert_eq!(versions, [1, 2]);
    assert!(v.souls[1].text.ends_with("I keep the lighthouse now."));
    assert!(!v.souls[0].text.contains("lighthouse"));

    // Put to sleep, the session says why it ended.
    call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    let r = call(&router, get(&format!("/api/agents/{lyra}"))).await;
    let v: AgentView = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v.sessions[0].end_reason.as_deref(), Some("dismissed"));

    let r = call(&router, get("/api/agents/nobody")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"].is_string());
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summon_and_wake_fill_only_the_seats_they_name() {
    let (_dir, state, router) = common::team().await;
    for seat in [2, 3] {
        let r = call(
            &router,
            post_json(&format!("/api/agents/{seat}/kill"), json!({})),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let r = call(
        &router,
        post_json("/api/agents/summon", json!({"seats": [2]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seats"], json!([2]));
    wait_for(&state, "a newcomer in seat 2", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Alive)
    })
    .await;
    state.store.with_all_docs(|d| {
        assert!(
            !identity(d, 3).unwrap().status().is_visible(),
            "seat 3 stays empty"
        )
    });
    let r = call(
        &router,
        post_json("/api/agents/summon", json!({"seats": [2]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    for bad in [
        json!({"seats": [4]}),
        json!({"seats": [9]}),
        json!({"seats": "all"}),
    ] {
        let r = call(&router, post_json("/api/agents/summon", bad.clone())).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.body);
    }

    // Two asleep; WAKE of one wakes that one.
    for seat in [0, 1] {
        call(
            &router,
            post_json(&format!("/api/agents/{seat}/dismiss"), json!({})),
        )
        .await;
    }
    wait_for(&state, "both asleep", |d| {
        [0, 1]
            .iter()
            .all(|&s| identity(d, s).unwrap().status() == AgentStatus::Sleeping)
    })
    .await;
    let r = call(
        &router,
        post_json("/api/agents/wake", json!({"seats": [1]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seats"], json!([1]));
    wait_for(&state, "seat 1 awake", |d| {
        identity(d, 1).unwrap().status() == AgentStatus::Alive
    })
    .await;
    assert!(!state.runtime.running().contains(&0), "seat 0 still asleep");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_fork_put_to_sleep_wakes_with_what_it_inherited() {
    let (dir, state, router) = common::team().await;
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "the harp has eleven strings", "seat": 0}),
        ),
    )
    .await;
    wait_for(&state, "Lyra answered", |d| {
        thread(d, 0)
            .iter()
            .any(|m| m.speaker_name == "Lyra" && m.text.contains("eleven strings"))
    })
    .await;
    call(&router, post_json("/api/agents/7/kill", json!({}))).await;
    let r = call(&router, post_json("/api/agents/0/fork", json!({}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["seat"], 7);
    wait_for(&state, "the fork hatched in seat 7", |d| {
        identity(d, 7).is_some_and(|c| c.status() == AgentStatus::Alive && c.parent_uuid.is_some())
    })
    .await;
    let (lyra, child) = state.store.with_all_docs(|d| {
        (
            identity(d, 0).unwrap().stable_id(),
            identity(d, 7).unwrap().stable_id(),
        )
    });
    let v: AgentView = serde_json::from_str(
        &call(&router, get(&format!("/api/agents/{lyra}")))
            .await
            .body,
    )
    .unwrap();
    assert_eq!(v.children, vec![child.clone()]);
    // The child resumed Lyra's session as a fork: hers is still hers alone.
    assert_eq!(v.sessions.len(), 1);
    assert_eq!((v.sessions[0].processes, v.sessions[0].ended_at), (1, None));
    let c: AgentView = serde_json::from_str(
        &call(&router, get(&format!("/api/agents/{child}")))
            .await
            .body,
    )
    .unwrap();
    assert_eq!(c.parent_id.as_deref(), Some(lyra.as_str()));
    // The fork point is the last message of Lyra's thread before the fork.
    let point = c
        .fork_point
        .and_then(|p| p.message_id)
        .expect("a fork point");
    let forked = state
        .store
        .events_after(0, 100_000)
        .await
        .unwrap()
        .into_iter()
        .find(|e| matches!(e.kind, app::domain::events::EventKind::AgentForked { .. }))
        .expect("the fork's event")
        .id;
    let before: Vec<String> = state.store.with_all_docs(|d| {
        let seat = app::domain::docs::identity_by_id(d, &lyra)
            .unwrap()
            .grid_position;
        app::domain::docs::thread(d, seat)
            .iter()
            .filter(|m| m.event_id < forked)
            .map(|m| m.id.clone())
            .collect()
    });
    assert_eq!(before.last(), Some(&point));
    assert_eq!(c.sessions.len(), 1);
    assert_ne!(
        c.sessions[0].claude_session_id,
        v.sessions[0].claude_session_id
    );

    // Asleep and woken: a fresh session, told what it carried from Lyra.
    call(&router, post_json("/api/agents/7/dismiss", json!({}))).await;
    wait_for(&state, "the fork asleep", |d| {
        identity(d, 7).unwrap().status() == AgentStatus::Sleeping
    })
    .await;
    call(
        &router,
        post_json("/api/agents/wake", json!({"seats": [7]})),
    )
    .await;
    wait_for(&state, "the fork awake again", |d| {
        thread(d, 7)
            .iter()
            .any(|m| m.text.starts_with("Hello. I am"))
    })
    .await;
    let got =
        std::fs::read_to_string(dir.path().join("agents/7/.soulgrid-sim/received.jsonl")).unwrap();
    let wake = got
        .lines()
        .rfind(|l| l.contains("You are waking up."))
        .unwrap();
    assert!(wake.contains("You began as a fork of Lyra"), "{wake}");
    assert!(wake.contains("the harp has eleven strings"), "{wake}");
    soulgrid::shut_down(&state).await;
}
