//! A soul bundle brings an agent into another team's Hall, once: a bundle changed, contradicting
//! itself or brought again is said and changes nothing.

use crate::common;
use crate::portable::lived;

use app::domain::docs::{identity, thread};
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_soul_bundle_brings_an_agent_into_another_teams_hall_once() {
    let (_a, state, router) = lived().await;
    let id = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    // Its rules are part of it: they are in its bundle (and not in force where it is brought).
    let r = call(
        &router,
        post_json(
            &format!("/api/agents/{id}/rules"),
            json!({"rule": "Bash(cargo test:*)"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = call(&router, get(&format!("/api/agents/{id}/bundle"))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers["content-disposition"]
        .to_str()
        .unwrap()
        .contains("Lyra.soul"));
    let bundle = r.body.clone();
    assert!(
        bundle.contains("Bash(cargo test:*)"),
        "the rule is in the bundle"
    );
    assert_eq!(
        call(&router, get("/api/agents/nobody/bundle")).await.status,
        StatusCode::NOT_FOUND
    );
    soulgrid::shut_down(&state).await;

    // Another team, with a Lyra of its own seated.
    let (_b, other, there) = common::team().await;
    let bring = common::import_soul;
    // Fields this version does not know ride along in no document (here: padding).
    let padded = reworked(&bundle, |b| {
        b["identity"]["padding"] = json!("p".repeat(4096));
        b["souls"][0]["padding"] = json!("p".repeat(4096));
        b["messages"][0]["padding"] = json!("p".repeat(4096));
    });
    let r = call(&there, bring(padded)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let padding = other.store.with_all_docs(|d| {
        d.values()
            .filter(|doc| doc.to_value().get("padding").is_some())
            .count()
    });
    assert_eq!(padding, 0, "unknown fields dropped");
    let brought = r.json();
    assert_eq!(brought["id"], json!(id));
    assert_eq!(
        (brought["name"].as_str(), brought["renamedFrom"].as_str()),
        (Some("Lyra 2"), Some("Lyra"))
    );
    let r = call(&there, bring(bundle.clone())).await;
    assert_eq!(r.json()["alreadyHere"], true);
    assert_eq!(
        agents_brought(&other).await,
        1,
        "the second time changes nothing"
    );
    let hall: Vec<app::contract::HallEntry> =
        serde_json::from_str(&call(&there, get("/api/hall")).await.body).unwrap();
    assert_eq!(hall[0].name.as_deref(), Some("Lyra 2"));
    // Recalled there: it wakes with its soul, its thread and its vault.
    call(&there, post_json("/api/agents/3/kill", json!({}))).await;
    let r = call(
        &there,
        post_json(&format!("/api/hall/{id}/recall"), json!({"seat": 3})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&other, "Lyra 2 awake in seat 4", |d| {
        thread(d, 3)
            .iter()
            .any(|m| m.text.starts_with("Hello. I am Lyra 2"))
    })
    .await;
    other.store.with_all_docs(|d| {
        let who = identity(d, 3).unwrap();
        assert_eq!(who.stable_id(), id);
        assert!(thread(d, 3)
            .iter()
            .any(|m| m.text.contains("eleven strings")));
        assert!(app::domain::knowledge::knowledge_at(d, &id, who.vault_version).is_some());
        assert!(who.rules.is_empty(), "rules are granted here, not brought");
    });
    // A bundle that is not one, or tampered with, changes nothing.
    for (bad, why) in [
        ("not a bundle".to_string(), "a header and a body"),
        (bundle.replacen("Lyra", "Lyre", 3), "checksum"),
        (contradicting(&bundle), "contradicts itself"),
        // Past what a live agent may hold: one bundle made every page carry a 20 MB soul.
        (
            reworked(&bundle, |b| {
                b["souls"][0]["text"] = json!("x".repeat(17 * 1024))
            }),
            "a soul may have 16384",
        ),
        (
            reworked(&bundle, |b| {
                b["identity"]["individuationArtifact"] = json!("x".repeat(17 * 1024))
            }),
            "a soul may have 16384",
        ),
        (
            reworked(&bundle, |b| {
                let files: serde_json::Map<String, serde_json::Value> = (0..70)
                    .map(|n| (format!("note-{n}.md"), json!("a note")))
                    .collect();
                b["vault"][0]["files"] = json!(files);
            }),
            "knowledge version",
        ),
    ] {
        let r = call(&there, bring(bad)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert!(r.body.contains(why), "{why}: {}", r.body);
    }
    assert_eq!(agents_brought(&other).await, 1);
    soulgrid::shut_down(&other).await;
}

/// How many agents were brought into the team (it lives meanwhile: other events come too).
async fn agents_brought(state: &soulgrid::state::AppState) -> usize {
    common::count_events(state, |k| {
        matches!(k, app::domain::events::EventKind::AgentImported(_))
    })
    .await
}

/// The bundle with its body changed by `change`, its checksum made right.
fn reworked(bundle: &str, change: impl FnOnce(&mut serde_json::Value)) -> String {
    use sha2::{Digest, Sha256};
    let (header, body) = bundle.trim_end().split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
    let mut body: serde_json::Value = serde_json::from_str(body).unwrap();
    change(&mut body);
    let body = body.to_string();
    let sum: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    header["sha256"] = json!(sum);
    format!("{header}\n{body}\n")
}

/// The bundle with its first soul version given twice: a bundle that reads but contradicts
/// itself.
fn contradicting(bundle: &str) -> String {
    reworked(bundle, |body| {
        let souls = body["souls"].as_array_mut().unwrap();
        assert!(!souls.is_empty(), "Lyra has a soul");
        souls.push(souls[0].clone());
    })
}

/// A soul whose carried branch cannot be read is refused whole: the agent is not brought in
/// (it was, without its branch, and a second try said it was already here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soul_with_a_bad_branch_is_refused_before_anything_is_recorded() {
    let (_a, state, router) = lived().await;
    let id = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    let bundle = call(&router, get(&format!("/api/agents/{id}/bundle")))
        .await
        .body;
    soulgrid::shut_down(&state).await;
    let (_b, other, there) = common::team().await;
    let before = agents_brought(&other).await;
    for branch in [
        json!({"project": "web", "branch": "soulgrid/lyra", "bundle": "%% not base64 %%"}),
        json!({"project": "web", "branch": "main", "bundle": ""}),
    ] {
        let bad = reworked(&bundle, |b| b["branches"] = json!([branch]));
        let r = call(&there, common::import_soul(bad)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert!(
            r.json()["error"]
                .as_str()
                .unwrap()
                .contains("carried branch"),
            "{}",
            r.body
        );
    }
    assert_eq!(agents_brought(&other).await, before, "nothing brought");
}
