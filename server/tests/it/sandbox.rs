//! The agents' sandbox (`soulgrid::sandbox`, bubblewrap): an agent's commands see none of the
//! data directory but their own folders, write nowhere else, reach no network (the console
//! least of all), and nothing they start outlives the agent. Driven by a fake CLI whose turn
//! tells what each attempt gave; skipped (said) where this machine cannot make a sandbox.

use crate::common;

use app::domain::docs::thread;
use app::domain::LEAD_SEAT;
use axum::http::StatusCode;
use common::{boot_with, call, fake_cli, post_json, wait_for, FAKE_TURN};
use serde_json::json;

/// Whether a sandbox can be made here; `None` (and a note) when it cannot.
fn sandboxed() -> Option<()> {
    match soulgrid::sandbox::Sandbox::detect(soulgrid::sandbox::SandboxMode::Auto) {
        Ok(s) if s.is_on() => Some(()),
        Ok(s) => {
            eprintln!("skipped: no sandbox on this machine ({})", s.said());
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn lead_said(d: &app::domain::docs::Docs, text: &str) -> bool {
    thread(d, LEAD_SEAT).iter().any(|m| m.text.contains(text))
}

/// The lead's turn that says what its shell tried (`try NAME …` gave `NAME=yes|no`).
async fn what_it_tried(state: &soulgrid::state::AppState) -> String {
    wait_for(state, "the lead tried", |d| lead_said(d, "tried:")).await;
    state.store.with_all_docs(|d| {
        thread(d, LEAD_SEAT)
            .iter()
            .find(|m| m.text.contains("tried:"))
            .map(|m| m.text.clone())
            .unwrap()
    })
}

/// What an agent's shell tried, as a hostile one would: the store, the login, another agent's
/// folder, a write outside its own, the console's port. Each was possible before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_commands_reach_nothing_beyond_its_folders() {
    if sandboxed().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Something of another agent's, and a port that stands for the console's.
    std::fs::create_dir_all(data.join("agents/0")).unwrap();
    std::fs::write(data.join("agents/0/soul.md"), "Lyra's soul").unwrap();
    let console = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = console.local_addr().unwrap().port();
    let data_s = data.display().to_string();
    let cli = fake_cli(
        dir.path(),
        "hostile",
        &format!(
            r#"{FAKE_TURN}
read -r first
try() {{ if eval "$2" >/dev/null 2>&1; then echo -n "$1=yes "; else echo -n "$1=no "; fi; }}
said=$(
  try store "cat {data_s}/soulgrid.db"
  try login "cat {data_s}/login-token"
  try other "cat {data_s}/agents/0/soul.md"
  try outside "echo x > {data_s}/planted"
  try etc "echo x > /etc/soulgrid-planted"
  try console "exec 3<>/dev/tcp/127.0.0.1/{port}"
  try own "echo x > mine.txt"
  try tmp "echo x > /tmp/scratch"
  try humanclaude "test -w $HOME/.claude"
  try ownclaude "[ \"$CLAUDE_CONFIG_DIR\" = {data_s}/claude/4 ] && echo x > $CLAUDE_CONFIG_DIR/mine"
)
turn "tried: $said"
while read -r line; do turn "more"; done"#
        ),
    );
    // No `--token`: the login is made, and kept in the data directory.
    let state = boot_with(
        &data,
        &[
            "--claude-cmd",
            cli.to_str().unwrap(),
            "--token=",
            "--distill-timeout",
            "0s",
        ],
    )
    .await;
    assert!(data.join("login-token").exists() && data.join("soulgrid.db").exists());
    let router = soulgrid::http::router(state.clone());
    let mut send = post_json("/api/send", json!({"text": "try everything"}));
    let bearer = format!("Bearer {}", state.security.login());
    send.headers_mut()
        .insert("authorization", bearer.parse().unwrap());
    let r = call(&router, send).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let said = what_it_tried(&state).await;
    for refused in [
        "store",
        "login",
        "other",
        "outside",
        "etc",
        "console",
        "humanclaude",
    ] {
        assert!(said.contains(&format!("{refused}=no")), "{refused}: {said}");
    }
    for allowed in ["own", "tmp", "ownclaude"] {
        assert!(
            said.contains(&format!("{allowed}=yes")),
            "{allowed}: {said}"
        );
    }
    assert!(!data.join("planted").exists());
    assert!(
        data.join("agents/4/mine.txt").exists(),
        "its own folder is the real one"
    );
    drop(console);
    soulgrid::shut_down(&state).await;
}

/// A process an agent's shell detached (`setsid -f`, as Claude Code's Bash tool runs commands)
/// ends with the agent: its sandbox's PID namespace ends with it. The detached process holds a
/// FIFO's writing end open; once it is gone, the reader sees the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_agent_detached_ends_with_it() {
    if sandboxed().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cli = fake_cli(
        dir.path(),
        "detaching",
        &format!(
            r#"{FAKE_TURN}
read -r first
mkfifo held
setsid -f sh -c 'exec 3>held; exec sleep 1000'
turn "detached"
while read -r line; do turn "more"; done"#
        ),
    );
    let state = boot_with(
        &data,
        &[
            "--claude-cmd",
            cli.to_str().unwrap(),
            "--distill-timeout",
            "0s",
            "--stop-grace",
            "1s",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    wait_for(&state, "the turn that detached it", |d| {
        lead_said(d, "detached")
    })
    .await;
    // The reading end: its open waits for the detached writer, which is there.
    let fifo = data.join("agents/4/held");
    let reader = tokio::task::spawn_blocking(move || {
        use std::io::Read;
        let mut f = std::fs::File::open(fifo).unwrap();
        let mut buf = [0u8; 1];
        f.read(&mut buf).unwrap()
    });
    let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let end = tokio::time::timeout(std::time::Duration::from_secs(20), reader)
        .await
        .expect("the detached process ended with the agent")
        .unwrap();
    assert_eq!(end, 0, "the end of the FIFO: no writer is left");
    soulgrid::shut_down(&state).await;
}

/// A stop is graceful inside the sandbox too: the agent's program gets `SIGTERM` and its
/// grace, as it does outside one (it was killed with the sandbox, mid-write).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_agents_stop_lets_it_finish() {
    if sandboxed().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cli = fake_cli(
        dir.path(),
        "graceful",
        &format!(
            r#"{FAKE_TURN}
trap 'echo "$$" > said-goodbye; exit 0' TERM
read -r first
turn "ready"
while read -r line; do turn "more"; done"#
        ),
    );
    let state = boot_with(
        &data,
        &[
            "--claude-cmd",
            cli.to_str().unwrap(),
            "--distill-timeout",
            "0s",
            "--stop-grace",
            "20s",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    wait_for(&state, "the lead's turn", |d| lead_said(d, "ready")).await;
    let r = call(&router, post_json("/api/agents/4/dismiss", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        data.join("agents/4/said-goodbye").exists(),
        "the program was told to stop, and finished"
    );
    soulgrid::shut_down(&state).await;
}

/// An agent whose way out of its sandbox cannot be opened (here its socket's path is longer
/// than a Unix socket's 107 bytes) does not start, and the human is told why. It started
/// without any network, and every turn of the real CLI then failed with no word of the cause.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_without_its_way_out_does_not_start_and_says_why() {
    if sandboxed().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d".repeat(100));
    let cli = fake_cli(dir.path(), "quiet", FAKE_TURN);
    let state = boot_with(&data, &["--claude-cmd", cli.to_str().unwrap()]).await;
    let router = soulgrid::http::router(state.clone());
    call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    wait_for(&state, "the lead's start refused", |d| {
        app::domain::docs::identity(d, LEAD_SEAT).is_some_and(|a| {
            a.process_reason
                .as_deref()
                .is_some_and(|r| r.contains("way out of its sandbox"))
        })
    })
    .await;
    let errors = common::runtime_errors(&state, LEAD_SEAT).await;
    assert!(
        errors
            .iter()
            .any(|e| e.contains("egress.sock") && e.contains("107")),
        "{errors:?}"
    );
    soulgrid::shut_down(&state).await;
}

/// At work on a project, the agent's git commits on its branch, and nothing else of the
/// repository's git folder is its to write: its `config`, `hooks` and `commondir` (which the
/// human's own git reads and runs), another branch. The whole git folder was writable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_at_work_commits_on_its_branch_and_writes_nothing_else_of_the_repository() {
    if sandboxed().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let web = crate::projects::repo(dir.path(), "web");
    let git_dir = web.join(".git");
    let cli = fake_cli(
        dir.path(),
        "at-work",
        &format!(
            r#"{FAKE_TURN}
read -r first
wt=$(printf '%s\n' "$@" | grep -A1 -x -- --add-dir | tail -1)
g={git}
try() {{ if eval "$2" >/dev/null 2>&1; then echo -n "$1=yes "; else echo -n "$1=no "; fi; }}
said=$(
  try commit "git -C $wt -c user.name=A -c user.email=a@b commit -q --allow-empty -m mine"
  try config "echo '[core]' >> $g/config"
  try hooks "mkdir -p $g/hooks && echo x > $g/hooks/post-checkout"
  try commondir "echo /tmp > $g/commondir"
  try main "git -C $wt update-ref refs/heads/main HEAD"
  try hostsock "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{sock}\")'"
)
turn "tried: $said"
while read -r line; do turn "more"; done"#,
            git = git_dir.display(),
            sock = "/run/soulgrid-sandbox-test.sock",
        ),
    );
    // A socket of the host's in /run (a session bus, an ssh agent, a database's stand here).
    let sock = std::path::Path::new("/run/soulgrid-sandbox-test.sock");
    let _ = std::fs::remove_file(sock);
    let host_socket = std::os::unix::net::UnixListener::bind(sock).ok();
    let allow = dir.path().display().to_string();
    let state = boot_with(
        &data,
        &[
            "--claude-cmd",
            cli.to_str().unwrap(),
            "--allow-dir",
            &allow,
            "--distill-timeout",
            "0s",
        ],
    )
    .await;
    let router = soulgrid::http::router(state.clone());
    let r = call(&router, post_json("/api/projects", json!({ "path": web }))).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let project = r.json()["id"].as_str().unwrap().to_string();
    let lead = state.store.with_all_docs(|d| {
        app::domain::docs::identity(d, LEAD_SEAT)
            .unwrap()
            .stable_id()
    });
    crate::projects::put_to_work(&router, &project, &lead).await;
    let main_before = common::git(&web, &["rev-parse", "refs/heads/main"]);
    call(&router, post_json("/api/send", json!({"text": "try"}))).await;
    let said = what_it_tried(&state).await;
    assert!(said.contains("commit=yes"), "{said}");
    for refused in ["config", "hooks", "commondir", "main"] {
        assert!(said.contains(&format!("{refused}=no")), "{refused}: {said}");
    }
    if host_socket.is_some() {
        assert!(said.contains("hostsock=no"), "{said}");
    }
    assert_eq!(
        common::git(&web, &["rev-parse", "refs/heads/main"]),
        main_before
    );
    assert!(!git_dir.join("hooks/post-checkout").exists());
    drop(host_socket);
    let _ = std::fs::remove_file(sock);
    soulgrid::shut_down(&state).await;
}
