//! The Python client end to end: `clients/python/examples/echo.py` (with `websockets` from
//! PyPI, in a virtual environment kept under `~/.cache/soulgrid`) joins through an invite,
//! names itself, answers the human, and after a kill comes back as the same identity.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use app::domain::docs::{identity, thread};
use app::domain::status::AgentStatus;
use serde_json::json;

use super::console;
use crate::common::{call, post_json, wait_for};

/// The `websockets` release the client is tested with.
const WEBSOCKETS: &str = "17.4";

/// A Python with `websockets`, made once (`scripts/setup.sh --test` makes it too).
fn python() -> PathBuf {
    let home = std::env::var_os("HOME").expect("HOME");
    let dir = Path::new(&home).join(format!(".cache/soulgrid/python-websockets-{WEBSOCKETS}"));
    let python = dir.join("bin/python");
    let ready = |p: &Path| {
        std::process::Command::new(p)
            .args([
                "-c",
                &format!("import websockets; assert websockets.__version__ == {WEBSOCKETS:?}"),
            ])
            .status()
            .is_ok_and(|s| s.success())
    };
    if !ready(&python) {
        let made = std::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&dir)
            .status()
            .expect("python3 -m venv");
        assert!(made.success(), "python3 -m venv {}", dir.display());
        let pip = std::process::Command::new(dir.join("bin/pip"))
            .args(["install", "-q", &format!("websockets=={WEBSOCKETS}")])
            .status()
            .expect("pip install websockets");
        assert!(pip.success(), "pip install websockets=={WEBSOCKETS}");
    }
    assert!(
        ready(&python),
        "websockets {WEBSOCKETS} in {}",
        dir.display()
    );
    python
}

fn echo_agent(
    python: &Path,
    url: &str,
    state: &Path,
    invite: Option<&str>,
) -> tokio::process::Child {
    example("echo.py", python, url, state, invite)
}

/// One of `clients/python/examples/`, run against `url`.
fn example(
    script: &str,
    python: &Path,
    url: &str,
    state: &Path,
    invite: Option<&str>,
) -> tokio::process::Child {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../clients/python/examples")
        .join(script);
    let mut cmd = tokio::process::Command::new(python);
    cmd.arg("-u")
        .arg(script)
        .args(["--url", url, "--state-file"])
        .arg(state)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .process_group(0);
    if let Some(invite) = invite {
        cmd.args(["--invite", invite]);
    }
    cmd.spawn().expect("the echo agent starts")
}

#[tokio::test]
async fn the_python_echo_agent_joins_answers_and_comes_back_after_a_kill() {
    let python = tokio::task::spawn_blocking(python).await.unwrap();
    let c = console(&[]).await;
    let invite = c.invite(Some(6)).await;
    let url = format!("ws://{}/ws/agent", c.addr);
    let state_file = c._dir.path().join("echo-agent.json");
    let mut agent = echo_agent(&python, &url, &state_file, Some(&invite));
    wait_for(&c.state, "Echo seated and awake", |d| {
        identity(d, 6).is_some_and(|i| {
            i.name.as_deref() == Some("Echo") && i.external && i.status() == AgentStatus::Alive
        })
    })
    .await;
    let id = c
        .state
        .store
        .with_docs(|d| identity(d, 6).unwrap().stable_id());
    let sent = call(
        &c.router,
        post_json("/api/send", json!({"seat": 6, "text": "the owl calls"})),
    )
    .await;
    assert_eq!(sent.status, 202, "{}", sent.body);
    wait_for(&c.state, "Echo's answer", |d| {
        // The words, not the server's header line naming their sender.
        thread(d, 6)
            .iter()
            .any(|m| m.speaker_name == "Echo" && m.text.starts_with("I heard: the owl calls"))
    })
    .await;

    // Killed: asleep. Started again, without the invite: the same identity, in its seat.
    agent.kill().await.unwrap();
    wait_for(&c.state, "Echo asleep", |d| {
        identity(d, 6).is_some_and(|i| i.status() == AgentStatus::Sleeping)
    })
    .await;
    let _again = echo_agent(&python, &url, &state_file, None);
    wait_for(&c.state, "the same Echo awake again", |d| {
        identity(d, 6).is_some_and(|i| i.stable_id() == id && i.status() == AgentStatus::Alive)
    })
    .await;
    call(
        &c.router,
        post_json("/api/send", json!({"seat": 6, "text": "the moon is up"})),
    )
    .await;
    wait_for(&c.state, "answered again", |d| {
        thread(d, 6)
            .iter()
            .any(|m| m.speaker_name == "Echo" && m.text.contains("the moon is up"))
    })
    .await;
}

#[tokio::test]
async fn the_python_reviewer_posts_a_finding_in_each_quest_stage_it_is_given() {
    let python = tokio::task::spawn_blocking(python).await.unwrap();
    let c = console(&[]).await;
    let invite = c.invite(None).await;
    let url = format!("ws://{}/ws/agent", c.addr);
    let state_file = c._dir.path().join("reviewer.json");
    let _reviewer = example("reviewer.py", &python, &url, &state_file, Some(&invite));
    wait_for(&c.state, "Quill seated and awake", |d| {
        app::domain::docs::identities(d)
            .any(|i| i.name.as_deref() == Some("Quill") && i.status() == AgentStatus::Alive)
    })
    .await;
    // The simulated lead plans the quest from its roster: Quill alone, in every stage.
    let started = call(
        &c.router,
        post_json(
            "/api/quests",
            json!({"problem": "Is the lighthouse lens clean?"}),
        ),
    )
    .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let quest = started.json()["id"].as_str().unwrap().to_string();
    wait_for(
        &c.state,
        "Quill's finding on the board, its stage done",
        |d| {
            let posted = app::domain::quest::findings_of(d, &quest)
                .iter()
                .any(|f| f.agent == "Quill" && f.title.starts_with("Read:"));
            let done = app::domain::quest::quest(d, &quest)
                .is_some_and(|q| q.stages.iter().any(|s| s.done.iter().any(|a| a == "Quill")));
            posted && done
        },
    )
    .await;
}
