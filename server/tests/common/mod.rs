//! Helpers shared by the server's integration tests.
#![allow(dead_code)]

mod external;
pub mod fake_model;
mod http;
pub mod locks;
mod on;
pub mod pg;
mod processes;
mod servers;
// The store tests' only (the real-CLI binary includes this module too).
#[allow(unused_imports)]
pub use on::{assert_each_acknowledged_once, assert_gap_free, session_kinds, On};
pub mod proxy;
pub mod real_cli;
pub mod recorded;

// Each test binary uses some of these.
#[allow(unused_imports)]
pub use external::{external_append, external_append_batch, external_append_text};
#[allow(unused_imports)]
pub use http::{
    call, call_anonymous, get, get_with, import_soul, parse_sse, post_json, Reply, Sse,
};
#[allow(unused_imports)]
pub use processes::{alive, fake_cli, from_a_child, group_members, FAKE_TURN};
#[allow(unused_imports)]
pub use servers::{free_port, raw_exchange, raw_request, server_env, Served, ServerProcess};

use std::path::Path;

use axum::Router;
use clap::Parser;
use leptos::prelude::LeptosOptions;
use serde_json::Value;
use soulgrid::config::Config;
use soulgrid::state::AppState;

/// git as a test runs it on its own repositories: no system or user configuration, a fixed
/// author; panics with git's words when it fails. Its output, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=Tester", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The human's login every test server is given (`--token`, `SOULGRID_TOKEN`); the tests'
/// requests carry it as a browser carries its cookie (`http::call`, `raw_request`).
pub const TOKEN: &str = "test-login-token";
/// [`TOKEN`] as an `Authorization` header's value.
pub const BEARER: &str = "Bearer test-login-token";

pub fn config(data_dir: &Path, extra: &[&str]) -> Config {
    let mut args = vec![
        "soulgrid".to_string(),
        "--data-dir".into(),
        data_dir.display().to_string(),
    ];
    if !extra.iter().any(|a| a.starts_with("--token")) {
        args.extend(["--token".into(), TOKEN.into()]);
    }
    if !extra.contains(&"--human-name") {
        args.extend(["--human-name".into(), "Marcus".into()]);
    }
    // A CLI that never answers its distil turn holds a stop this long at most.
    if !extra.contains(&"--distill-timeout") {
        args.extend(["--distill-timeout".into(), "3s".into()]);
    }
    if !extra.contains(&"--claude-cmd") {
        args.extend([
            "--claude-cmd".into(),
            env!("CARGO_BIN_EXE_soulgrid-sim").into(),
        ]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    Config::try_parse_from(args).unwrap()
}

pub async fn boot(data_dir: &Path) -> AppState {
    boot_with(data_dir, &[]).await
}

pub async fn boot_with(data_dir: &Path, extra: &[&str]) -> AppState {
    boot_on(data_dir, extra, soulgrid::clock::Clock::system()).await
}

/// As [`boot_with`], on `clock` (a movable one moves the store, the runtime and the mailboxes).
pub async fn boot_on(data_dir: &Path, extra: &[&str], clock: soulgrid::clock::Clock) -> AppState {
    // A server restarted in this process can find the data directory's lock still held for a
    // moment: the tests beside it start processes all the time, and a child between its fork
    // and its exec holds a copy of every descriptor, the lock's too (close-on-exec closes it
    // only at the exec). A holder that is another process is an error at once.
    let ours = format!("(pid {})", std::process::id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let options = LeptosOptions::builder().output_name("soulgrid").build();
        match soulgrid::boot_with_clock(&config(data_dir, extra), options, clock.clone()).await {
            Ok(state) => return state,
            Err(e) if e.to_string().contains(&ours) && std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            Err(e) => panic!("booting the server failed: {e:?}"),
        }
    }
}

/// Whether every one of the eight agent seats has `status`.
pub fn all_agents(
    docs: &app::domain::docs::Docs,
    status: app::domain::status::AgentStatus,
) -> bool {
    app::domain::agent_seats()
        .all(|s| app::domain::docs::identity(docs, s).is_some_and(|d| d.status() == status))
}

/// The JSON body of a raw response.
pub fn body_json(reply: &str) -> Option<Value> {
    let body = reply.split_once("\r\n\r\n")?.1;
    serde_json::from_str(body).ok()
}

/// Polls the documents until `check` holds; panics with `what` after 20 s.
pub async fn wait_for(
    state: &AppState,
    what: &str,
    check: impl Fn(&app::domain::docs::Docs) -> bool,
) {
    wait_for_secs(state, 20, what, check).await
}

/// As [`wait_for`], with its own limit.
pub async fn wait_for_secs(
    state: &AppState,
    secs: u64,
    what: &str,
    check: impl Fn(&app::domain::docs::Docs) -> bool,
) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if state.store.with_all_docs(|d| check(d)) {
            return;
        }
        if std::time::Instant::now() > deadline {
            let docs = state.store.snapshot().0;
            panic!("timed out waiting for: {what}\n{docs:#?}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Polls `check` (anything outside the documents: files, inboxes) until it holds; panics with
/// `what` after 20 s.
pub async fn wait_until(what: &str, check: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !check() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// How many events of the whole log `matches` accepts.
pub async fn count_events(
    state: &AppState,
    matches: impl Fn(&app::domain::events::EventKind) -> bool,
) -> usize {
    state
        .store
        .events_after(0, 100_000)
        .await
        .unwrap()
        .iter()
        .filter(|e| matches(&e.kind))
        .count()
}

/// SUMMON through the API, then waits until all eight agents are alive.
pub async fn summon_team(state: &AppState, router: &Router) {
    call(
        router,
        post_json("/api/agents/summon", serde_json::json!({})),
    )
    .await;
    wait_for(state, "eight agents alive", |d| {
        all_agents(d, app::domain::status::AgentStatus::Alive)
    })
    .await;
    assert_no_impossible_transitions(state);
}

/// The runtime only ever reports transitions of the process machine (the reducer refuses and
/// says any other on the seat).
pub fn assert_no_impossible_transitions(state: &AppState) {
    state.store.with_all_docs(|d| {
        for i in app::domain::docs::identities(d) {
            let problem = i.last_problem.as_ref().map(|p| p.message.as_str());
            assert!(
                !problem.is_some_and(|p| p.contains("impossible process transition")),
                "seat {}: {problem:?}",
                i.grid_position
            );
        }
    });
}

/// A simulated server in a fresh folder with all eight agents summoned and alive.
pub async fn team() -> (tempfile::TempDir, AppState, Router) {
    team_with(&[]).await
}

/// As [`team`], with extra flags.
pub async fn team_with(extra: &[&str]) -> (tempfile::TempDir, AppState, Router) {
    team_on(extra, soulgrid::clock::Clock::system()).await
}

/// As [`team_with`], on `clock`.
pub async fn team_on(
    extra: &[&str],
    clock: soulgrid::clock::Clock,
) -> (tempfile::TempDir, AppState, Router) {
    let dir = tempfile::tempdir().unwrap();
    let state = boot_on(dir.path(), extra, clock).await;
    let router = soulgrid::http::router(state.clone());
    summon_team(&state, &router).await;
    (dir, state, router)
}

/// Runtime errors recorded for `seat`, oldest first.
pub async fn runtime_errors(state: &AppState, seat: u8) -> Vec<String> {
    seat_events(state, seat, |k| match k {
        app::domain::events::EventKind::RuntimeError { message, .. } => Some(message),
        _ => None,
    })
    .await
}

/// Refusals (`marker_error`) recorded on `seat`, oldest first.
pub async fn marker_errors(state: &AppState, seat: u8) -> Vec<String> {
    seat_events(state, seat, |k| match k {
        app::domain::events::EventKind::MarkerError { error, .. } => Some(error),
        _ => None,
    })
    .await
}

/// What `pick` takes of the events recorded on `seat`, oldest first.
async fn seat_events(
    state: &AppState,
    seat: u8,
    pick: impl Fn(app::domain::events::EventKind) -> Option<String>,
) -> Vec<String> {
    state
        .store
        .events_after(0, 100_000)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.kind.seat() == Some(seat))
        .filter_map(|e| pick(e.kind))
        .collect()
}

/// The Claude session of every process started for `seat` after event `after`, in order.
pub async fn started_sessions(state: &AppState, seat: u8, after: u64) -> Vec<Option<String>> {
    state
        .store
        .events_after(after, 100_000)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            app::domain::events::EventKind::AgentProcess {
                seat: s,
                state: app::domain::process::ProcessState::Starting,
                claude_session_id,
                ..
            } if s == seat => Some(claude_session_id),
            _ => None,
        })
        .collect()
}

/// Waits until every agent has greeted the human after a WAKE of the simulated team.
pub async fn wait_for_greetings(state: &AppState) {
    wait_for(state, "eight greetings", |d| {
        app::domain::agent_seats().all(|s| {
            app::domain::docs::thread(d, s)
                .iter()
                .any(|m| m.text.contains("I remember writing"))
        })
    })
    .await;
    // After a session end and a WAKE: every process went through its machine.
    assert_no_impossible_transitions(state);
}
