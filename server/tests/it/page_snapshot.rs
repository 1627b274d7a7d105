//! What a page's snapshot carries: what the first screen needs. Every knowledge version but
//! each identity's current one, and the soul versions of the identities in the Hall, load with
//! the agent's own page, not with every page.

use crate::common;

use app::domain::docs::{hall, identity, Doc};
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grid_carries_current_knowledge_and_seated_souls_and_an_agents_page_all_of_its_own() {
    let (_dir, state, router) = common::team().await;
    let lyra = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    // Three versions of Lyra's knowledge, by the human.
    for (i, text) in ["one", "two", "three"].iter().enumerate() {
        let mut r = post_json(
            &format!("/api/agents/{lyra}/knowledge/insights.md"),
            json!({ "text": format!("{text} {}", "x".repeat(2000)) }),
        );
        *r.method_mut() = axum::http::Method::PUT;
        let r = call(&router, r).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json()["version"], i + 1);
    }
    // Orin (seat 2) retires to the Hall with his soul.
    let r = call(&router, post_json("/api/agents/1/kill", json!({}))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    wait_for(&state, "Orin in the Hall", |d| hall(d).count() == 1).await;
    let orin = state
        .store
        .with_all_docs(|d| hall(d).next().unwrap().stable_id());
    let kinds = |docs: &app::domain::docs::Docs| -> (Vec<u32>, usize, usize) {
        let lyra_versions = docs
            .values()
            .filter_map(|d| match d {
                Doc::Knowledge(v) if v.identity_id == lyra => Some(v.version),
                _ => None,
            })
            .collect();
        let souls_of = |who: &str| {
            docs.values()
                .filter(|d| matches!(d, Doc::Soul(s) if s.identity_id.as_deref() == Some(who)))
                .count()
        };
        (lyra_versions, souls_of(&orin), souls_of(&lyra))
    };
    // The store has it all.
    let all = state.store.snapshot().0;
    let (versions, orin_souls, lyra_souls) = kinds(&all);
    assert_eq!(versions, [1, 2, 3]);
    assert!(orin_souls >= 1 && lyra_souls >= 1);

    // The grid's page: Lyra's current knowledge (the reducer reads it), her soul (she is
    // seated); none of Orin's soul versions, no older knowledge.
    let grid = state.snapshot(None);
    assert_eq!(kinds(&grid.docs), (vec![3], 0, lyra_souls));
    let _serial = crate::SERIAL.lock().await;
    let page = call(&router, get("/")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(&format!("vault:{lyra}:000003")));
    assert!(!page.body.contains(&format!("vault:{lyra}:000001")));
    assert!(!page.body.contains("one xxxx"), "an old version's text");
    // Each agent's own page: all of its own.
    assert_eq!(
        kinds(&state.snapshot(Some(lyra.clone())).docs),
        (vec![1, 2, 3], 0, lyra_souls)
    );
    assert_eq!(
        kinds(&state.snapshot(Some(orin.clone())).docs),
        (vec![3], orin_souls, lyra_souls)
    );
    soulgrid::shut_down(&state).await;
}
