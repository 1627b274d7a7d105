//! Merges the shape of the repository refuses: a base checked out in another worktree of the
//! user's (its files there would not follow), and a rebase of a branch with merge commits
//! (merged instead); nothing in the base changes.

use serde_json::json;

use super::merge::bench;
use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_base_checked_out_in_another_worktree_is_refused() {
    let b = bench(5, None, &[]).await;
    b.agent_commits("agent.txt", "agent\n");
    b.approve().await;
    // The user works on another branch here, and has main checked out in a worktree beside.
    git(&b.web, &["checkout", "-q", "-b", "side"]);
    let beside = b.web.parent().unwrap().join("web-main");
    git(
        &b.web,
        &["worktree", "add", "-q", beside.to_str().unwrap(), "main"],
    );
    b.refused("merge", "is checked out in your worktree").await;
    assert!(!beside.join("agent.txt").exists());
    // Once that worktree is on another branch, it merges.
    git(&beside, &["checkout", "-q", "--detach"]);
    let r = b.post("merge", json!({"strategy": "merge"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        git(&b.web, &["show", "main:agent.txt"]),
        "agent",
        "main has the agent's file"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_branch_with_merge_commits_is_merged_not_rebased() {
    let b = bench(6, None, &[]).await;
    // The agent merges a topic of its own into its branch.
    let branch = git(&b.tree, &["rev-parse", "--abbrev-ref", "HEAD"]);
    git(&b.tree, &["checkout", "-q", "-b", "topic"]);
    b.agent_commits("topic.txt", "topic\n");
    git(&b.tree, &["checkout", "-q", &branch]);
    b.agent_commits("agent.txt", "agent\n");
    git(
        &b.tree,
        &["merge", "-q", "--no-ff", "-m", "merge topic", "topic"],
    );
    b.user_commits("user.txt", "user\n");
    b.approve().await;
    b.refused("rebase", "has merge commits: merge it instead of rebasing")
        .await;
    let r = b.post("merge", json!({"strategy": "merge"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    for file in ["topic.txt", "agent.txt", "user.txt"] {
        assert!(b.web.join(file).is_file(), "{file} in the checkout");
    }
}
