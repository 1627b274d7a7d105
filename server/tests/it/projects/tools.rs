//! The tools of the work on code: the lead's `put_to_work`, an agent's `request_review` and
//! `claim_files` (driven through the simulated CLI, which calls a tool as the real one does).

use app::domain::docs::Review;
use app::domain::projects::worktree;
use app::domain::LEAD_SEAT;

use super::*;
use crate::tool_calls::ask;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_lead_puts_to_work_and_agents_ask_for_review_and_claim_files() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let name = |seat: u8| {
        state
            .store
            .with_docs(|d| identity(d, seat).unwrap().name.clone().unwrap())
    };
    let (lyra, kael) = (name(0), name(1));

    let answer = ask(&state, &router, 0, "SIM_CALL: request_review {}").await;
    assert_eq!(
        answer,
        "Tool request_review answered (error): you are not at work on any project"
    );
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: put_to_work {\"agent\":\"x\",\"project\":\"web\"}",
    )
    .await;
    assert!(
        answer.contains("only the lead may use put_to_work"),
        "{answer}"
    );

    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!("SIM_CALL: put_to_work {{\"agent\":\"{lyra}\",\"project\":\"web\"}}"),
    )
    .await;
    assert!(
        answer.starts_with(&format!(
            "Tool put_to_work answered (ok): {lyra} is at work on web in "
        )),
        "{answer}"
    );
    let answer = ask(
        &state,
        &router,
        LEAD_SEAT,
        &format!("SIM_CALL: put_to_work {{\"agent\":\"{kael}\",\"project\":\"nope\"}}"),
    )
    .await;
    assert!(
        answer.contains("no linked project \\\"nope\\\"")
            || answer.contains("no linked project \"nope\""),
        "{answer}"
    );
    put_to_work(&router, &project, &identity_in(&state, 1)).await;

    // Put to work, Lyra restarts with her worktree; then she asks for a review.
    let lyra_id = identity_in(&state, 0);
    wait_for(&state, "Lyra awake again", |d| {
        identity(d, 0).is_some_and(|i| i.process_state.is_some_and(|p| p.is_live()))
    })
    .await;
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: request_review {\"note\":\"the parser\"}",
    )
    .await;
    assert!(
        answer.starts_with("Tool request_review answered (ok): Your branch soulgrid/"),
        "{answer}"
    );
    assert_eq!(
        state
            .store
            .with_docs(|d| worktree(d, &project, &lyra_id).map(|w| w.review)),
        Some(Review::Requested)
    );

    // Kael changes the README; Lyra claims it: both are told, each naming the other.
    let kael_tree = state.store.with_docs(|d| {
        worktree(d, &project, &identity_in(&state, 1))
            .unwrap()
            .path
            .clone()
    });
    std::fs::write(PathBuf::from(&kael_tree).join("README.md"), "# Kael's\n").unwrap();
    wait_for(&state, "Kael's change seen", |d| {
        worktree(d, &project, &identity_in(&state, 1)).is_some_and(|w| !w.changed_files.is_empty())
    })
    .await;
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: claim_files {\"paths\":[\"README.md\"],\"why\":\"a new intro\"}",
    )
    .await;
    assert!(
        answer.contains(&format!("but {kael} also is on them")),
        "{answer}"
    );
    let notes = |seat: u8| {
        let inbox = state
            .store
            .with_docs(|d| identity(d, seat).unwrap().inbox().unwrap());
        state
            .runtime
            .mailboxes()
            .all(&inbox)
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m.from == "Soulgrid")
            .map(|m| m.text)
            .collect::<Vec<_>>()
    };
    wait_until("both told", || {
        notes(1).iter().any(|t| {
            t.contains(&format!(
                "{lyra} means to change README.md in web (a new intro)"
            ))
        }) && notes(0)
            .iter()
            .any(|t| t.contains(&format!("{kael} is on README.md in web too")))
    })
    .await;
    let claim = state.store.with_docs(|d| {
        worktree(d, &project, &lyra_id)
            .unwrap()
            .claim
            .clone()
            .unwrap()
    });
    assert_eq!(
        (claim.paths, claim.why.as_str()),
        (vec!["README.md".to_string()], "a new intro")
    );
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: claim_files {\"paths\":[\"../etc\"],\"why\":\"x\"}",
    )
    .await;
    assert!(
        answer.contains("is not a path inside the project"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_is_let_go_when_its_time_is_up() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let clock = soulgrid::clock::Clock::movable();
    let (_dir, state, router) = team_on(
        &["--allow-dir", &root.path().display().to_string()],
        clock.clone(),
    )
    .await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 0);
    let w = put_to_work(&router, &project, &lyra).await;
    // Awake, she goes on with her worktree: asked before that, the message would wait for it.
    let tree = w["path"].as_str().unwrap().to_string();
    wait_for(&state, "Lyra told her worktree", |d| {
        app::domain::docs::thread(d, 0)
            .iter()
            .any(|m| m.text.contains(&tree))
    })
    .await;
    let answer = ask(
        &state,
        &router,
        0,
        "SIM_CALL: claim_files {\"paths\":[\"src\"],\"why\":\"a refactor\"}",
    )
    .await;
    assert!(answer.contains("(ok)"), "{answer}");
    let held = |d: &app::domain::docs::Docs| {
        worktree(d, &project, &lyra).is_some_and(|w| w.claim.is_some())
    };
    assert!(state.store.with_docs(held));
    // Two hours on, the radar's next look lets it go (a write in the worktree makes one now).
    assert!(clock.advance(std::time::Duration::from_secs(2 * 3600 + 1)));
    let tree = std::path::PathBuf::from(w["path"].as_str().unwrap());
    std::fs::write(tree.join("notes.txt"), "later\n").unwrap();
    wait_for(&state, "the claim let go", |d| !held(d)).await;
    assert!(state
        .store
        .with_docs(|d| app::domain::projects::radar_of(d, &lyra))
        .is_none());
}
