//! Review and merge: comments reach the agent in one message, an approval is of one head, a
//! merge lands on the base (fast-forward, merge commit, replay) after the check passed, and
//! every refusal (conflict, a dirty or moved base, a detached HEAD, a failing or hanging
//! check) changes nothing in the base and says why.

use app::domain::docs::{MergeState, Review};
use app::domain::projects::worktree;
use serde_json::json;

use super::*;

/// A team with `web` linked (with `extra` flags and `check`), the agent of `seat` at work on it.
pub(super) struct Bench {
    _root: tempfile::TempDir,
    _dir: tempfile::TempDir,
    pub(super) state: AppState,
    pub(super) router: axum::Router,
    pub(super) web: PathBuf,
    pub(super) project: String,
    pub(super) who: String,
    pub(super) tree: PathBuf,
}

pub(super) async fn bench(seat: u8, check: Option<&str>, extra: &[&str]) -> Bench {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let allow = root.path().display().to_string();
    let mut flags = vec!["--allow-dir", &allow];
    flags.extend_from_slice(extra);
    let (dir, state, router) = team_with(&flags).await;
    let r = call(
        &router,
        post_json("/api/projects", json!({"path": web, "check": check})),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let project = r.json()["id"].as_str().unwrap().to_string();
    let who = identity_in(&state, seat);
    let w = put_to_work(&router, &project, &who).await;
    // Its restart with the worktree done: what it is told next reaches it awake.
    state.runtime.restarts_settled().await;
    Bench {
        tree: PathBuf::from(w["path"].as_str().unwrap()),
        _root: root,
        _dir: dir,
        state,
        router,
        web,
        project,
        who,
    }
}

impl Bench {
    pub(super) fn at(&self, what: &str) -> String {
        format!(
            "/api/projects/{}/branches/{}/{what}",
            self.project, self.who
        )
    }

    pub(super) async fn post(&self, what: &str, body: Value) -> Reply {
        call(&self.router, post_json(&self.at(what), body)).await
    }

    /// The agent commits `text` into `file` in its worktree.
    pub(super) fn agent_commits(&self, file: &str, text: &str) {
        std::fs::write(self.tree.join(file), text).unwrap();
        git(&self.tree, &["add", file]);
        git(
            &self.tree,
            &["commit", "-q", "-m", &format!("{file} by the agent")],
        );
    }

    /// The user commits on main in their own checkout.
    pub(super) fn user_commits(&self, file: &str, text: &str) {
        std::fs::write(self.web.join(file), text).unwrap();
        git(&self.web, &["add", file]);
        git(
            &self.web,
            &["commit", "-q", "-m", &format!("{file} by the user")],
        );
    }

    pub(super) async fn approve(&self) {
        let r = self.post("approve", json!({})).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }

    /// Merges, expecting a refusal that says `says`; the base did not move.
    pub(super) async fn refused(&self, strategy: &str, says: &str) -> Value {
        let main = git(&self.web, &["rev-parse", "main"]);
        let r = self.post("merge", json!({"strategy": strategy})).await;
        assert_eq!(r.status, 409, "{}", r.body);
        let body = r.json();
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
        assert_eq!(
            git(&self.web, &["rev-parse", "main"]),
            main,
            "the base did not move"
        );
        body
    }

    pub(super) fn merge_state(&self) -> Option<MergeState> {
        self.state.store.with_docs(|d| {
            worktree(d, &self.project, &self.who)?
                .merge
                .as_ref()
                .map(|m| m.state)
        })
    }

    /// What Soulgrid filed in the agent's inbox.
    pub(super) fn told(&self, seat: u8) -> Vec<String> {
        self.inbox(seat, "Soulgrid")
    }

    /// What `from` filed in the agent's inbox.
    pub(super) fn inbox(&self, seat: u8, from: &str) -> Vec<String> {
        let inbox = self
            .state
            .store
            .with_docs(|d| identity(d, seat).unwrap().inbox().unwrap());
        self.state
            .runtime
            .mailboxes()
            .all(&inbox)
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m.from == from)
            .map(|m| m.text)
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comments_reach_the_agent_and_an_approved_branch_is_merged_into_the_base() {
    let b = bench(0, Some("test -f src/lib.rs && echo checked"), &[]).await;
    b.agent_commits("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    let r = b
        .post(
            "comments",
            json!({"file": "src/lib.rs", "line": 2, "text": "Why two?"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let r = b.post("request-changes", json!({})).await;
    assert_eq!(r.status, 204, "{}", r.body);
    wait_for(&b.state, "the comments in the agent's thread", |d| {
        app::domain::docs::thread(d, 0)
            .iter()
            .any(|m| m.text.contains("src/lib.rs:2: Why two?") && m.text.contains("    2 >    2"))
    })
    .await;
    let again = b.post("request-changes", json!({})).await;
    assert_eq!(again.status, 409, "nothing open to send: {}", again.body);
    // The simulated agent makes the changes asked, and commits them.
    wait_until("the changes asked, committed", || {
        std::process::Command::new("git")
            .args(["log", "-1", "--format=%s"])
            .current_dir(&b.tree)
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "As asked in review")
    })
    .await;
    // Not approved: no merge.
    b.refused("merge", "is not approved").await;
    // An approval is of the head the human saw: a branch moved since is refused.
    let seen = git(&b.tree, &["rev-parse", "HEAD~1"]);
    let r = b.post("approve", json!({"head": seen})).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("has moved since you looked"), "{}", r.body);
    b.approve().await;
    let head = git(&b.tree, &["rev-parse", "HEAD"]);
    let r = b.post("merge", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["commit"], head, "a fast-forward");
    assert_eq!(git(&b.web, &["rev-parse", "main"]), head);
    // The user's checkout of main follows (the change, and the one asked in review), clean.
    assert_eq!(
        std::fs::read_to_string(b.web.join("src/lib.rs")).unwrap(),
        "pub fn one() -> u32 {\n    2\n}\nLyra: done as asked (Why two?)\n"
    );
    assert_eq!(git(&b.web, &["status", "--porcelain"]), "");
    let w = b
        .state
        .store
        .with_docs(|d| worktree(d, &b.project, &b.who).cloned())
        .unwrap();
    assert_eq!(w.review, Review::Merged);
    let m = w.merge.unwrap();
    assert_eq!(
        (m.state, m.strategy.as_str()),
        (MergeState::Merged, "merge")
    );
    assert!(
        m.output.contains("checked"),
        "the check's output is kept: {m:?}"
    );
    wait_until("the agent told", || {
        b.told(0)
            .iter()
            .any(|t| t.contains("was merged into main of web"))
    })
    .await;
    // Merged, the branch no longer differs from the base: looked at again with the merge.
    let w = b
        .state
        .store
        .with_docs(|d| worktree(d, &b.project, &b.who).cloned())
        .unwrap();
    assert_eq!((w.commits_ahead, w.changed_files.len()), (0, 0), "{w:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_base_that_moved_on_gets_a_merge_commit_or_the_branch_replayed() {
    let b = bench(1, None, &[]).await;
    b.agent_commits("agent.txt", "agent\n");
    b.user_commits("user.txt", "user\n");
    b.approve().await;
    b.refused("ff", "cannot be fast-forwarded").await;
    b.approve().await;
    let r = b.post("merge", json!({"strategy": "merge"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let parents = git(&b.web, &["log", "-1", "--format=%P", "main"]);
    assert_eq!(parents.split(' ').count(), 2, "a merge commit");
    assert!(b.web.join("agent.txt").exists() && b.web.join("user.txt").exists());
    assert_eq!(git(&b.web, &["status", "--porcelain"]), "");

    // Replayed: the base stays a line, and the agent's branch moves onto it.
    let c = bench(2, None, &[]).await;
    c.agent_commits("agent.txt", "agent\n");
    c.user_commits("user.txt", "user\n");
    c.approve().await;
    let r = c.post("merge", json!({"strategy": "rebase"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        git(&c.web, &["log", "-1", "--format=%P", "main"])
            .split(' ')
            .count(),
        1
    );
    assert_eq!(
        git(&c.web, &["log", "-1", "--format=%s", "main"]),
        "agent.txt by the agent"
    );
    assert_eq!(
        git(&c.tree, &["rev-parse", "HEAD"]),
        git(&c.web, &["rev-parse", "main"])
    );
    assert_eq!(git(&c.tree, &["status", "--porcelain"]), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicts_a_dirty_moved_or_detached_base_are_refused_and_change_nothing() {
    let b = bench(3, None, &[]).await;
    b.agent_commits("README.md", "# agent\n");
    b.user_commits("README.md", "# user\n");
    b.approve().await;
    let body = b.refused("merge", "conflicts with main").await;
    assert_eq!(body["files"], json!(["README.md"]));
    assert_eq!(
        std::fs::read_to_string(b.web.join("README.md")).unwrap(),
        "# user\n"
    );
    assert_eq!(b.merge_state(), Some(MergeState::Refused));
    wait_until("the agent told of the conflict", || {
        b.told(3)
            .iter()
            .any(|t| t.contains("did not happen") && t.contains("Files: README.md"))
    })
    .await;

    let c = bench(4, None, &[]).await;
    c.agent_commits("agent.txt", "agent\n");
    c.approve().await;
    std::fs::write(c.web.join("README.md"), "# edited, not committed\n").unwrap();
    let body = c
        .refused(
            "merge",
            "has changes not committed in your checkout of main",
        )
        .await;
    assert_eq!(body["files"], json!(["README.md"]));
    assert_eq!(
        std::fs::read_to_string(c.web.join("README.md")).unwrap(),
        "# edited, not committed\n"
    );
    git(&c.web, &["checkout", "--", "README.md"]);
    c.user_commits("user.txt", "moved on\n");
    c.refused("merge", "main moved since the review").await;
    c.approve().await;
    git(&c.web, &["checkout", "-q", "--detach"]);
    c.refused("merge", "detached HEAD").await;
    // The branch moved after the approval: the approval lapsed.
    git(&c.web, &["checkout", "-q", "main"]);
    c.agent_commits("agent.txt", "agent, later\n");
    wait_for(&c.state, "the new head seen", |d| {
        worktree(d, &c.project, &c.who).is_some_and(|w| w.review == Review::Working)
    })
    .await;
    c.refused("merge", "is not approved").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_hanging_check_refuses_the_merge_with_its_output() {
    let b = bench(5, Some("echo 'test result: FAILED'; exit 3"), &[]).await;
    b.agent_commits("agent.txt", "agent\n");
    b.approve().await;
    let body = b.refused("merge", "the check failed (exit status 3)").await;
    assert_eq!(body["exit"], 3);
    assert!(
        body["output"]
            .as_str()
            .unwrap()
            .contains("test result: FAILED"),
        "{body}"
    );
    // Changes not committed in the worktree: the check would not test what is merged.
    std::fs::write(b.tree.join("loose.txt"), "x\n").unwrap();
    b.approve().await;
    let body = b.refused("merge", "changes not committed").await;
    assert_eq!(body["files"], json!(["loose.txt"]));

    let pid_file = b._root.path().join("check.pid");
    // The pid of what the check started (not the shell's, which its own kill would end). Without
    // the sandbox: in it the check's pids are its own and it writes only its worktree, and its
    // PID namespace ends all it started (`repo::check`'s tests).
    let hang = format!("sleep 600 & echo $! > {}; wait", pid_file.display());
    let c = bench(
        6,
        Some(&hang),
        &["--check-timeout", "1s", "--sandbox", "off"],
    )
    .await;
    c.agent_commits("agent.txt", "agent\n");
    c.approve().await;
    let body = c.refused("merge", "the check did not finish in time").await;
    assert!(
        body["output"].as_str().unwrap().contains("was stopped"),
        "{body}"
    );
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    wait_until("what the check started is gone", || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s.split(' ').nth(2) == Some("Z"))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merges_of_one_project_run_one_at_a_time_and_the_second_sees_the_base_moved() {
    let b = bench(0, Some("sleep 0.3"), &[]).await;
    let other = identity_in(&b.state, 1);
    let w = put_to_work(&b.router, &b.project, &other).await;
    let tree2 = PathBuf::from(w["path"].as_str().unwrap());
    b.agent_commits("a.txt", "a\n");
    std::fs::write(tree2.join("b.txt"), "b\n").unwrap();
    git(&tree2, &["add", "b.txt"]);
    git(&tree2, &["commit", "-q", "-m", "b"]);
    b.approve().await;
    let r = call(
        &b.router,
        post_json(
            &format!("/api/projects/{}/branches/{other}/approve", b.project),
            json!({}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let first = b.post("merge", json!({}));
    let second = call(
        &b.router,
        post_json(
            &format!("/api/projects/{}/branches/{other}/merge", b.project),
            json!({}),
        ),
    );
    let (r1, r2) = tokio::join!(first, second);
    // The one that came second found the base moved since its review: refused, not raced.
    let mut statuses = [r1.status.as_u16(), r2.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} {}", r1.body, r2.body);
    let refused = if r1.status == 409 { &r1 } else { &r2 };
    assert!(
        refused.body.contains("main moved since the review"),
        "{}",
        refused.body
    );
    // In the log, one merge runs from its check to its end before the other's check starts.
    let moves: Vec<(String, MergeState)> = b
        .state
        .store
        .events_after(0, 100_000)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::MergeMoved {
                identity_id, state, ..
            } if state != MergeState::Queued => Some((identity_id, state)),
            _ => None,
        })
        .collect();
    let firsts: Vec<&String> = moves.iter().map(|(who, _)| who).collect();
    let switches = firsts.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(switches, 1, "no interleaving: {moves:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_merge_asked_twice_at_once_runs_once() {
    let b = bench(2, Some("sleep 0.3"), &[]).await;
    b.agent_commits("a.txt", "a\n");
    b.approve().await;
    let (r1, r2) = tokio::join!(b.post("merge", json!({})), b.post("merge", json!({})));
    let mut statuses = [r1.status.as_u16(), r2.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} {}", r1.body, r2.body);
    let refused = if r1.status == 409 { &r1 } else { &r2 };
    assert!(
        refused.body.contains("already being merged"),
        "{}",
        refused.body
    );
    let merged = count_events(&b.state, |k| {
        matches!(
            k,
            EventKind::MergeMoved {
                state: MergeState::Merged,
                ..
            }
        )
    })
    .await;
    assert_eq!(merged, 1);
}
