//! Each bad input gets a clear sentence with a fitting status, and changes nothing.

use serde_json::json;

use super::*;

async fn refused(router: &axum::Router, uri: &str, body: Value, status: u16, says: &str) {
    let r = call(router, post_json(uri, body.clone())).await;
    assert_eq!(r.status, status, "{body}: {}", r.body);
    let error = r.json()["error"].as_str().unwrap_or_default().to_string();
    assert!(
        error.contains(says),
        "{body}: {error:?} should say {says:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn linking_refuses_what_is_not_a_work_tree_inside_the_allowed_folders() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let plain = root.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let bare = root.path().join("bare.git");
    git(
        root.path(),
        &[
            "clone",
            "-q",
            "--bare",
            web.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = repo(outside.path(), "elsewhere");
    let linked_wt = root.path().join("linked");
    git(
        &web,
        &[
            "worktree",
            "add",
            "-q",
            linked_wt.to_str().unwrap(),
            "-b",
            "side",
        ],
    );
    let detached = repo(root.path(), "detached");
    git(&detached, &["checkout", "-q", "--detach"]);
    let (_dir, _state, router) = team_in(root.path()).await;
    let at = "/api/projects";
    refused(
        &router,
        at,
        json!({"path": plain}),
        400,
        "is not a git work tree",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": bare}),
        400,
        "is a bare repository",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": root.path().join("nothing")}),
        400,
        "is not a folder this server can see",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": linked_wt}),
        400,
        "is a linked worktree",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": detached}),
        400,
        "detached HEAD: say which branch is the base",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": web, "base": "nope"}),
        400,
        "has no branch nope",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": web, "base": "a..b"}),
        400,
        "cannot be the base branch",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": web, "check": "a\nb"}),
        400,
        "the check command is one line",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": web, "name": " "}),
        400,
        "a project needs a name",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": web, "sneaky": 1}),
        400,
        "sneaky",
    )
    .await;
    // An empty path is asked for, not echoed as nothing; a long one is cut; the folders this
    // server allows are named; `~` is the server's home folder.
    refused(&router, at, json!({"path": "  "}), 400, "give the path of").await;
    let long = format!("/{}", "x".repeat(5000));
    let r = call(&router, post_json(at, json!({ "path": long }))).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let said = r.json()["error"].as_str().unwrap().to_string();
    assert!(said.len() < 400 && said.contains('…'), "{said}");
    let allowed = std::fs::canonicalize(root.path()).unwrap();
    refused(
        &router,
        at,
        json!({"path": elsewhere}),
        400,
        &format!("(--allow-dir: {})", allowed.display()),
    )
    .await;
    let r = call(&router, get("/api/projects/folders")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!([allowed.display().to_string()]));
    let home = std::path::PathBuf::from(std::env::var("HOME").unwrap());
    let up = "../".repeat(home.components().count() - 1);
    let tilde = format!(
        "~/{up}{}",
        web.display().to_string().trim_start_matches('/')
    );
    let r = call(&router, post_json(at, json!({ "path": tilde }))).await;
    assert_eq!(r.status, 201, "{tilde}: {}", r.body);
    let r = call(
        &router,
        post_json(
            &format!("/api/projects/{}/unlink", r.json()["id"].as_str().unwrap()),
            json!({}),
        ),
    )
    .await;
    assert!(r.status.is_success(), "{}", r.body);
    let id = link(&router, &web).await;
    refused(
        &router,
        at,
        json!({"path": web}),
        409,
        "is already linked, as web",
    )
    .await;
    refused(
        &router,
        at,
        json!({"path": detached, "name": "WEB", "base": "main"}),
        409,
        "a project named web is already linked",
    )
    .await;
    // The detached repository links once it names its base.
    let r = call(
        &router,
        post_json(at, json!({"path": detached, "base": "main"})),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let r = call(&router, get("/api/projects/nope")).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["error"].as_str()),
        (404, Some("no project has this id"))
    );
    let r = call(
        &router,
        post_json(&format!("/api/projects/{id}/unlink"), json!({})),
    )
    .await;
    assert_eq!(r.status, 204);
    // Unlinked, the same folder may be linked again.
    link(&router, &web).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn putting_to_work_refuses_twice_a_taken_branch_and_strangers() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let at = format!("/api/projects/{project}/agents");
    let lyra = identity_in(&state, 0);
    put_to_work(&router, &project, &lyra).await;
    refused(
        &router,
        &at,
        json!({"agent": lyra}),
        409,
        "is already at work on web",
    )
    .await;
    refused(
        &router,
        &at,
        json!({"agent": "nobody"}),
        404,
        "no agent has this id",
    )
    .await;
    refused(
        &router,
        "/api/projects/nope/agents",
        json!({"agent": lyra}),
        404,
        "no linked project",
    )
    .await;
    // The user made a branch with the name Soulgrid would give the next agent.
    let inbox = state
        .store
        .with_docs(|d| identity(d, 1).unwrap().inbox.clone().unwrap());
    git(&web, &["branch", &format!("soulgrid/{inbox}")]);
    let kael = identity_in(&state, 1);
    refused(
        &router,
        &at,
        json!({"agent": kael}),
        409,
        "that Soulgrid did not make",
    )
    .await;
    assert!(!state
        .runtime
        .store()
        .with_docs(|d| app::domain::projects::worktree(d, &project, &kael).is_some()));
    let r = call(
        &router,
        get(&format!("/api/projects/{project}/diff?agent={kael}")),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
}
