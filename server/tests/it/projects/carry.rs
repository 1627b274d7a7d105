//! The work carried: a `.soul` holds its agent's unmerged branch, which comes into a project
//! of the same name in another team (waiting until one is linked; kept waiting when that
//! project lacks the commits it was made against); the team export holds each project's
//! branches, and a restore makes a lost branch again (and each worktree where the restored
//! data directory keeps it).

use std::path::Path;

use serde_json::json;

use super::*;

/// Lyra (seat 0) at work on `web` with one commit of her own; the project's id, her identity,
/// her worktree and the commit.
async fn lyra_commits(
    state: &AppState,
    router: &axum::Router,
    repo: &Path,
) -> (String, String, String) {
    let project = link(router, repo).await;
    let lyra = identity_in(state, 0);
    let w = put_to_work(router, &project, &lyra).await;
    let tree = std::path::PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(tree.join("notes.md"), "Lyra's notes\n").unwrap();
    git(&tree, &["add", "notes.md"]);
    git(&tree, &["commit", "-q", "-m", "Notes"]);
    (project, lyra, git(&tree, &["rev-parse", "HEAD"]))
}

fn waiting(data: &Path) -> usize {
    std::fs::read_dir(data.join("carried")).map_or(0, |d| d.count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_soul_brings_its_unmerged_branch_into_a_project_of_the_same_name() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_a, state, router) = team_in(root.path()).await;
    let (web_id, lyra, commit) = lyra_commits(&state, &router, &web).await;
    let r = call(&router, get(&format!("/api/agents/{lyra}/bundle"))).await;
    assert_eq!(r.status, 200);
    let soul = r.body.clone();
    let soul_again = soul.clone();
    let body: serde_json::Value = serde_json::from_str(soul.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        body["branches"][0]["project"], "web",
        "{}",
        body["branches"]
    );

    // Another team on another machine: its own clone of the repository, and first an
    // unrelated repository also named web (which lacks Lyra's base commit).
    let there = tempfile::tempdir().unwrap();
    let stranger = there.path().join("stranger").join("web");
    std::fs::create_dir_all(&stranger).unwrap();
    git(&stranger, &["init", "-q", "-b", "main"]);
    std::fs::write(stranger.join("other.txt"), "other\n").unwrap();
    git(&stranger, &["add", "-A"]);
    git(&stranger, &["commit", "-q", "-m", "another history"]);
    let clone = there.path().join("web");
    git(
        there.path(),
        &[
            "clone",
            "-q",
            web.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let (b, other, router_b) = team_in(there.path()).await;

    // Brought before any project is linked: the branch waits.
    let r = call(&router_b, import_soul(soul)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(waiting(b.path()), 2, "a bundle and what it waits for");

    // A project named web that is not the same repository: it keeps waiting.
    let wrong = link(&router_b, &stranger).await;
    assert_eq!(waiting(b.path()), 2);
    assert!(other
        .store
        .with_docs(|d| app::domain::projects::worktree(d, &wrong, &id).is_none()));
    call(
        &router_b,
        post_json(&format!("/api/projects/{wrong}/unlink"), json!({})),
    )
    .await;

    // Its clone, linked as web: Lyra is at work on it, on a branch of hers at her commit.
    let project = link(&router_b, &clone).await;
    assert_eq!(waiting(b.path()), 0, "brought in, nothing waits");
    let w = other
        .store
        .with_docs(|d| app::domain::projects::worktree(d, &project, &id).cloned())
        .expect("Lyra at work on the clone");
    assert_eq!(
        git(&clone, &["rev-parse", &format!("refs/heads/{}", w.branch)]),
        commit
    );
    assert_eq!(
        std::fs::read_to_string(Path::new(&w.path).join("notes.md")).unwrap(),
        "Lyra's notes\n"
    );
    // Nothing of the clone's own branches changed.
    assert_eq!(
        git(&clone, &["rev-parse", "main"]),
        git(&web, &["rev-parse", "main"])
    );

    // A third team on the very same repository, where her branch's name is taken (by the
    // team she came from): she gets a branch of another name, at her commit.
    let (_c, third, router_c) = team_in(root.path()).await;
    let mine = state.store.with_docs(|d| {
        app::domain::projects::worktree(d, &web_id, &lyra)
            .unwrap()
            .branch
            .clone()
    });
    let here = link(&router_c, &web).await;
    let r = call(&router_c, import_soul(soul_again)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let w = third
        .store
        .with_docs(|d| app::domain::projects::worktree(d, &here, &id).cloned())
        .expect("at work on the same repository");
    assert_ne!(w.branch, mine);
    assert_eq!(
        git(&web, &["rev-parse", &format!("refs/heads/{}", w.branch)]),
        commit
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_export_carries_the_branches_and_a_restore_makes_a_lost_one_again() {
    use soulgrid::clock::Clock;
    use soulgrid::portable::team::{export, import};
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (a, state, router) = team_in(root.path()).await;
    let (project, lyra, commit) = lyra_commits(&state, &router, &web).await;
    let branch = state.store.with_docs(|d| {
        app::domain::projects::worktree(d, &project, &lyra)
            .unwrap()
            .branch
            .clone()
    });
    soulgrid::shut_down(&state).await;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("team.export");
    let data = a.path().to_path_buf();
    let path = file.clone();
    tokio::task::spawn_blocking(move || {
        let mut out = std::fs::File::create(&path).unwrap();
        export(&data, ("soulgrid", &Clock::system()), &mut out, &mut |_| {}).unwrap()
    })
    .await
    .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(&format!("\"path\":\"carried/project-{project}.bundle\"")),
        "the export holds the project's branches"
    );

    // The branch is lost from the repository; the team is restored from its export.
    git(&web, &["update-ref", "-d", &format!("refs/heads/{branch}")]);
    let restored = work.path().join("restored");
    let path = file.clone();
    let into = restored.clone();
    tokio::task::spawn_blocking(move || import(&path, &into, &mut |_| {}).unwrap())
        .await
        .unwrap();
    assert_eq!(waiting(&restored), 2);
    let state = boot_with(
        &restored,
        &["--allow-dir", &root.path().display().to_string()],
    )
    .await;
    assert_eq!(
        git(&web, &["rev-parse", &format!("refs/heads/{branch}")]),
        commit
    );
    assert_eq!(waiting(&restored), 0);
    // Woken, Lyra works in a worktree of the restored data directory, her commit in it.
    state.runtime.wake_only(Some(&[0])).await;
    let here = restored.join("worktrees").join(&lyra).join(&project);
    wait_for(
        &state,
        "her worktree where the restored team keeps it",
        |d| {
            app::domain::projects::worktree(d, &project, &lyra)
                .is_some_and(|w| Path::new(&w.path) == here)
        },
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(here.join("notes.md")).unwrap(),
        "Lyra's notes\n"
    );
    soulgrid::shut_down(&state).await;
}
