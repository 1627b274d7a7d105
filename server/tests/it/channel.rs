//! #team through the running server: the human's post is the channel's, filed in the inbox of
//! each agent it mentions (and no one else's); a mention of the Hall refuses it, one of nobody
//! is said; an agent posts with `send_message {to: "team"}`; one agent's letter to another
//! shows in both threads.

use crate::common;

use app::domain::docs::{channel, identity, thread};
use app::domain::LEAD_SEAT;
use common::{call, post_json, wait_for};
use serde_json::{json, Value};
use soulgrid::state::AppState;

fn name(state: &AppState, seat: u8) -> String {
    state
        .store
        .with_docs(|d| identity(d, seat).unwrap().name.clone().unwrap())
}

/// The texts filed in the inbox of the agent in `seat` that came through #team.
fn filed(state: &AppState, seat: u8) -> Vec<(String, String)> {
    let inbox = state.runtime.seat_inbox(seat).unwrap();
    state
        .runtime
        .mailboxes()
        .all(&inbox)
        .unwrap()
        .into_iter()
        .filter(|m| m.text.starts_with("(in #team) "))
        .map(|m| (m.from, m.text))
        .collect()
}

fn team_texts(state: &AppState) -> Vec<(String, String)> {
    state.store.with_all_docs(|d| {
        channel(d, "team")
            .iter()
            .map(|m| (m.speaker_name.clone(), m.text.clone()))
            .collect()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_humans_post_reaches_whom_it_mentions_and_is_everyones_to_read() {
    let (_dir, state, router) = common::team().await;
    let (lyra, kael) = (name(&state, 0), name(&state, 1));
    let text = format!(
        "@{lyra} and @{} please pair on the parser; @Nemo too",
        kael.to_lowercase()
    );
    let r = call(
        &router,
        post_json("/api/send", json!({"text": text, "channel": "team"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let answer: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(answer["channel"], "team");
    let mentioned: Vec<(&str, u64)> = answer["mentioned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["seat"].as_u64().unwrap()))
        .collect();
    assert_eq!(mentioned, vec![(lyra.as_str(), 0), (kael.as_str(), 1)]);
    assert_eq!(answer["nobody"], json!(["Nemo"]));

    // In the channel, in no thread; filed for the two it names, each once, and no one else.
    let human = state.runtime.names().human.clone();
    assert_eq!(
        team_texts(&state).first(),
        Some(&(human.clone(), text.clone())),
        "the post is the channel's (its answers come after it)"
    );
    state.store.with_all_docs(|d| {
        assert!(thread(d, LEAD_SEAT).iter().all(|m| m.text != text));
        assert!(thread(d, 0).iter().all(|m| m.text != text));
    });
    // A page load carries it (the channel's newest page beside the lead's thread).
    let page = state.snapshot(None);
    assert!(
        channel(&page.docs, "team").iter().any(|m| m.text == text),
        "in the page's snapshot"
    );
    let want = vec![(human.clone(), format!("(in #team) {text}"))];
    assert_eq!(filed(&state, 0), want);
    assert_eq!(filed(&state, 1), want);
    for seat in [2, 3, 5, 6, 7, 8, LEAD_SEAT] {
        assert!(filed(&state, seat).is_empty(), "seat {seat}");
    }
    // Awake, so they are given it: the inbox marks it read.
    wait_for(&state, "both given their mail", |_| {
        [0, 1].iter().all(|s| {
            let inbox = state.runtime.seat_inbox(*s).unwrap();
            state.runtime.mailboxes().unread(&inbox).unwrap().is_empty()
        })
    })
    .await;
}

/// #team is a conversation: an agent a post mentions answers in #team (its answer was only in
/// its own thread, so the channel showed the human's post alone). The answer is filed for
/// nobody: it wakes no one, and two agents cannot keep each other talking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_mentioned_in_team_answers_in_team() {
    let (_dir, state, router) = common::team().await;
    let (lyra, kael) = (name(&state, 0), name(&state, 1));
    let text = format!("@{lyra} what do you think of @{kael}'s parser?");
    let r = call(
        &router,
        post_json("/api/send", json!({"text": text, "channel": "team"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    wait_for(&state, "Lyra's answer in #team", |d| {
        channel(d, "team").iter().any(|m| m.speaker_name == lyra)
    })
    .await;
    let (said_in_team, said_in_thread) = state.store.with_all_docs(|d| {
        let answer = channel(d, "team")
            .iter()
            .find(|m| m.speaker_name == lyra)
            .map(|m| m.text.clone())
            .unwrap();
        let own: Vec<String> = thread(d, 0)
            .iter()
            .filter(|m| m.speaker_name == lyra && m.channel.is_none())
            .map(|m| m.text.clone())
            .collect();
        (answer, own)
    });
    assert!(said_in_thread.contains(&said_in_team), "{said_in_team}");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_is_refused_with_why_and_nothing_is_posted() {
    let (_dir, state, router) = common::team().await;
    let kael = name(&state, 1);
    let r = call(&router, post_json("/api/agents/1/kill", json!({}))).await;
    assert!(r.status.is_success(), "{}", r.body);
    wait_for(&state, "Kael in the Hall", |d| {
        app::domain::docs::hall(d).any(|h| h.name.as_deref() == Some(kael.as_str()))
    })
    .await;
    let refusals = [
        (
            json!({"text": format!("@{kael} come back"), "channel": "team"}),
            409,
            "in the Hall",
        ),
        (
            json!({"text": "hi", "channel": "general"}),
            400,
            "the one channel is \"team\"",
        ),
        (
            json!({"text": "hi", "channel": "team", "seat": 0}),
            400,
            "mention agents in it",
        ),
        (json!({"text": "   ", "channel": "team"}), 400, "empty"),
    ];
    for (body, status, why) in refusals {
        let r = call(&router, post_json("/api/send", body.clone())).await;
        assert_eq!(r.status, status, "{body}: {}", r.body);
        let said: Value = serde_json::from_str(&r.body).unwrap();
        let error = said["error"].as_str().unwrap_or_default();
        assert!(error.contains(why), "{body}: {error}");
    }
    assert!(team_texts(&state).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_posts_in_team_and_writes_to_another_in_both_threads() {
    let (_dir, state, router) = common::team().await;
    let (lyra, kael, mira) = (name(&state, 0), name(&state, 1), name(&state, 2));
    let answer = crate::tool_calls::ask(
        &state,
        &router,
        0,
        &format!("SIM_CALL: send_message {{\"to\":\"team\",\"text\":\"@{kael} @{lyra} the build is red\"}}"),
    )
    .await;
    assert_eq!(
        answer,
        format!("Tool send_message answered (ok): Posted in #team; {kael} gets it now.")
    );
    // An agent's @all reaches nobody, and it is told why.
    let answer = crate::tool_calls::ask(
        &state,
        &router,
        0,
        "SIM_CALL: send_message {\"to\":\"team\",\"text\":\"@all stand up\"}",
    )
    .await;
    assert!(
        answer.contains("it mentions nobody")
            && answer.contains("@all is the human's and the lead's"),
        "{answer}"
    );
    // Lyra's two posts (Kael, mentioned, answers in #team besides).
    let lyras: Vec<(String, String)> = team_texts(&state)
        .into_iter()
        .filter(|(who, _)| *who == lyra)
        .collect();
    assert_eq!(
        lyras,
        vec![
            (lyra.clone(), format!("@{kael} @{lyra} the build is red")),
            (lyra.clone(), "@all stand up".to_string()),
        ]
    );
    assert_eq!(filed(&state, 1).len(), 1);
    assert!(filed(&state, 0).is_empty(), "never filed for its sender");

    // One agent to another: in both threads, "Lyra → Mira".
    let answer = crate::tool_calls::ask(
        &state,
        &router,
        0,
        &format!("SIM_CALL: send_message {{\"to\":\"{mira}\",\"text\":\"your tests fail\"}}"),
    )
    .await;
    assert!(answer.contains(&format!("Delivered to {mira}")), "{answer}");
    state.store.with_all_docs(|d| {
        for seat in [0, 2] {
            let letter = thread(d, seat)
                .into_iter()
                .find(|m| m.text == "your tests fail")
                .unwrap_or_else(|| panic!("not in seat {seat}'s thread"));
            assert_eq!(letter.speaker_name, lyra);
            assert_eq!(letter.target_agent.as_deref(), Some(mira.as_str()));
        }
        assert!(thread(d, 1).iter().all(|m| m.text != "your tests fail"));
    });
    // Each thread's own pages hold it (a page load of the writer's thread, not only the
    // recipient's): a letter is in two threads, each owned by one identity.
    for seat in [0, 2] {
        let (docs, _, _) = state.store.page_snapshot(
            |d| Some(app::domain::docs::page::seat_thread_owners(d, seat)),
            app::domain::docs::page::FIRST,
        );
        assert!(
            thread(&docs, seat)
                .iter()
                .any(|m| m.text == "your tests fail"),
            "seat {seat}'s own pages"
        );
    }
}
