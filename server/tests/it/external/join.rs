//! Joining: an invite seats a newcomer once; the identity comes back with its secret, from its
//! seat or the Hall; never two connections for one identity; a wrong credential is refused
//! with a 4xxx close and changes nothing.

use app::domain::docs::{identity, Doc};
use app::domain::status::AgentStatus;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{closed, console, next_of, send};
use crate::common::{call, get, post_json, wait_for};

fn hex_digest(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test]
async fn an_invite_seats_a_newcomer_once_and_its_secret_brings_it_back() {
    let c = console(&[]).await;
    let invite = c.invite(Some(2)).await;
    assert!(invite.starts_with("sgi_"), "{invite}");
    let (ws, registered) = c
        .register(
            json!({"type": "agent:register", "invite": invite, "name": "Orrin",
            "soul": "I keep the lamps lit."}),
        )
        .await;
    assert_eq!(registered["seat"], 2);
    assert_eq!(registered["protocol"], 1);
    let id = registered["identity"].as_str().unwrap().to_string();
    let secret = registered["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("sgs_"), "{registered}");
    wait_for(&c.state, "Orrin seated, awake, external", |d| {
        identity(d, 2).is_some_and(|i| {
            i.name.as_deref() == Some("Orrin")
                && i.external
                && i.status() == AgentStatus::Alive
                && i.individuation_artifact.as_deref() == Some("I keep the lamps lit.")
        })
    })
    .await;
    // Kept as digests only: the secret and the token are nowhere in the documents.
    let docs = serde_json::to_string(&call(&c.router, get("/api/docs")).await.json()).unwrap();
    assert!(!docs.contains(&secret) && !docs.contains(&invite));
    c.state.store.with_docs(|d| {
        assert_eq!(
            identity(d, 2).unwrap().secret_hash,
            Some(hex_digest(&secret))
        );
        let used = d.values().filter_map(Doc::as_invite).find(|i| i.is_used());
        assert_eq!(used.unwrap().used_seat, Some(2));
    });

    // Closed: asleep. WAKE cannot start it (only it can, by connecting).
    drop(ws);
    wait_for(&c.state, "Orrin asleep", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Sleeping)
    })
    .await;
    let woken = call(&c.router, post_json("/api/agents/wake", json!({}))).await;
    assert!(
        !woken.json()["seats"]
            .as_array()
            .unwrap()
            .contains(&json!(2)),
        "{}",
        woken.body
    );

    // The invite seats nobody again.
    let mut again = c.connect().await;
    send(
        &mut again,
        json!({"type": "agent:register", "invite": invite}),
    )
    .await;
    let (code, reason) = closed(&mut again).await;
    assert_eq!(code, 4003);
    assert!(reason.contains("used"), "{reason}");

    // Its secret: the same identity, in its seat, awake.
    let (_ws, back) = c
        .register(json!({"type": "agent:register", "identity": id, "secret": secret}))
        .await;
    assert_eq!(back["identity"], id.as_str());
    assert_eq!(back["seat"], 2);
    assert_eq!(back["name"], "Orrin");
    assert!(back.get("secret").is_none(), "shown once: {back}");
    wait_for(&c.state, "Orrin awake again", |d| {
        identity(d, 2).is_some_and(|i| i.status() == AgentStatus::Alive && i.stable_id() == id)
    })
    .await;
}

#[tokio::test]
async fn a_wrong_credential_is_refused_with_a_reason() {
    let c = console(&[]).await;
    let (_ws, registered) = c.newcomer("Orrin").await;
    let id = registered["identity"].as_str().unwrap();
    for (frame, wanted, says) in [
        (
            json!({"type": "agent:register", "identity": id, "secret": "sgs_wrong"}),
            4003,
            "no external agent",
        ),
        (
            json!({"type": "agent:register", "invite": "sgi_madeup"}),
            4003,
            "not an invite",
        ),
        (json!({"type": "agent:register"}), 4003, "takes an invite"),
        (
            json!({"type": "agent:wait", "turn": 1}),
            4004,
            "agent:register",
        ),
    ] {
        let mut ws = c.connect().await;
        send(&mut ws, frame.clone()).await;
        let (code, reason) = closed(&mut ws).await;
        assert_eq!(code, wanted, "{frame}: {reason}");
        assert!(reason.contains(says), "{frame}: {reason}");
    }
    // Orrin is untouched by all of it.
    c.state.store.with_docs(|d| {
        assert_eq!(identity(d, 0).unwrap().status(), AgentStatus::Alive);
    });
}

#[tokio::test]
async fn a_second_connection_replaces_the_first_never_two() {
    let c = console(&[]).await;
    let (mut first, registered) = c.newcomer("Orrin").await;
    let (id, secret) = (
        registered["identity"].as_str().unwrap(),
        registered["secret"].as_str().unwrap(),
    );
    let seat = registered["seat"].as_u64().unwrap() as u8;
    wait_for(&c.state, "Orrin named", |d| {
        identity(d, seat).is_some_and(|i| i.has_name())
    })
    .await;
    let (_second, again) = c
        .register(json!({"type": "agent:register", "identity": id, "secret": secret}))
        .await;
    assert_eq!(again["seat"], u64::from(seat));
    let (code, reason) = closed(&mut first).await;
    assert_eq!(code, 4000);
    assert!(reason.contains("replaced"), "{reason}");
    wait_for(&c.state, "awake on the second connection", |d| {
        identity(d, seat).is_some_and(|i| i.status() == AgentStatus::Alive)
    })
    .await;
    assert_eq!(c.state.runtime.running(), vec![seat]);
}

#[tokio::test]
async fn a_rotated_secret_closes_the_connection_and_only_the_new_one_connects() {
    let c = console(&[]).await;
    let (mut ws, registered) = c.newcomer("Orrin").await;
    let (id, old) = (
        registered["identity"].as_str().unwrap().to_string(),
        registered["secret"].as_str().unwrap().to_string(),
    );
    let reply = call(
        &c.router,
        post_json(&format!("/api/agents/{id}/secret"), json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let new = reply.json()["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let (code, _) = closed(&mut ws).await;
    assert_eq!(code, 4001);
    let mut stale = c.connect().await;
    send(
        &mut stale,
        json!({"type": "agent:register", "identity": id, "secret": old}),
    )
    .await;
    assert_eq!(closed(&mut stale).await.0, 4003);
    c.register(json!({"type": "agent:register", "identity": id, "secret": new}))
        .await;
    // A Claude agent has no secret to rotate (409); an unknown id is a 404.
    let unknown = call(&c.router, post_json("/api/agents/nobody/secret", json!({}))).await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    call(
        &c.router,
        post_json("/api/agents/summon", json!({"seats": [7]})),
    )
    .await;
    wait_for(&c.state, "a Claude agent in seat 7", |d| {
        identity(d, 7).is_some_and(|i| i.status() == AgentStatus::Alive)
    })
    .await;
    let claude = c
        .state
        .store
        .with_docs(|d| identity(d, 7).unwrap().stable_id());
    let refused = call(
        &c.router,
        post_json(&format!("/api/agents/{claude}/secret"), json!({})),
    )
    .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused.body.contains("not an external agent"),
        "{}",
        refused.body
    );
}

#[tokio::test]
async fn retired_it_comes_back_from_the_hall_by_connecting() {
    let c = console(&[]).await;
    let (mut ws, registered) = c.newcomer("Orrin").await;
    let (id, secret) = (
        registered["identity"].as_str().unwrap().to_string(),
        registered["secret"].as_str().unwrap().to_string(),
    );
    let seat = registered["seat"].as_u64().unwrap();
    wait_for(&c.state, "Orrin named", |d| {
        identity(d, seat as u8).is_some_and(|i| i.has_name())
    })
    .await;
    let kill = call(
        &c.router,
        post_json(&format!("/api/agents/{seat}/kill"), json!({})),
    )
    .await;
    assert_eq!(kill.status, 200, "{}", kill.body);
    assert_eq!(closed(&mut ws).await.0, 4001);
    // In the Hall its secret is replaced too: the old one no longer brings it back.
    let rotated = call(
        &c.router,
        post_json(&format!("/api/agents/{id}/secret"), json!({})),
    )
    .await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let mut stale = c.connect().await;
    send(
        &mut stale,
        json!({"type": "agent:register", "identity": id, "secret": secret}),
    )
    .await;
    assert_eq!(closed(&mut stale).await.0, 4003);
    let secret = rotated.json()["secret"].as_str().unwrap().to_string();
    let (mut back, again) = c
        .register(json!({"type": "agent:register", "identity": id, "secret": secret}))
        .await;
    assert_eq!(again["name"], "Orrin");
    let seat = again["seat"].as_u64().unwrap() as u8;
    wait_for(&c.state, "recalled and awake", |d| {
        identity(d, seat).is_some_and(|i| i.stable_id() == id && i.status() == AgentStatus::Alive)
    })
    .await;
    // And it works as before: the human's message is its turn.
    let sent = call(
        &c.router,
        post_json("/api/send", json!({"seat": seat, "text": "welcome back"})),
    )
    .await;
    assert_eq!(sent.status, 202, "{}", sent.body);
    let turn = next_of(&mut back, "turn:start").await;
    assert!(
        turn["messages"][0]["text"]
            .as_str()
            .unwrap()
            .contains("welcome back"),
        "{turn}"
    );
    // Who said it and the words, apart: a client need not parse the header line.
    let human = c.state.human_name.to_string();
    assert_eq!(turn["messages"][0]["from"], human.as_str(), "{turn}");
    assert_eq!(turn["messages"][0]["body"], "welcome back", "{turn}");
}

#[tokio::test]
async fn an_invite_is_refused_for_the_leads_seat_a_taken_seat_and_a_full_grid() {
    let c = console(&[]).await;
    let lead = call(&c.router, post_json("/api/invites", json!({"seat": 4}))).await;
    assert_eq!(lead.status, 400, "{}", lead.body);
    let (_ws, registered) = c.newcomer("Orrin").await;
    let seat = registered["seat"].as_u64().unwrap();
    let taken = call(
        &c.router,
        post_json("/api/invites", json!({ "seat": seat })),
    )
    .await;
    assert_eq!(taken.status, 409, "{}", taken.body);
    assert!(taken.body.contains("not empty"), "{}", taken.body);
    call(&c.router, post_json("/api/agents/summon", json!({}))).await;
    wait_for(&c.state, "every seat taken", |d| {
        app::domain::agent_seats().all(|s| identity(d, s).is_some())
    })
    .await;
    let full = call(&c.router, post_json("/api/invites", json!({}))).await;
    assert_eq!(full.status, 409, "{}", full.body);
    assert!(full.body.contains("no seat is empty"), "{}", full.body);
}

/// With every seat taken, an invite is still made, and its agent takes the seat of the agent
/// asleep longest, which goes to the Hall asleep.
#[tokio::test]
async fn with_the_grid_full_an_invited_agent_takes_the_seat_of_the_agent_asleep_longest() {
    let c = console(&[]).await;
    call(&c.router, post_json("/api/agents/summon", json!({}))).await;
    wait_for(&c.state, "every seat named and awake", |d| {
        app::domain::agent_seats().all(|s| {
            identity(d, s).is_some_and(|i| i.has_name() && i.status() == AgentStatus::Alive)
        })
    })
    .await;
    let asleep = call(&c.router, post_json("/api/agents/6/dismiss", json!({}))).await;
    assert_eq!(asleep.status, 200, "{}", asleep.body);
    let sleeper = c
        .state
        .store
        .with_docs(|d| identity(d, 6).unwrap().name.clone().unwrap());
    let (_ws, registered) = c.newcomer("Mira").await;
    assert_eq!(registered["seat"], 6, "{registered}");
    let hall = c.state.store.with_docs(|d| {
        app::domain::docs::hall(d)
            .map(|h| (h.name.clone(), h.retired_reason.clone()))
            .collect::<Vec<_>>()
    });
    assert_eq!(
        hall,
        vec![(
            Some(sleeper),
            Some("went to the Hall asleep to make room for an invited agent".into())
        )]
    );
}
