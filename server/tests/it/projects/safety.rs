//! The server's git never runs anything the repository's configuration names: an agent can
//! write that configuration (its own `git config` in its worktree writes the shared one).

use super::*;

/// A repository whose configuration, hooks and attributes each try to run a program that
/// leaves a file in `ran/` when it runs.
fn booby_trapped(root: &Path) -> (PathBuf, PathBuf) {
    let web = repo(root, "web");
    let ran = root.join("ran");
    std::fs::create_dir_all(&ran).unwrap();
    let mark = |what: &str| format!("touch {}/{what}; cat", ran.display());
    std::fs::write(
        web.join(".gitattributes"),
        "* filter=trap diff=trap merge=trap\n",
    )
    .unwrap();
    git(&web, &["add", ".gitattributes"]);
    git(&web, &["commit", "-q", "-m", "attributes"]);
    for (key, value) in [
        ("core.fsmonitor", mark("fsmonitor")),
        ("filter.trap.clean", mark("clean")),
        ("filter.trap.smudge", mark("smudge")),
        ("filter.trap.process", mark("process")),
        ("filter.trap.required", "true".into()),
        ("diff.trap.textconv", mark("textconv")),
        ("diff.trap.command", mark("diffcommand")),
        ("diff.external", mark("external")),
        ("merge.trap.driver", mark("mergedriver")),
        ("core.pager", mark("pager")),
        ("gpg.program", mark("gpg")),
        ("log.showSignature", "true".into()),
        (
            "core.hooksPath",
            web.join(".git/hooks").display().to_string(),
        ),
    ] {
        git(&web, &["config", key, &value]);
    }
    for hook in [
        "post-checkout",
        "reference-transaction",
        "post-index-change",
        "pre-commit",
    ] {
        let path = web.join(".git/hooks").join(hook);
        std::fs::write(
            &path,
            format!("#!/bin/sh\ntouch {}/hook-{hook}\n", ran.display()),
        )
        .unwrap();
        std::os::unix::fs::PermissionsExt::set_mode(
            &mut std::fs::metadata(&path).unwrap().permissions(),
            0o755,
        );
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    (web, ran)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_hook_filter_fsmonitor_or_configured_program_runs() {
    let root = tempfile::tempdir().unwrap();
    let (web, ran) = booby_trapped(root.path());
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 0);
    let w = put_to_work(&router, &project, &lyra).await;
    let tree = PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(tree.join("README.md"), "# changed\n").unwrap();
    std::fs::write(tree.join("new.txt"), "new\n").unwrap();
    diff(&router, &project, &lyra, 0).await;
    call(&router, get(&format!("/api/projects/{project}"))).await;
    // Removed by hand and made again: a checkout through the shadow as well.
    state.runtime.sleep(0, "test").await;
    std::fs::remove_dir_all(&tree).unwrap();
    state.runtime.wake_only(Some(&[0])).await;
    wait_until("the worktree made again", || {
        tree.join("src/lib.rs").exists()
    })
    .await;
    diff(&router, &project, &lyra, 0).await;
    let left: Vec<String> = std::fs::read_dir(&ran)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "the server's git ran: {left:?}");
    // The trap works for git run the ordinary way: the test would see it.
    let _ = std::process::Command::new("git")
        .current_dir(&tree)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["status", "--porcelain"])
        .output();
    assert!(
        ran.join("fsmonitor").exists() || ran.join("clean").exists(),
        "the trap is armed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branch_and_worktree_names_are_the_servers_own() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 0);
    let w = put_to_work(&router, &project, &lyra).await;
    let branch = w["branch"].as_str().unwrap();
    assert!(
        branch.starts_with("soulgrid/") && !branch.contains(".."),
        "{branch}"
    );
    assert!(
        branch["soulgrid/".len()..]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'),
        "{branch}"
    );
    // An identity id that is a path is refused before anything is made.
    let r = call(
        &router,
        post_json(
            &format!("/api/projects/{project}/agents"),
            serde_json::json!({"agent": "../../etc"}),
        ),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(!_dir.path().join("etc").exists());
}

/// git as the test runs it in the trapped repository: every trap disarmed for its own calls.
fn git_disarmed(dir: &Path, args: &[&str]) {
    let mut all = vec![
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "filter.trap.clean=cat",
        "-c",
        "filter.trap.smudge=cat",
        "-c",
        "filter.trap.process=",
        "-c",
        "filter.trap.required=false",
        "-c",
        "core.pager=cat",
        "-c",
        "log.showSignature=false",
    ];
    all.extend_from_slice(args);
    git(dir, &all);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_runs_no_trap_and_the_shadow_cannot_be_rearmed() {
    let root = tempfile::tempdir().unwrap();
    let (web, ran) = booby_trapped(root.path());
    let (dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let who = identity_in(&state, 1);
    let w = put_to_work(&router, &project, &who).await;
    let tree = PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(tree.join("agent.txt"), "agent\n").unwrap();
    git_disarmed(&tree, &["add", "agent.txt"]);
    git_disarmed(&tree, &["commit", "-q", "-m", "agent"]);
    // The base moves on: a merge commit (merge-tree, commit-tree) and the checkout after it.
    std::fs::write(web.join("user.txt"), "user\n").unwrap();
    git_disarmed(&web, &["add", "user.txt"]);
    git_disarmed(&web, &["commit", "-q", "-m", "user"]);
    // The radar has looked at the agent's commit: no look of its own is under way when the
    // shadow is tampered with below (a look started before the tampering and run after it
    // would read what was put there: the mending is the merge's, at its start).
    let head = git(&tree, &["rev-parse", "HEAD"]);
    wait_for(&state, "the radar saw the agent's commit", |d| {
        app::domain::projects::worktree(d, &project, &who)
            .is_some_and(|w| w.head.as_deref() == Some(head.as_str()))
    })
    .await;
    for f in std::fs::read_dir(&ran).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    let at = format!("/api/projects/{project}/branches/{who}");
    let r = call(
        &router,
        post_json(&format!("{at}/approve"), serde_json::json!({})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Then someone rewrites the shadow's own configuration to include the repository's, and
    // gives it attributes.
    let shadow = dir.path().join("projects").join(&project).join("git");
    std::fs::write(
        shadow.join("config"),
        format!(
            "[include]\n\tpath = {}\n",
            web.join(".git/config").display()
        ),
    )
    .unwrap();
    std::fs::write(shadow.join("info/attributes"), "* filter=trap\n").unwrap();
    let r = call(
        &router,
        post_json(&format!("{at}/merge"), serde_json::json!({})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(web.join("agent.txt").exists(), "merged into the checkout");
    let left: Vec<String> = std::fs::read_dir(&ran)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "the server's git ran: {left:?}");
    assert!(
        !shadow.join("info/attributes").exists(),
        "the shadow was mended"
    );
}
