//! A process can always be stopped, whatever it writes or does: a bad output line is skipped
//! and reading goes on; a stop is bounded (TERM, a grace, KILL) and takes the agent's whole
//! process group with it (Bash tool calls, background jobs). Driven by tiny fake CLIs, without
//! the sandbox (`--sandbox off`): these hold the containment that agents have when the kernel
//! allows no sandbox, and read the processes' own pids (a sandbox's are its own);
//! `sandbox.rs` holds the sandbox's.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use app::domain::docs::{identity, thread};
use app::domain::process::ProcessState;
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{alive, boot_with, call, fake_cli, group_members, post_json, wait_for, FAKE_TURN};
use serde_json::json;

/// The grace the tests give (`--stop-grace`); a stop must end within it plus this slack.
const GRACE: Duration = Duration::from_secs(1);
const SLACK: Duration = Duration::from_secs(3);
/// A sleep (dismiss, shutdown) first gives the agent its distil turn, at most this long
/// (`--distill-timeout`): a CLI that never answers it is stopped all the same.
const DISTIL: Duration = Duration::from_secs(1);

/// The pids a fake CLI wrote into `file` of the lead's folder, one per start.
fn pids(data: &Path, file: &str) -> Vec<u32> {
    std::fs::read_to_string(data.join("agents").join("4").join(file))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

async fn boot_fake(data: &Path, cli: &Path) -> soulgrid::state::AppState {
    boot_fake_with(data, cli, &[]).await
}

async fn boot_fake_with(data: &Path, cli: &Path, extra: &[&str]) -> soulgrid::state::AppState {
    let mut args = vec![
        "--claude-cmd",
        cli.to_str().unwrap(),
        "--stop-grace",
        "1s",
        "--distill-timeout",
        "1s",
        "--sandbox",
        "off",
    ];
    args.extend_from_slice(extra);
    boot_with(data, &args).await
}

fn lead_said(d: &app::domain::docs::Docs, text: &str) -> bool {
    thread(d, LEAD_SEAT).iter().any(|m| m.text.contains(text))
}

fn lead_stopped(d: &app::domain::docs::Docs, reason: &str) -> bool {
    identity(d, LEAD_SEAT).is_some_and(|l| {
        l.process_state == Some(ProcessState::Stopped)
            && l.process_reason
                .as_deref()
                .is_some_and(|r| r.contains(reason))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_output_lines_are_skipped_and_the_agent_can_still_be_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cli = fake_cli(
        dir.path(),
        "bad-lines",
        &format!(
            r#"{FAKE_TURN}
echo $$ >> cli.pids
while read -r line; do
  if [[ "$line" == *stderr-please* ]]; then
    echo '{{"type":"system","subtype":"init","session_id":"fake-session"}}'
    printf 'bad \xff\xfe stderr\n' >&2
    head -c 200000 /dev/zero | tr '\0' y >&2; echo >&2
    echo 'stderr goes on' >&2
    exit 2
  fi
  echo '{{"type":"system","subtype":"init","session_id":"fake-session"}}'
  printf '\xff\xfe{{"type":"assistant"}}\n'
  head -c 33554500 /dev/zero | tr '\0' x; echo
  turn "still here"
done"#
        ),
    );
    let state = boot_fake(&data, &cli).await;
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&state, "the line after the bad ones is read", |d| {
        lead_said(d, "still here")
    })
    .await;
    let errors = common::runtime_errors(&state, LEAD_SEAT).await;
    assert!(
        errors
            .iter()
            .any(|e| e.contains("a line of 22 bytes that is not UTF-8")),
        "the non-UTF-8 line is said once, with its length: {errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("a line of 33554500 bytes, longer than the limit")),
        "the over-long line is said once, with its length: {errors:?}"
    );
    assert_eq!(errors.len(), 2, "each said once: {errors:?}");
    assert!(
        errors
            .iter()
            .all(|e| !e.contains("xxx") && !e.contains('\u{fffd}')),
        "never its bytes"
    );

    // Still under control: a dismissal stops it, within its distil turn and the grace.
    let pid = pids(&data, "cli.pids")[0];
    assert!(alive(pid));
    let t = Instant::now();
    let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        t.elapsed() < DISTIL + GRACE + SLACK,
        "stopped in {:?}",
        t.elapsed()
    );
    assert!(!alive(pid), "the process is gone");
    assert!(state.store.with_all_docs(|d| lead_stopped(d, "dismissed")));

    // A long or non-UTF-8 stderr line does not end the draining: the last line is still read.
    call(
        &router,
        post_json("/api/send", json!({"text": "stderr-please"})),
    )
    .await;
    wait_for(&state, "the crash with the last stderr line", |d| {
        lead_stopped(d, "crashed with exit code 2: stderr goes on")
    })
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_is_bounded_and_takes_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Ignores TERM (so do its children), leaves a job running, never reads stdin again.
    let cli = fake_cli(
        dir.path(),
        "stubborn",
        &format!(
            r#"{FAKE_TURN}
trap '' TERM
echo $$ >> cli.pids
sleep 1000 &
echo $! >> job.pids
read -r first
turn "ready"
while true; do sleep 1; done"#
        ),
    );
    let state = boot_fake(&data, &cli).await;
    let router = soulgrid::http::router(state.clone());

    for (round, how) in ["dismiss", "shutdown"].into_iter().enumerate() {
        call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
        wait_for(&state, "the stubborn agent's turn", |d| {
            identity(d, LEAD_SEAT).is_some_and(|l| l.process_state == Some(ProcessState::Idle))
                && thread(d, LEAD_SEAT)
                    .iter()
                    .filter(|m| m.text == "ready")
                    .count()
                    == round + 1
        })
        .await;
        let (pid, job) = (
            pids(&data, "cli.pids")[round],
            pids(&data, "job.pids")[round],
        );
        assert!(alive(job), "its background job runs");
        assert!(
            group_members(pid).len() >= 2,
            "the CLI and its job share a group"
        );
        let t = Instant::now();
        match how {
            "dismiss" => {
                let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.body);
            }
            _ => soulgrid::shut_down(&state).await,
        }
        assert!(
            t.elapsed() < DISTIL + GRACE + SLACK,
            "{how} took {:?} with a process that ignores TERM and its distil turn",
            t.elapsed()
        );
        assert!(!alive(pid), "{how}: the CLI is gone");
        // The group was sent SIGKILL; the kernel ends its job a moment later (under load, not
        // always before the stop returns): gone within the bound all the same.
        common::wait_until(&format!("{how}: its background job gone"), || !alive(job)).await;
        assert!(
            t.elapsed() < DISTIL + GRACE + SLACK,
            "{how}: the job outlived the bound"
        );
        assert_eq!(
            group_members(pid),
            Vec::<u32>::new(),
            "{how}: the group is empty"
        );
        assert!(t.elapsed() >= GRACE, "{how}: it was given the grace first");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_flooding_its_output_can_be_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cli = fake_cli(
        dir.path(),
        "flood",
        &format!(
            r#"{FAKE_TURN}
echo $$ >> cli.pids
read -r first
turn "flooding"
exec yes '{{"type":"stream_event"}}'"#
        ),
    );
    let state = boot_fake(&data, &cli).await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    wait_for(&state, "the flood begins", |d| lead_said(d, "flooding")).await;
    let pid = pids(&data, "cli.pids")[0];
    let t = Instant::now();
    let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        t.elapsed() < DISTIL + GRACE + SLACK,
        "stopped in {:?}",
        t.elapsed()
    );
    assert!(!alive(pid));
    soulgrid::shut_down(&state).await;
}

/// Claude Code runs its Bash tool's shell detached (a session and process group of its own):
/// what it starts outlived a stop that killed the agent's group. In a cgroup (where the
/// machine has one) and by the scan alike, everything the agent started is gone after its
/// stop: a process in a session of its own, and one whose parent exited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_agent_starts_in_another_session_is_gone_after_its_stop() {
    for mode in ["auto", "scan"] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let cli = fake_cli(
            dir.path(),
            "detaching",
            &format!(
                r#"{FAKE_TURN}
read -r first
setsid sleep 1000 &
echo $! >> detached.pids
( setsid sleep 1000 & echo $! >> orphan.pids )
turn "started"
while read -r line; do turn "more"; done"#
            ),
        );
        let state = boot_fake_with(&data, &cli, &["--containment", mode]).await;
        let router = soulgrid::http::router(state.clone());
        call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
        wait_for(&state, "the turn that started them", |d| {
            lead_said(d, "started")
        })
        .await;
        let started: Vec<u32> = [pids(&data, "detached.pids"), pids(&data, "orphan.pids")].concat();
        assert_eq!(started.len(), 2, "{mode}");
        // With a cgroup to be had, `auto` uses it (the scan, which runs after the cgroup's
        // kill too, would pass this test alone).
        let in_cgroup = mode == "auto" && state.runtime.contained_by_cgroups();
        for pid in &started {
            let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
            assert_eq!(cgroup.contains("/soulgrid-"), in_cgroup, "{mode}: {cgroup}");
            assert!(alive(*pid), "{mode}: {pid} runs before the stop");
            assert!(
                group_members(*pid).contains(pid),
                "{mode}: in a group of its own"
            );
        }
        let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        for pid in started {
            common::wait_until(&format!("{mode}: {pid} gone after the dismiss"), || {
                !alive(pid)
            })
            .await;
        }
        soulgrid::shut_down(&state).await;
    }
}
