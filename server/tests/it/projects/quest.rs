//! A quest on a project: its agents read it in worktrees of their own (made when their stage
//! begins), their findings name a file and line of it, and the file around that line is one
//! request away; a quest names a linked project or a folder, never both, and a finding's file
//! that leaves the project is refused.

use app::domain::quest::quest;
use serde_json::json;

use super::{link, repo, team_in};
use crate::common::*;

async fn start(router: &axum::Router, body: serde_json::Value) -> Reply {
    call(router, post_json("/api/quests", body)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_quest_on_a_project_reads_it_in_worktrees_and_its_findings_name_lines() {
    let root = tempfile::tempdir().unwrap();
    let path = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &path).await;

    let r = start(
        &router,
        json!({"problem": "Review it", "project": "nowhere"}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains("no linked project is named nowhere"),
        "{}",
        r.body
    );
    let r = start(
        &router,
        json!({"problem": "Review it", "project": "web", "folder": root.path()}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("not both"), "{}", r.body);

    // By its name (its id works too).
    let r = start(
        &router,
        json!({"problem": "Review the code", "project": "web"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let view = call(&router, get(&format!("/api/quests/{id}")))
        .await
        .json();
    assert_eq!(view["project"], json!(project));

    // The first stage's two agents each get a worktree and post a finding on README.md:1.
    wait_for(&state, "two findings with a file", |d| {
        app::domain::quest::findings_of(d, &id)
            .iter()
            .filter(|f| f.file.as_deref() == Some("README.md") && f.line == Some(1))
            .count()
            >= 2
    })
    .await;
    let (agents, findings) = state.store.with_all_docs(|d| {
        let q = quest(d, &id).unwrap();
        (
            q.stages[0].agents.clone(),
            app::domain::quest::findings_of(d, &id)
                .into_iter()
                .cloned()
                .collect::<Vec<_>>(),
        )
    });
    for a in &agents {
        let at_work = state.store.with_all_docs(|d| {
            app::domain::projects::worktrees_of_project(d, &project)
                .iter()
                .any(|w| w.agent == a.name)
        });
        assert!(at_work, "{} has a worktree of the project", a.name);
    }
    // The stage prompt said where: the simulator named the file by its absolute path in its
    // worktree, and the finding keeps it relative to the project.
    let f = &findings[0];
    let who = f.identity_id.clone().unwrap();
    let r = call(
        &router,
        get(&format!(
            "/api/projects/{project}/file?path=README.md&agent={who}&line=1"
        )),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let x = r.json();
    assert_eq!(x["first"], 1);
    assert_eq!(x["lines"][0], "# web");
    assert!(x["from"].as_str().unwrap().ends_with("'s worktree"), "{x}");
    let view = call(&router, get(&format!("/api/quests/{id}")))
        .await
        .json();
    let shown = &view["findings"][0];
    assert_eq!(
        (&shown["file"], &shown["line"]),
        (&json!("README.md"), &json!(1))
    );
    // The base's file without an agent; bad paths refused.
    let r = call(
        &router,
        get(&format!(
            "/api/projects/{project}/file?path=src/lib.rs&line=2"
        )),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["from"], "main");
    assert_eq!(r.json()["lines"][1], "    1");
    let r = call(
        &router,
        get(&format!("/api/projects/{project}/file?path=src")),
    )
    .await;
    assert_eq!(r.status, 400, "a folder: {}", r.body);
    for (path, status) in [
        ("../outside", 400),
        ("/etc/passwd", 400),
        (".git/config", 400),
        ("missing.txt", 404),
    ] {
        let r = call(
            &router,
            get(&format!(
                "/api/projects/{project}/file?path={path}&agent={who}"
            )),
        )
        .await;
        assert_eq!(r.status, status, "{path}: {}", r.body);
        assert!(r.json()["error"].is_string(), "{}", r.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_whose_file_leaves_the_project_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let path = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    link(&router, &path).await;
    let r = start(
        &router,
        json!({"problem": "Look SIM_OUTSIDE", "project": "web"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    // Each agent's post_finding is answered with why; it says it is done all the same.
    wait_for(&state, "two refusals of the file", |d| {
        app::domain::docs::messages(d)
            .filter(|m| {
                m.tool.as_ref().is_some_and(|t| {
                    t.tool() == "post_finding"
                        && t.is_error
                        && t.output.contains("is not in the quest's project")
                })
            })
            .count()
            >= 2
    })
    .await;
    let posted = state
        .store
        .with_all_docs(|d| app::domain::quest::findings_of(d, &id).len());
    assert_eq!(posted, 0, "no finding points outside the project");
}
