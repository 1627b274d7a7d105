//! A fork inherits its parent's work: its own worktree, on a branch started from the parent's
//! branch head, made before its process starts.

use app::domain::projects::worktree;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_gets_its_own_worktree_from_its_parents_branch() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 0);
    let w = put_to_work(&router, &project, &lyra).await;
    let parent_tree = PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(parent_tree.join("plan.md"), "the plan\n").unwrap();
    git(&parent_tree, &["add", "plan.md"]);
    git(&parent_tree, &["commit", "-q", "-m", "a plan"]);
    let parent_head = git(&parent_tree, &["rev-parse", "HEAD"]);
    // An empty seat for the fork.
    let r = call(&router, post_json("/api/agents/7/kill", json!({}))).await;
    assert!(r.status.is_success(), "{}", r.body);
    let r = call(&router, post_json("/api/agents/0/fork", json!({"seat": 7}))).await;
    assert!(r.status.is_success(), "{}", r.body);
    wait_for(&state, "the fork's worktree", |d| {
        identity(d, 7)
            .filter(|i| i.parent_uuid.as_deref() == Some(lyra.as_str()))
            .and_then(|i| worktree(d, &project, &i.stable_id()))
            .is_some()
    })
    .await;
    let child = identity_in(&state, 7);
    let fw = state
        .store
        .with_docs(|d| worktree(d, &project, &child).cloned())
        .unwrap();
    assert_eq!(
        fw.parent_branch.as_deref(),
        Some(w["branch"].as_str().unwrap())
    );
    assert_eq!(fw.started_from, parent_head);
    assert_eq!(fw.branch, format!("{}-fork", w["branch"].as_str().unwrap()));
    let child_tree = PathBuf::from(&fw.path);
    assert_ne!(child_tree, parent_tree);
    assert_eq!(
        std::fs::read_to_string(child_tree.join("plan.md")).unwrap(),
        "the plan\n"
    );
    // Their branches part from here: the parent's next commit is not the fork's.
    std::fs::write(parent_tree.join("plan.md"), "the plan, changed\n").unwrap();
    git(&parent_tree, &["commit", "-q", "-am", "changed"]);
    assert_eq!(git(&child_tree, &["rev-parse", "HEAD"]), parent_head);
    // Its process started with it.
    wait_until("the fork's _state.md names its worktree", || {
        std::fs::read_to_string(_dir.path().join("agents/7/_state.md"))
            .is_ok_and(|t| t.contains(&fw.branch))
    })
    .await;
}
