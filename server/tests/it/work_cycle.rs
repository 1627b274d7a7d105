//! The work cycle through the running server with `soulgrid-sim`: every validated work-state
//! transition is one commit holding `_state.md`, a hostile git config in the folder holds up
//! nothing, a turn commits at most eight transitions, and the agent's own state commits are
//! validated like markers.

use crate::common;
use crate::knowledge::{lyra_id, send};

use std::path::Path;

use app::contract::CommitView;
use app::domain::docs::{identity, thread};
use app::domain::work_cycle::WorkState;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transition_is_one_commit_holding_its_state_file() {
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    send(
        &router,
        0,
        "SIM_STATE: bootstrap starting; inbox reading mail; distill thinking; deep_work the parser",
    )
    .await;
    wait_for(&state, "four commits", |d| {
        app::domain::knowledge::commits_of(d, &id).len() == 4
    })
    .await;
    // The server's history of the folder, in its own repository.
    let folder = dir.path().join("history/agent-0.git");
    let subjects = git(&folder, &["log", "--reverse", "--format=%s"]);
    assert_eq!(
        subjects.lines().collect::<Vec<_>>(),
        [
            "@Lyra: [STATE:bootstrap] starting",
            "@Lyra: [STATE:inbox] reading mail",
            "@Lyra: [STATE:distill] thinking",
            "@Lyra: [STATE:deep_work] the parser",
        ]
    );
    // Each commit holds the state file as it was at that state.
    let r = call(&router, get(&format!("/api/agents/{id}/commits"))).await;
    let commits: Vec<CommitView> = serde_json::from_str(&r.body).unwrap();
    assert_eq!(commits.len(), 4);
    for c in &commits {
        assert!(!c.by_agent);
        let shown = git(&folder, &["show", &format!("{}:_state.md", c.sha)]);
        let state_name = c.state.as_deref().unwrap();
        assert!(
            shown.contains(&format!("- work cycle: {state_name}\n")),
            "{state_name}: {shown}"
        );
    }
    assert!(commits[0].files.contains(&"_state.md".to_string()));
    state.store.with_all_docs(|d| {
        assert_eq!(
            identity(d, 0).unwrap().work_state,
            Some(WorkState::DeepWork)
        );
    });
    soulgrid::shut_down(&state).await;
}

/// The agent's `.git/config` includes a FIFO nobody writes: every git the server ran in the
/// folder waited out its 20 s timeout inside the read loop (a dismiss took 79 s). The server's
/// commit and its reading of the agent's commits run no git there: the transition is committed
/// at once and the dismiss is bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_git_config_in_the_folder_holds_up_no_commit_and_no_stop() {
    use std::os::unix::ffi::OsStrExt;
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    let git_dir = dir.path().join("agents/0/.git");
    let fifo = git_dir.join("never");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let config = git_dir.join("config");
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str("[include]\n\tpath = never\n[log]\n\tshowSignature = true\n");
    std::fs::write(&config, text).unwrap();
    send(&router, 0, "SIM_STATE: bootstrap starting").await;
    wait_for(&state, "the transition committed", |d| {
        app::domain::knowledge::commits_of(d, &id).len() == 1
    })
    .await;
    let t = std::time::Instant::now();
    let r = call(&router, post_json("/api/agents/0/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(15),
        "the dismiss took {:?}",
        t.elapsed()
    );
    soulgrid::shut_down(&state).await;
}

/// A turn that reports ten transitions gets eight commits (the cap a turn has) and says so;
/// every transition is applied all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_commits_at_most_eight_transitions_and_says_so() {
    let (_dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    send(
        &router,
        0,
        "SIM_STATE: bootstrap a; inbox b; distill c; deep_work d; inbox e; distill f; \
         deep_work g; inbox h; distill i; deep_work j",
    )
    .await;
    wait_for(&state, "the last transition applied", |d| {
        identity(d, 0).is_some_and(|i| {
            i.work_state == Some(WorkState::DeepWork)
                && i.last_problem
                    .as_ref()
                    .is_some_and(|p| p.message.contains("more than 8 work-state transitions"))
        })
    })
    .await;
    wait_for(&state, "eight commits", |d| {
        app::domain::knowledge::commits_of(d, &id).len() == 8
    })
    .await;
    // The commit task has nothing more queued: still eight once Lyra's next turn is done.
    send(&router, 0, "hello").await;
    wait_for(&state, "the next turn", |d| {
        thread(d, 0).iter().any(|m| m.text.contains("“hello"))
    })
    .await;
    state.store.with_all_docs(|d| {
        assert_eq!(app::domain::knowledge::commits_of(d, &id).len(), 8);
    });
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_own_state_commits_are_validated_like_markers() {
    let (dir, state, router) = common::team().await;
    let id = lyra_id(&state);
    // Out of order: the cycle starts with bootstrap.
    send(&router, 0, "SIM_COMMIT: deep_work skipping ahead").await;
    wait_for(&state, "the invalid commit said on the seat", |d| {
        identity(d, 0)
            .and_then(|i| i.last_problem.as_ref())
            .is_some_and(|p| {
                p.message
                    .contains("tried to start deep work before beginning its session")
                    && p.detail.as_deref().is_some_and(|d| {
                        d.contains("invalid work-cycle transition none -> deep_work")
                    })
            })
    })
    .await;
    state
        .store
        .with_all_docs(|d| assert_eq!(identity(d, 0).unwrap().work_state, None));
    send(&router, 0, "SIM_COMMIT: bootstrap first things first").await;
    wait_for(&state, "the valid one applied", |d| {
        identity(d, 0).unwrap().work_state == Some(WorkState::Bootstrap)
    })
    .await;
    let commits: Vec<CommitView> = serde_json::from_str(
        &call(&router, get(&format!("/api/agents/{id}/commits")))
            .await
            .body,
    )
    .unwrap();
    let mine: Vec<_> = commits
        .iter()
        .map(|c| (c.by_agent, c.state.as_deref(), c.summary.as_str()))
        .collect();
    assert_eq!(
        mine,
        [
            (true, Some("deep_work"), "skipping ahead"),
            (true, Some("bootstrap"), "first things first"),
        ]
    );
    let log = git(&dir.path().join("agents/0"), &["log", "--format=%s"]);
    assert_eq!(
        log.lines().count(),
        2,
        "no server commit for the agent's own: {log}"
    );
    soulgrid::shut_down(&state).await;
}
