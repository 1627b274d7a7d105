//! The conflict radar: the worktrees followed live, both agents told once of a new overlap.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_radar_follows_the_worktrees_live_and_tells_both_agents_once() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let (lyra, kael) = (identity_in(&state, 5), identity_in(&state, 6));
    let a = put_to_work(&router, &project, &lyra).await;
    let b = put_to_work(&router, &project, &kael).await;
    let (ta, tb) = (
        PathBuf::from(a["path"].as_str().unwrap()),
        PathBuf::from(b["path"].as_str().unwrap()),
    );
    // A write shows in the documents (and so in every tab) without anyone asking.
    std::fs::write(ta.join("README.md"), "# web\n\nLyra's.\n").unwrap();
    wait_for(&state, "Lyra's change seen", |d| {
        app::domain::projects::worktree(d, &project, &lyra)
            .is_some_and(|w| w.uncommitted == ["README.md"])
    })
    .await;
    // A commit too (it moves the branch, not a file in the worktree).
    git(&ta, &["commit", "-q", "-am", "readme"]);
    wait_for(&state, "Lyra's commit seen", |d| {
        app::domain::projects::worktree(d, &project, &lyra)
            .is_some_and(|w| w.commits_ahead == 1 && w.uncommitted.is_empty())
    })
    .await;
    std::fs::write(tb.join("README.md"), "# web\n\nKael's.\n").unwrap();
    wait_for(&state, "the overlap", |d| {
        !app::domain::projects::overlaps(d, &project).is_empty()
    })
    .await;
    let names: Vec<String> = [5u8, 6]
        .iter()
        .map(|s| {
            state
                .store
                .with_docs(|d| identity(d, *s).unwrap().name.clone().unwrap())
        })
        .collect();
    let inbox = |seat: u8| {
        state
            .store
            .with_docs(|d| identity(d, seat).unwrap().inbox().unwrap())
    };
    let told = |seat: u8| -> Vec<String> {
        state
            .runtime
            .mailboxes()
            .all(&inbox(seat))
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m.from == "Soulgrid")
            .map(|m| m.text)
            .collect()
    };
    wait_until("both agents told", || {
        told(5).len() == 1 && told(6).len() == 1
    })
    .await;
    assert!(
        told(5)[0].contains(&format!("{} has also changed README.md in web", names[1])),
        "{:?}",
        told(5)
    );
    assert!(
        told(6)[0].contains(&format!("{} has also changed README.md in web", names[0])),
        "{:?}",
        told(6)
    );
    // More changes to the same overlap tell nobody again.
    std::fs::write(tb.join("README.md"), "# web\n\nKael's again.\n").unwrap();
    std::fs::write(tb.join("other.txt"), "x\n").unwrap();
    wait_for(&state, "Kael's second change seen", |d| {
        app::domain::projects::worktree(d, &project, &kael)
            .is_some_and(|w| w.changed_files.contains(&"other.txt".to_string()))
    })
    .await;
    assert_eq!((told(5).len(), told(6).len()), (1, 1));
}

/// The diff lists the worktree's files as they are: a diff asked for once the watcher has seen
/// a file made or removed (before the radar's look) lists it, though the diffs before it left
/// the server's index of the worktree as it was. Fails if the watcher's count does not move, or
/// if a diff skips the listing when it has.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_made_or_removed_after_a_diff_is_in_the_next_one() {
    let w = at_work(5).await;
    // The worktree's changes, not committed: the diff's part apart from the commits'.
    let files = |d: &Value| -> Vec<(String, String)> {
        d["uncommitted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let s = |k: &str| f[k].as_str().unwrap().to_string();
                (s("path"), s("change"))
            })
            .collect()
    };
    let projects = w.state.runtime.projects();
    let seen = || projects.changes_seen().expect("the watcher runs");
    assert!(files(&diff(&w.router, &w.project, &w.who, 0).await).is_empty());
    assert!(files(&diff(&w.router, &w.project, &w.who, 0).await).is_empty());
    // The watcher counts a change as it arrives: awaited, then the diff asked for at once.
    let seen_by_watcher = |before: u64| async move {
        tokio::time::timeout(
            std::time::Duration::from_secs(10),
            projects.changes_seen_past(before),
        )
        .await
        .expect("the change was not counted");
    };
    let before = seen();
    std::fs::write(w.tree.join("new.txt"), "new\n").unwrap();
    seen_by_watcher(before).await;
    assert_eq!(
        files(&diff(&w.router, &w.project, &w.who, 0).await),
        [("new.txt".to_string(), "added".to_string())]
    );
    let before = seen();
    std::fs::remove_file(w.tree.join("new.txt")).unwrap();
    std::fs::remove_file(w.tree.join("src/lib.rs")).unwrap();
    seen_by_watcher(before).await;
    assert_eq!(
        files(&diff(&w.router, &w.project, &w.who, 0).await),
        [("src/lib.rs".to_string(), "deleted".to_string())]
    );
    // The radar records the same.
    wait_for(&w.state, "the radar's look", |d| {
        app::domain::projects::worktree(d, &w.project, &w.who)
            .is_some_and(|t| t.changed_files == ["src/lib.rs"])
    })
    .await;
}
