//! The real CLI at work on a project: put to work, it restarts with its worktree added
//! (`--add-dir`); under `acceptEdits` its Write tool writes there without asking, while a write
//! elsewhere in the project is asked for; it commits with Bash; the diff shows its work.

use crate::common;

use app::domain::docs::{identity, pending, thread, Docs, SpeakerType};
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{call, get, git, post_json, wait_for_secs};
use serde_json::json;

fn lead_said(d: &Docs, words: &str) -> usize {
    thread(d, LEAD_SEAT)
        .iter()
        .filter(|m| m.speaker_type == SpeakerType::Lead && m.text.contains(words))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_real_cli_writes_and_commits_in_its_worktree_and_nowhere_else() {
    let Some(cli) = common::real_cli::setup().await else {
        return;
    };
    let code = cli.dir.path().join("code");
    let web = code.join("web");
    std::fs::create_dir_all(&web).unwrap();
    git(&web, &["init", "-q", "-b", "main"]);
    std::fs::write(web.join("README.md"), "# web\n").unwrap();
    git(&web, &["add", "-A"]);
    git(&web, &["commit", "-q", "-m", "first"]);
    let data = cli.dir.path().join("data");
    let state = common::boot_with(
        &data,
        &[
            "--claude-cmd",
            &cli.claude,
            "--claude-args=--permission-mode acceptEdits --allowedTools Bash(git:*)",
            "--permissions",
            "ui",
            "--allow-dir",
            code.to_str().unwrap(),
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    let send = |text: String| {
        let router = router.clone();
        async move {
            let r = call(&router, post_json("/api/send", json!({ "text": text }))).await;
            assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        }
    };
    // The lead starts, has a name, and is put to work.
    send("hello".into()).await;
    wait_for_secs(&state, 90, "the lead's first answer", |d| {
        identity(d, LEAD_SEAT).is_some_and(|i| i.has_name()) && lead_said(d, "") > 0
    })
    .await;
    let r = call(&router, post_json("/api/projects", json!({"path": web}))).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let project = r.json()["id"].as_str().unwrap().to_string();
    let lead = state
        .store
        .with_docs(|d| identity(d, LEAD_SEAT).unwrap().stable_id());
    let before = state.store.last_event_id();
    let r = call(
        &router,
        post_json(
            &format!("/api/projects/{project}/agents"),
            json!({"agent": lead}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let tree = std::path::PathBuf::from(r.json()["path"].as_str().unwrap());
    // Put to sleep, to start again with the worktree at its next message (its session resumed).
    wait_for_secs(&state, 90, "the lead asleep", |d| {
        identity(d, LEAD_SEAT)
            .is_some_and(|i| i.process_state == Some(app::domain::process::ProcessState::Stopped))
    })
    .await;
    let _ = before;
    // Its Write tool writes in its worktree without asking anyone.
    let oks = state
        .store
        .with_all_docs(|d| lead_said(d, "Saw tool result (ok)"));
    send(format!(
        "DO_WRITE: {} :: hello from the worktree\n",
        tree.join("hello.txt").display()
    ))
    .await;
    wait_for_secs(&state, 90, "the write in the worktree", |d| {
        lead_said(d, "Saw tool result (ok)") > oks
    })
    .await;
    assert!(
        state
            .store
            .with_all_docs(|d| pending(d, LEAD_SEAT).is_empty()),
        "nothing was asked"
    );
    assert_eq!(
        std::fs::read_to_string(tree.join("hello.txt"))
            .unwrap()
            .trim_end(),
        "hello from the worktree"
    );
    // A write in the project outside its worktree is asked for (and denied here).
    let outside = web.join("outside.txt");
    send(format!("DO_WRITE: {} :: no\n", outside.display())).await;
    wait_for_secs(&state, 90, "the write outside asked for", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    let id = state
        .store
        .with_all_docs(|d| pending(d, LEAD_SEAT)[0].request_id.clone());
    let r = call(
        &router,
        post_json(
            &format!("/api/permissions/{id}"),
            json!({"decision": "deny", "message": "not there"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    wait_for_secs(&state, 90, "the denial read", |d| {
        lead_said(d, "Saw tool result (error): not there") > 0
    })
    .await;
    assert!(!outside.exists());

    // It commits with Bash (git is allowed by the rule given); the diff shows the commit.
    let oks = state
        .store
        .with_all_docs(|d| lead_said(d, "Saw tool result (ok)"));
    let wt = tree.display().to_string();
    send(format!(
        "DO_BASH: git -C {wt} add hello.txt && git -C {wt} -c user.name=Lead -c user.email=lead@example.com commit -q -m 'hello, committed'"
    ))
    .await;
    wait_for_secs(&state, 90, "the commit", |d| {
        lead_said(d, "Saw tool result (ok)") > oks
    })
    .await;
    let r = call(
        &router,
        get(&format!("/api/projects/{project}/diff?agent={lead}")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let d = r.json();
    assert_eq!(d["commits"][0]["subject"], "hello, committed", "{d}");
    assert_eq!(d["files"][0]["path"], "hello.txt");
    assert_eq!(d["files"][0]["uncommitted"], false);
    assert_eq!(
        git(&web, &["status", "--porcelain"]),
        "",
        "the user's checkout untouched"
    );
}
