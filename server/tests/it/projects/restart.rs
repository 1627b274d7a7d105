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
