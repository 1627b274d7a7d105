//! Projects: a linked repository, a worktree per identity on its own branch, its work seen as
//! git sees it (tier 2, on temporary repositories, with the simulated team).
//!
//! - `mod.rs`: link, put to work, the diff and the overlaps, a worktree made again.
//! - `bad_input.rs`: every refusal with its sentence.
//! - `safety.rs`: nothing of the repository's configuration runs (hooks, filters, fsmonitor…).
//! - `radar.rs`, `merge.rs`, `tools.rs`, `fork.rs`: the radar, review and merge, the agents'
//!   tools, a fork's worktree.
//! - `restart.rs`: an awake agent put to work started again, unless stopped meanwhile.

mod bad_input;
mod carry;
mod diff_shapes;
mod fork;
mod large;
mod merge;
mod merge_shapes;
mod quest;
mod radar;
mod restart;
mod review;
mod safety;
mod tools;

use std::path::{Path, PathBuf};

use app::domain::docs::identity;
use app::domain::events::EventKind;
use serde_json::{json, Value};
use soulgrid::state::AppState;

use crate::common::*;

/// A repository at `{root}/{name}` on `main` with a few files in one commit.
pub fn repo(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README.md"), "# web\n").unwrap();
    std::fs::write(dir.join("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "first"]);
    dir
}

/// A simulated team allowed to use `root`.
pub async fn team_in(root: &Path) -> (tempfile::TempDir, AppState, axum::Router) {
    team_with(&["--allow-dir", &root.display().to_string()]).await
}

/// A simulated team with `web` linked and the agent of `seat` at work on it (the folders live
/// as long as it does).
pub struct AtWork {
    pub _root: tempfile::TempDir,
    pub _dir: tempfile::TempDir,
    pub state: AppState,
    pub router: axum::Router,
    pub project: String,
    pub who: String,
    pub tree: PathBuf,
}

pub async fn at_work(seat: u8) -> AtWork {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let who = identity_in(&state, seat);
    let w = put_to_work(&router, &project, &who).await;
    AtWork {
        tree: PathBuf::from(w["path"].as_str().unwrap()),
        _root: root,
        _dir: dir,
        state,
        router,
        project,
        who,
    }
}

/// Links `path`, expecting `201`; the project's id.
pub async fn link(router: &axum::Router, path: &Path) -> String {
    let r = call(router, post_json("/api/projects", json!({"path": path}))).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

/// The identity id of the agent in `seat`.
pub fn identity_in(state: &AppState, seat: u8) -> String {
    state
        .store
        .with_docs(|d| identity(d, seat).unwrap().stable_id())
}

/// Puts the agent in `seat` to work, expecting `201`; the worktree document.
pub async fn put_to_work(router: &axum::Router, project: &str, who: &str) -> Value {
    let r = call(
        router,
        post_json(
            &format!("/api/projects/{project}/agents"),
            json!({"agent": who}),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()
}

pub async fn diff(router: &axum::Router, project: &str, who: &str, page: usize) -> Value {
    let r = call(
        router,
        get(&format!(
            "/api/projects/{project}/diff?agent={who}&page={page}"
        )),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// Waits until a process of `seat` starts after the event `after`.
pub async fn wait_started(state: &AppState, seat: u8, after: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while started_sessions(state, seat, after).await.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "seat {seat} never started again"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn an_agent_put_to_work_gets_its_worktree_and_its_work_shows_as_a_diff() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let listed = call(&router, get("/api/projects")).await.json();
    assert_eq!(listed[0]["name"], "web");
    assert_eq!(listed[0]["base"], "main");

    let lyra = identity_in(&state, 0);
    let before = state.store.last_event_id();
    let w = put_to_work(&router, &project, &lyra).await;
    let inbox = state
        .store
        .with_docs(|d| identity(d, 0).unwrap().inbox.clone().unwrap());
    assert_eq!(w["branch"], format!("soulgrid/{inbox}"));
    let tree = PathBuf::from(w["path"].as_str().unwrap());
    assert!(
        tree.starts_with(_dir.path().join("worktrees").join(&lyra)),
        "{tree:?}"
    );
    assert_eq!(
        std::fs::read_to_string(tree.join("src/lib.rs")).unwrap(),
        "pub fn one() -> u32 {\n    1\n}\n"
    );
    // git itself sees a worktree on the agent's branch, and the user's checkout is untouched.
    let listed = git(&web, &["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains(&format!("branch refs/heads/soulgrid/{inbox}")),
        "{listed}"
    );
    assert_eq!(git(&web, &["status", "--porcelain"]), "");
    assert_eq!(git(&web, &["rev-parse", "--abbrev-ref", "HEAD"]), "main");
    // The awake agent is started again, now with its worktree, and its `_state.md` says where.
    wait_started(&state, 0, before).await;
    let said = format!(
        "- worktrees: web at {} on branch soulgrid/{inbox}\n",
        tree.display()
    );
    let state_file = _dir.path().join("agents/0/_state.md");
    wait_until("_state.md names the worktree", || {
        std::fs::read_to_string(&state_file).is_ok_and(|t| t.contains(&said))
    })
    .await;

    // The agent commits one change and leaves another uncommitted, and adds a file.
    std::fs::write(tree.join("src/lib.rs"), "pub fn one() -> u32 {\n    2\n}\n").unwrap();
    git(&tree, &["commit", "-q", "-am", "two, not one"]);
    std::fs::write(tree.join("README.md"), "# web\n\nMore.\n").unwrap();
    std::fs::write(tree.join("notes.txt"), "new\n").unwrap();
    std::fs::write(tree.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 0, 1, 2]).unwrap();
    let d = diff(&router, &project, &lyra, 0).await;
    assert_eq!(d["pages"], 1);
    assert_eq!(d["commits"].as_array().unwrap().len(), 1);
    assert_eq!(d["commits"][0]["subject"], "two, not one");
    let listed = |list: &Value| -> Vec<(String, String, bool, bool)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    f["change"].as_str().unwrap().to_string(),
                    f["uncommitted"].as_bool().unwrap(),
                    f["binary"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    // What the commits change; apart, what the worktree has not committed.
    assert_eq!(
        listed(&d["files"]),
        vec![("src/lib.rs".into(), "modified".into(), false, false)]
    );
    assert_eq!(
        listed(&d["uncommitted"]),
        vec![
            ("README.md".into(), "modified".into(), true, false),
            ("logo.png".into(), "added".into(), true, true),
            ("notes.txt".into(), "added".into(), true, false),
        ]
    );
    let lib = &d["files"][0];
    assert_eq!(
        (lib["added"].as_u64(), lib["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let lines = &lib["hunks"][0]["lines"];
    let added = lines
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "added")
        .unwrap();
    assert_eq!(
        (&added["new"], &added["text"]),
        (&json!(2), &json!("    2"))
    );
    // Syntax colours, made on the server: the line's text as HTML with the scopes' classes.
    let first = &lines[0];
    assert_eq!(first["text"], "pub fn one() -> u32 {");
    let html = first["html"].as_str().unwrap_or_default();
    assert!(
        html.contains(r#"<span class="hl-"#) && html.contains("hl-storage"),
        "{first}"
    );
    assert!(
        html.contains("&gt;") && !html.contains("->"),
        "escaped: {html}"
    );
    assert!(
        d["uncommitted"][1]["hunks"].as_array().unwrap().is_empty(),
        "a binary file is named, not shown"
    );
    // Nothing was written into the user's repository but the branch and the worktree.
    assert_eq!(git(&web, &["status", "--porcelain"]), "");
    assert_eq!(
        git(&web, &["rev-parse", "main"]),
        git(&tree, &["rev-parse", "HEAD~1"])
    );

    // A second agent changes one of the same files: both branches show it as an overlap.
    let kael = identity_in(&state, 1);
    let w2 = put_to_work(&router, &project, &kael).await;
    let tree2 = PathBuf::from(w2["path"].as_str().unwrap());
    std::fs::write(tree2.join("README.md"), "# web\n\nOther.\n").unwrap();
    let view = call(&router, get(&format!("/api/projects/{project}")))
        .await
        .json();
    assert_eq!(view["branches"].as_array().unwrap().len(), 2);
    assert_eq!(view["branches"][0]["commitsAhead"], 1);
    assert_eq!(view["branches"][1]["uncommitted"], json!(["README.md"]));
    let names: Vec<String> = [0u8, 1]
        .iter()
        .map(|s| {
            state
                .store
                .with_docs(|d| identity(d, *s).unwrap().name.clone().unwrap())
        })
        .collect();
    assert_eq!(
        view["overlaps"],
        json!([{"file": "README.md", "agents": names}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_diff_is_paged_and_a_large_file_is_named_not_read() {
    let a = at_work(2).await;
    let (router, project, lyra, tree) = (&a.router, &a.project, &a.who, &a.tree);
    for i in 0..120 {
        std::fs::write(tree.join(format!("f{i:03}.txt")), format!("{i}\n")).unwrap();
    }
    std::fs::write(tree.join("big.txt"), "line\n".repeat(500_000)).unwrap();
    git(tree, &["add", "-A"]);
    git(tree, &["commit", "-q", "-m", "many"]);
    let first = diff(router, project, lyra, 0).await;
    assert_eq!(
        (first["totalFiles"].as_u64(), first["pages"].as_u64()),
        (Some(121), Some(3))
    );
    assert_eq!(first["files"].as_array().unwrap().len(), 50);
    assert_eq!(first["files"][0]["path"], "big.txt");
    assert_eq!(
        first["files"][0]["binary"], true,
        "2.5 MB is named, not diffed"
    );
    let last = diff(router, project, lyra, 2).await;
    assert_eq!(last["files"].as_array().unwrap().len(), 21);
    assert_eq!(last["files"][20]["path"], "f119.txt");
    let past = call(
        router,
        get(&format!("/api/projects/{project}/diff?agent={lyra}&page=3")),
    )
    .await;
    assert_eq!(past.status, 400, "{}", past.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_removed_by_hand_is_made_again_at_the_next_wake_and_said_on_the_seat() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 3);
    let w = put_to_work(&router, &project, &lyra).await;
    let tree = PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(tree.join("kept.txt"), "mine\n").unwrap();
    git(&tree, &["add", "kept.txt"]);
    git(&tree, &["commit", "-q", "-m", "keep this"]);
    let head = git(&tree, &["rev-parse", "HEAD"]);
    state.runtime.sleep(3, "test").await;
    std::fs::remove_dir_all(&tree).unwrap();
    let before = state.store.last_event_id();
    state.runtime.wake_only(Some(&[3])).await;
    // The note is recorded before the process starts: wait for both.
    wait_for(
        &state,
        "the worktree made again and the agent started",
        |d| {
            identity(d, 3).is_some_and(|i| {
                i.notes
                    .iter()
                    .any(|n| n.text.contains("was removed: made again"))
                    && i.process_state.is_some_and(|p| p.is_live())
            })
        },
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(tree.join("kept.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        git(&tree, &["rev-parse", "HEAD"]),
        head,
        "the branch kept its commit"
    );
    assert_eq!(git(&tree, &["status", "--porcelain"]), "");
    let remade = count_events(&state, |k| matches!(k, EventKind::WorktreeRemade { .. })).await;
    assert_eq!(remade, 1);
    assert!(!started_sessions(&state, 3, before).await.is_empty());
    // Written over by hand: its link broken, its files kept as changes.
    std::fs::write(tree.join(".git"), "gitdir: /nowhere\n").unwrap();
    std::fs::write(tree.join("kept.txt"), "changed\n").unwrap();
    state.runtime.sleep(3, "test").await;
    state.runtime.wake_only(Some(&[3])).await;
    wait_for(&state, "the link mended and the agent started", |d| {
        identity(d, 3).is_some_and(|i| {
            i.notes.iter().any(|n| n.text.contains("lost its link"))
                && i.process_state.is_some_and(|p| p.is_live())
        })
    })
    .await;
    assert_eq!(git(&tree, &["status", "--porcelain"]), "M kept.txt");
    // A topic branch the agent checked out itself is its own doing, not a break: a restart
    // leaves it there (it was put back on its branch, its index reset).
    git(&tree, &["checkout", "-q", "-b", "topic"]);
    let remade = count_events(&state, |k| matches!(k, EventKind::WorktreeRemade { .. })).await;
    let before = state.store.last_event_id();
    state.runtime.sleep(3, "test").await;
    state.runtime.wake_only(Some(&[3])).await;
    // Its worktree is made ready before its process starts.
    wait_for(&state, "started again", |d| {
        identity(d, 3).is_some_and(|i| i.process_state.is_some_and(|p| p.is_live()))
    })
    .await;
    assert_eq!(started_sessions(&state, 3, before).await.len(), 1);
    assert_eq!(git(&tree, &["rev-parse", "--abbrev-ref", "HEAD"]), "topic");
    assert_eq!(git(&tree, &["status", "--porcelain"]), "M kept.txt");
    assert_eq!(
        count_events(&state, |k| matches!(k, EventKind::WorktreeRemade { .. })).await,
        remade
    );
    let _ = project;
}

/// The demo works when asked, with no setting: a simulated agent at work does what a message
/// asks (a line in the README, committed, its subject the line). It changed code only with
/// `SIM_EDIT:` knobs or with `SOULGRID_SIM_WORK=1`, which nothing documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_agent_at_work_does_what_a_message_asks() {
    let a = at_work(0).await;
    let name = a
        .state
        .store
        .with_docs(|d| identity(d, 0).unwrap().name.clone().unwrap());
    let r = call(
        &a.router,
        post_json(
            "/api/send",
            json!({"text": "Add a section on installing", "seat": 0}),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let line = format!("{name}: Add a section on installing");
    wait_until("the change committed in its worktree", || {
        std::process::Command::new("git")
            .args(["log", "-1", "--format=%s"])
            .current_dir(&a.tree)
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == line)
    })
    .await;
    let readme = std::fs::read_to_string(a.tree.join("README.md")).unwrap();
    assert!(readme.ends_with(&format!("{line}\n")), "{readme}");
}
