//! An awake agent put to work is started again with its worktree; a sleep or a stop asked
//! meanwhile (the human's, the server's shutdown, a leader stepping down) wins over that start.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_humans_sleep_right_after_put_to_work_is_not_undone() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 3);
    assert!(state.runtime.running().contains(&3));
    let before = state.store.last_event_id();
    put_to_work(&router, &project, &lyra).await;
    state.runtime.sleep(3, "the human").await;
    state.runtime.restarts_settled().await;
    assert!(!state.runtime.running().contains(&3), "woken again");
    assert_eq!(
        started_sessions(&state, 3, before).await,
        Vec::<Option<String>>::new()
    );
    // Woken by the human, it has its worktree.
    assert_eq!(state.runtime.wake_only(Some(&[3])).await, vec![3]);
    let state_file = _dir.path().join("agents/3/_state.md");
    wait_until("_state.md names the worktree", || {
        std::fs::read_to_string(&state_file).is_ok_and(|t| t.contains("- worktrees: web at "))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_agent_stopped_right_after_put_to_work_stays_stopped() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 5);
    assert!(state.runtime.running().contains(&5));
    put_to_work(&router, &project, &lyra).await;
    // What a shutdown and a leader that steps down do.
    state.runtime.stop_all("this server no longer leads").await;
    state.runtime.restarts_settled().await;
    assert_eq!(state.runtime.running(), Vec::<u8>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_to_work_on_two_projects_at_once_is_started_again_with_both() {
    let root = tempfile::tempdir().unwrap();
    let (web, api) = (repo(root.path(), "web"), repo(root.path(), "api"));
    let (_dir, state, router) = team_in(root.path()).await;
    let (web, api) = (link(&router, &web).await, link(&router, &api).await);
    let lyra = identity_in(&state, 3);
    assert!(state.runtime.running().contains(&3));
    let before = state.store.last_event_id();
    put_to_work(&router, &web, &lyra).await;
    put_to_work(&router, &api, &lyra).await;
    state.runtime.restarts_settled().await;
    assert!(state.runtime.running().contains(&3), "not started again");
    assert_eq!(started_sessions(&state, 3, before).await.len(), 1);
}

/// Put to work while awake, an agent goes on in the Claude session it had, told its worktree:
/// no distil turn, no waking words, no welcome back from the lead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_awake_agent_put_to_work_goes_on_quietly_in_its_session() {
    let root = tempfile::tempdir().unwrap();
    let web = repo(root.path(), "web");
    let (_dir, state, router) = team_in(root.path()).await;
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 3);
    let session = state
        .store
        .with_docs(|d| identity(d, 3).unwrap().claude_session_id.clone());
    assert!(session.is_some());
    let before = state.store.last_event_id();
    let tree = put_to_work(&router, &project, &lyra).await["path"]
        .as_str()
        .unwrap()
        .to_string();
    state.runtime.restarts_settled().await;
    assert!(state.runtime.running().contains(&3), "not started again");
    assert_eq!(started_sessions(&state, 3, before).await, vec![session]);
    wait_for(&state, "the note of its worktree answered", |d| {
        app::domain::docs::thread(d, 3)
            .iter()
            .any(|m| m.event_id > before && m.text.contains(&tree))
    })
    .await;
    let docs = state.store.snapshot().0;
    let since: Vec<_> = app::domain::docs::thread(&docs, 3)
        .into_iter()
        .filter(|m| m.event_id > before)
        .collect();
    assert!(
        since.iter().all(|m| !matches!(
            m.aside,
            Some(app::domain::docs::Aside::Distil | app::domain::docs::Aside::Wake)
        )),
        "{since:#?}"
    );
    let notes = &identity(&docs, 3).unwrap().notes;
    assert!(
        notes.iter().all(|n| n.event_id <= before),
        "noted in its thread: {notes:#?}"
    );
    let lead = app::domain::docs::thread(&docs, app::domain::LEAD_SEAT);
    assert!(
        lead.iter()
            .all(|m| m.event_id <= before || !m.text.contains("back with us")),
        "{lead:#?}"
    );
}
