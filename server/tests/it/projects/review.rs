//! Review you can trust: what the human approves is one commit and what merges is exactly it
//! (the worktree's uncommitted changes apart); a refused merge has a next step (Ask to rebase)
//! and the radar keeps the branch's conflict with the base.

use serde_json::json;

use super::merge::bench;
use super::*;

/// What the human reviews is what merges: the diff is the branch's commits; what the worktree
/// has not committed is shown apart, as not yet reviewable. An approval names one commit, and
/// the agent is asked to commit the rest; the merge brings exactly that commit and says what it
/// left out. The diff and the approval took the uncommitted change in, the merge brought only
/// the commits, and said "merged".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_reviewed_is_what_merges_and_the_uncommitted_is_apart() {
    let b = bench(0, None, &[]).await;
    // A branch that starts from the base's head has nothing to rebase onto: said, not asked.
    let r = b.post("ask-rebase", json!({})).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("nothing to rebase onto"), "{}", r.body);
    assert!(b.inbox(0, "Marcus").is_empty(), "the agent was not asked");
    b.agent_commits("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    std::fs::write(b.tree.join("README.md"), "# web\n\nNot committed.\n").unwrap();
    std::fs::write(b.tree.join("notes.txt"), "new\n").unwrap();
    let d = diff(&b.router, &b.project, &b.who, 0).await;
    let paths = |list: &Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(paths(&d["files"]), ["src/lib.rs"], "{d}");
    assert_eq!(d["totalFiles"], 1);
    assert_eq!(paths(&d["uncommitted"]), ["README.md", "notes.txt"], "{d}");
    let readme = &d["uncommitted"][0];
    assert_eq!(readme["change"], "modified");
    assert!(
        readme["hunks"][0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["text"] == "Not committed." && l["kind"] == "added"),
        "{readme}"
    );
    let head = git(&b.tree, &["rev-parse", "HEAD"]);
    assert_eq!(d["head"], head);

    let r = b.post("approve", json!({"head": head})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["head"], head);
    assert_eq!(r.json()["uncommitted"], json!(["README.md", "notes.txt"]));
    wait_until("the agent asked to commit the rest", || {
        b.told(0)
            .iter()
            .any(|t| t.contains("not committed") && t.contains("README.md, notes.txt"))
    })
    .await;

    let r = b.post("merge", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["commit"], head, "exactly the approved commit");
    assert_eq!(r.json()["uncommitted"], json!(["README.md", "notes.txt"]));
    assert_eq!(git(&b.web, &["rev-parse", "main"]), head);
    assert_eq!(
        std::fs::read_to_string(b.web.join("README.md")).unwrap(),
        "# web\n",
        "what was not reviewed did not merge"
    );
    wait_until("the agent told what was left out", || {
        b.told(0).iter().any(|t| {
            t.contains("was merged into main of web") && t.contains("README.md, notes.txt")
        })
    })
    .await;
}

/// A refused merge has a next step: **Ask to rebase** sends the agent the conflicting files
/// and the base's head in one message (it was a dead end: "merge refused … Files: README.md"
/// and nothing to do). And the radar keeps the conflict with the base: a file the base
/// changed since the branch began, which the branch changes too, is named on the branch (the
/// overlap disappeared once the other branch merged, although this one still conflicted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_merge_can_ask_for_a_rebase_and_the_radar_keeps_the_base_conflict() {
    let b = bench(1, None, &[]).await;
    b.agent_commits("README.md", "# web\n\nThe agent's.\n");
    b.user_commits("README.md", "# web\n\nThe user's.\n");
    let base = git(&b.web, &["rev-parse", "main"]);
    // The radar, looking again, names the file the base changed too.
    b.state
        .runtime
        .projects()
        .refresh(&b.project, &b.who)
        .await
        .unwrap();
    let r = call(&b.router, get("/api/docs")).await;
    let id = format!("worktree:{}:{}", b.project, b.who);
    assert_eq!(
        r.json()["docs"][&id]["baseOverlaps"],
        json!(["README.md"]),
        "{}",
        r.json()["docs"][&id]
    );
    b.approve().await;
    let refused = b.refused("merge", "conflicts with main").await;
    assert_eq!(refused["files"], json!(["README.md"]));

    let r = b.post("ask-rebase", json!({})).await;
    assert_eq!(r.status, 204, "{}", r.body);
    wait_until("the agent asked to rebase, by the human", || {
        b.inbox(1, "Marcus").iter().any(|t| {
            t.contains("rebase")
                && t.contains("README.md")
                && t.contains(&base[..8])
                && t.contains("soulgrid/")
        })
    })
    .await;
}
