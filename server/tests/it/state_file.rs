//! `_state.md` in each agent's folder: written by the server, read-only, kept current.

use crate::common;

use std::path::Path;

use common::{call, post_json};
use serde_json::json;

fn state_of(dir: &Path, seat: u8) -> String {
    std::fs::read_to_string(dir.join(format!("agents/{seat}/_state.md"))).unwrap_or_default()
}

async fn wait_for_file(dir: &Path, seat: u8, what: &str, has: &str) {
    wait_for_file_within(dir, seat, what, has, 20).await;
}

async fn wait_for_file_within(dir: &Path, seat: u8, what: &str, has: &str, secs: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !state_of(dir, seat).contains(has) {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}: {has:?} not in\n{}",
            state_of(dir, seat)
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Puts Kael to sleep with a letter waiting, and waits for its state file to say so.
async fn leave_kael_a_letter(router: &axum::Router, dir: &Path) {
    call(router, post_json("/api/agents/1/dismiss", json!({}))).await;
    call(
        router,
        post_json(
            "/api/send",
            json!({"text": "for later", "targetAgent": "Kael"}),
        ),
    )
    .await;
    wait_for_file(dir, 1, "the waiting letter", "- unread mail: 1\n").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_named_agent_has_a_read_only_state_file_kept_current() {
    let (dir, state, router) = common::team().await;

    // The simulator reports 1,200 tokens of context per turn so far.
    wait_for_file(
        dir.path(),
        1,
        "Kael's first turn",
        "- context tokens: 1200\n",
    )
    .await;
    let text = state_of(dir.path(), 1);
    assert!(text.starts_with("# State of Kael (seat 1)\n"), "{text}");
    assert!(
        text.contains("- status: alive\n") && text.contains("- unread mail: 0\n"),
        "{text}"
    );
    let file = dir.path().join("agents/1/_state.md");
    assert!(std::fs::metadata(&file).unwrap().permissions().readonly());

    // Asleep, with a letter waiting: the file says both.
    leave_kael_a_letter(&router, dir.path()).await;
    assert!(state_of(dir.path(), 1).contains("- status: sleeping\n"));

    // Letters another program leaves a sleeper are no events: the file follows the inbox's
    // changes themselves, each at once (two within 4 s: a file that waited for the 5-second
    // recheck would show one at most).
    let kael = state.runtime.mailboxes().path("kael").unwrap();
    common::external_append(&kael, "Orin", 1);
    wait_for_file_within(dir.path(), 1, "Orin's letter", "- unread mail: 2\n", 2).await;
    common::external_append(&kael, "Orin", 2);
    wait_for_file_within(dir.path(), 1, "Orin's second", "- unread mail: 3\n", 2).await;

    // The lead has one too, once it has run.
    call(&router, post_json("/api/send", json!({"text": "hello"}))).await;
    wait_for_file(
        dir.path(),
        4,
        "the lead's file",
        "# State of Julian (seat 4)",
    )
    .await;
    soulgrid::shut_down(&state).await;
}

/// An agent can write in its own folder: links it makes there must not make the server write
/// (or make read-only) anything else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_file_never_follows_a_link_the_agent_made() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, state, router) = common::team().await;
    wait_for_file(
        dir.path(),
        1,
        "Kael's first turn",
        "- context tokens: 1200\n",
    )
    .await;
    let outside = tempfile::tempdir().unwrap();
    let precious = outside.path().join("precious.txt");
    std::fs::write(&precious, "the human's own file").unwrap();
    let folder = dir.path().join("agents/1");
    // Links where the server might write: the temp file of old, and the state file itself.
    std::os::unix::fs::symlink(&precious, folder.join("._state.md.tmp")).unwrap();
    std::fs::remove_file(folder.join("_state.md")).unwrap();
    std::os::unix::fs::symlink(&precious, folder.join("_state.md")).unwrap();

    // A change for the file to say: a letter waiting for Kael, asleep.
    leave_kael_a_letter(&router, dir.path()).await;
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap(),
        "the human's own file"
    );
    let mode = std::fs::metadata(&precious).unwrap().permissions().mode();
    assert_eq!(mode & 0o200, 0o200, "still writable: {mode:o}");
    let state_file = std::fs::symlink_metadata(folder.join("_state.md")).unwrap();
    assert!(
        state_file.is_file(),
        "the link was replaced by the file, not followed"
    );
    soulgrid::shut_down(&state).await;
}
