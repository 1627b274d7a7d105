//! Lifecycle edges against `soulgrid-sim`: eggs that never hatch, and agents whose process
//! cannot start.

use crate::common;

use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use app::domain::LEAD_SEAT;
use common::{all_agents, boot, call, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eggs_that_never_hatch_expire_after_five_minutes_and_their_process_stops() {
    let clock = soulgrid::clock::Clock::movable();
    let dir = tempfile::tempdir().unwrap();
    // The simulated agents take 10 s to answer: every seat is still an egg below.
    let state = common::boot_on(
        dir.path(),
        &["--claude-args", "--sim-latency-ms 10000"],
        clock.clone(),
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/agents/summon", json!({}))).await;
    let docs = state.store.snapshot().0;
    assert!(all_agents(&docs, AgentStatus::Hatching));
    let created = identity(&docs, 0).unwrap().created_at.unwrap();

    state.runtime.expire_hatching_now().await;
    assert!(
        all_agents(&state.store.snapshot().0, AgentStatus::Hatching),
        "not yet"
    );
    // Five minutes later, on the server's one clock: the runtime reads it, and the store
    // stamps the expiry event with it.
    clock.advance(std::time::Duration::from_millis(
        app::domain::HATCHING_TTL_MS as u64,
    ));
    assert!(clock.now_ms() >= created + app::domain::HATCHING_TTL_MS);
    state.runtime.expire_hatching_now().await;
    let docs = state.store.snapshot().0;
    assert!(all_agents(&docs, AgentStatus::Expired));
    assert!(
        state.runtime.running().is_empty(),
        "their summon processes were stopped"
    );
    // The grid offers SUMMON again, and the seats take new eggs.
    assert_eq!(
        app::domain::buttons::grid_button(&docs, false),
        app::domain::buttons::GridButton::Summon
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_for_an_agent_whose_process_cannot_start_is_relayed_through_the_lead() {
    let (dir, state, router) = common::team().await;
    call(&router, post_json("/api/session/end", json!({}))).await;
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "for when you wake", "targetAgent": "Wren"}),
        ),
    )
    .await;

    // Seat 2's working directory cannot be made (a file is in the way): its process cannot start.
    // (Moved aside in one rename: the server may be writing Wren's `_state.md` in it.)
    let work = dir.path().join("agents").join("2");
    std::fs::rename(&work, dir.path().join("agents").join("2-moved")).unwrap();
    std::fs::write(&work, "in the way").unwrap();
    let r = call(&router, post_json("/api/agents/wake", json!({}))).await;
    assert_eq!(r.json()["seats"].as_array().unwrap().len(), 7, "{}", r.body);
    let docs = state.store.snapshot().0;
    let wren = identity(&docs, 2).unwrap();
    assert!(
        wren.process_reason
            .as_deref()
            .unwrap()
            .starts_with("could not start"),
        "{wren:?}"
    );
    wait_for(&state, "the lead heard the waiting mail", |d| {
        thread(d, LEAD_SEAT).iter().any(|m| {
            m.text
                .contains("[ROUTE TO AGENT: Wren]\n[message from Marcus]\nfor when you wake")
        })
    })
    .await;

    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "are you there?", "targetAgent": "Wren"}),
        ),
    )
    .await;
    assert_eq!(r.json()["delivery"], "relayed", "{}", r.body);
    wait_for(&state, "the lead heard the new message", |d| {
        thread(d, LEAD_SEAT).iter().any(|m| {
            m.text
                .contains("[ROUTE TO AGENT: Wren]\n[message from Marcus]\nare you there?")
        })
    })
    .await;
    assert!(
        state
            .runtime
            .mailboxes()
            .unread("wren")
            .unwrap()
            .iter()
            .any(|m| m.text == "are you there?"),
        "kept for Wren"
    );
    soulgrid::shut_down(&state).await;
}

/// The Claude session each process of `seat` ran.
async fn started_sessions(state: &soulgrid::state::AppState, seat: u8) -> Vec<String> {
    common::started_sessions(state, seat, 0)
        .await
        .into_iter()
        .flatten()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn after_a_restart_agents_wake_fresh_and_the_lead_resumes_its_session() {
    let (dir, state, router) = common::team().await;
    call(
        &router,
        post_json("/api/send", json!({"text": "remember me"})),
    )
    .await;
    wait_for(&state, "the lead's answer", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("“remember me"))
    })
    .await;
    let docs = state.store.snapshot().0;
    let session_of = |seat| {
        identity(&docs, seat)
            .unwrap()
            .claude_session_id
            .clone()
            .unwrap()
    };
    let (seat0, lead) = (session_of(0), session_of(LEAD_SEAT));
    soulgrid::shut_down(&state).await;

    // The server restarts. WAKE gives every agent a fresh session (soul + transcript, as the
    // design says); the lead, started by its next message, resumes its own.
    let state = boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    assert!(all_agents(&state.store.snapshot().0, AgentStatus::Sleeping));
    call(&router, post_json("/api/agents/wake", json!({}))).await;
    wait_for(&state, "eight greetings", |d| {
        app::domain::agent_seats().all(|s| {
            thread(d, s)
                .iter()
                .filter(|m| m.text.starts_with("Hello. I am"))
                .count()
                == 1
        })
    })
    .await;
    let woken = started_sessions(&state, 0).await;
    assert!(
        woken.last().is_some_and(|s| *s != seat0),
        "a fresh session: {woken:?}"
    );
    call(
        &router,
        post_json("/api/send", json!({"text": "still you?"})),
    )
    .await;
    wait_for(&state, "the lead's answer after the restart", |d| {
        thread(d, LEAD_SEAT)
            .iter()
            .any(|m| m.text.contains("“still you?"))
    })
    .await;
    assert_eq!(
        started_sessions(&state, LEAD_SEAT).await.last(),
        Some(&lead)
    );
    let problem = state
        .store
        .with_all_docs(|d| identity(d, LEAD_SEAT).unwrap().last_problem.clone());
    assert_eq!(problem, None, "a resumed session is no problem");

    // A session the CLI no longer has: said so, and the lead starts afresh instead.
    std::fs::remove_file(dir.path().join("agents/4/.soulgrid-sim").join(&lead)).unwrap();
    call(&router, post_json("/api/session/end", json!({}))).await;
    call(&router, post_json("/api/send", json!({"text": "and now?"}))).await;
    wait_for(&state, "the lead in a fresh session, answering", |d| {
        identity(d, LEAD_SEAT)
            .is_some_and(|i| i.claude_session_id.as_ref().is_some_and(|s| *s != lead))
            && thread(d, LEAD_SEAT)
                .iter()
                .any(|m| m.text.contains("“and now?"))
    })
    .await;
    let problem = state
        .store
        .with_all_docs(|d| identity(d, LEAD_SEAT).unwrap().last_problem.clone())
        .unwrap();
    assert_eq!(
        problem.message,
        format!(
            "could not resume the last Claude session (crashed with exit code 1: No conversation found with session ID: {lead}); started a fresh one"
        )
    );
    soulgrid::shut_down(&state).await;
}

/// A shutdown waits for the server's background work after cancelling it: every watcher (mail,
/// worktrees, replies, state files, eggs, quests, budgets, the history's checkpoints) and every
/// request carried on in the background has ended when `shut_down` returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_returns_once_every_background_task_has_ended() {
    let (_dir, state, router) = common::team().await;
    call(
        &router,
        post_json("/api/send", json!({"text": "one more thing"})),
    )
    .await;
    assert!(
        state.runtime.tasks().running() > 0,
        "the watchers are on the tracker"
    );
    soulgrid::shut_down(&state).await;
    assert_eq!(
        state.runtime.tasks().running_at(),
        Vec::<String>::new(),
        "still running"
    );
    assert_eq!(state.runtime.tasks().running(), 0);
}
