//! Turns: the mail that waits is a turn; its answer is carried out as tool calls are; the
//! mail is marked read only when its turn is answered; a turn not answered in time is a
//! recorded wait, and its mail comes again; a reconnect gets the unanswered turn again.

use app::domain::docs::{identity, thread};
use serde_json::json;

use app::domain::status::AgentStatus;

use super::{console, next_of, send, Console, Ws};
use crate::common::{call, marker_errors, post_json, wait_for};

/// A newcomer named `name`, awake; its seat.
async fn named(c: &Console, name: &str) -> (Ws, serde_json::Value, u8) {
    let (ws, registered) = c.newcomer(name).await;
    let seat = registered["seat"].as_u64().unwrap() as u8;
    let wanted = name.to_string();
    wait_for(&c.state, "the newcomer named", move |d| {
        identity(d, seat).is_some_and(|i| i.name.as_deref() == Some(wanted.as_str()))
    })
    .await;
    (ws, registered, seat)
}

async fn tell(c: &Console, seat: u8, text: &str) {
    let sent = call(
        &c.router,
        post_json("/api/send", json!({"seat": seat, "text": text})),
    )
    .await;
    assert_eq!(sent.status, 202, "{}", sent.body);
}

/// The unread mail in the inbox of the agent in `seat`.
fn unread(c: &Console, seat: u8) -> Vec<String> {
    let inbox = c.state.runtime.seat_inbox(seat).unwrap();
    c.state
        .runtime
        .mailboxes()
        .unread_tagged(&inbox)
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect()
}

#[tokio::test]
async fn the_humans_message_is_a_turn_its_answer_is_recorded_and_only_then_is_it_read() {
    let c = console(&[]).await;
    let (mut ws, _, seat) = named(&c, "Orrin").await;
    tell(&c, seat, "what is the tide doing?").await;
    let turn = next_of(&mut ws, "turn:start").await;
    let n = turn["turn"].as_u64().unwrap();
    let text = turn["messages"][0]["text"].as_str().unwrap();
    assert!(text.contains("what is the tide doing?"), "{turn}");
    assert!(text.contains("Marcus"), "under its sender's header: {text}");
    assert_eq!(turn["state"]["name"], "Orrin");
    assert!(
        turn["state"]["team"].as_str().unwrap().contains("Orrin"),
        "{turn}"
    );
    // Given, not answered: still unread.
    assert_eq!(unread(&c, seat).len(), 1);
    send(
        &mut ws,
        json!({"type": "agent:action", "turn": n, "actions": [
            {"type": "say", "text": "The tide is coming in."},
            {"type": "set_work_state", "state": "bootstrap", "summary": "watching the tide"},
        ]}),
    )
    .await;
    let first = next_of(&mut ws, "action:result").await;
    assert_eq!(
        (first["index"].as_u64(), first["ok"].as_bool()),
        (Some(0), Some(true)),
        "{first}"
    );
    let second = next_of(&mut ws, "action:result").await;
    assert_eq!(second["index"], 1);
    assert_eq!(second["ok"], true, "{second}");
    let end = next_of(&mut ws, "turn:end").await;
    assert_eq!(
        (end["turn"].as_u64(), end["how"].as_str()),
        (Some(n), Some("answered"))
    );
    wait_for(
        &c.state,
        "its words in its thread, its work state set",
        |d| {
            thread(d, seat)
                .iter()
                .any(|m| m.text == "The tide is coming in." && m.speaker_name == "Orrin")
                && identity(d, seat).is_some_and(|i| i.work_state.is_some())
        },
    )
    .await;
    crate::common::wait_until("the mail marked read", || unread(&c, seat).is_empty()).await;
}

#[tokio::test]
async fn an_unanswered_turn_is_a_recorded_wait_and_comes_again_after_a_reconnect() {
    let c = console(&["--external-turn-timeout", "1s"]).await;
    let (mut ws, registered, seat) = named(&c, "Orrin").await;
    tell(&c, seat, "are you there?").await;
    let turn = next_of(&mut ws, "turn:start").await;
    let end = next_of(&mut ws, "turn:end").await;
    assert_eq!(end["turn"], turn["turn"]);
    assert_eq!(end["how"], "timeout");
    wait_for(&c.state, "the wait on its seat", |d| {
        identity(d, seat)
            .and_then(|i| i.process_reason.as_deref())
            .is_some_and(|r| r.contains("no answer within 1 s"))
    })
    .await;
    assert_eq!(unread(&c, seat).len(), 1, "its mail is not read");
    // Gone without answering; back with its secret: the turn again.
    drop(ws);
    let (mut ws, _) = c
        .register(
            json!({"type": "agent:register", "identity": registered["identity"],
            "secret": registered["secret"]}),
        )
        .await;
    let again = next_of(&mut ws, "turn:start").await;
    assert!(
        again["messages"][0]["text"]
            .as_str()
            .unwrap()
            .contains("are you there?"),
        "{again}"
    );
    send(
        &mut ws,
        json!({"type": "agent:wait", "turn": again["turn"]}),
    )
    .await;
    let end = next_of(&mut ws, "turn:end").await;
    assert_eq!(end["how"], "waited");
    crate::common::wait_until("read once waited", || unread(&c, seat).is_empty()).await;
}

#[tokio::test]
async fn its_actions_are_checked_as_tool_calls_are() {
    let c = console(&[]).await;
    let (mut ws, _, seat) = named(&c, "Orrin").await;
    tell(&c, seat, "do things").await;
    let turn = next_of(&mut ws, "turn:start").await;
    send(
        &mut ws,
        json!({"type": "agent:action", "turn": turn["turn"], "actions": [
            {"type": "fly", "to": "the moon"},
            {"type": "summon"},
            {"type": "post_finding", "text": "no quest runs"},
            "not an object",
            {"type": "send_message", "to": "human", "text": "Done, Marcus."},
        ]}),
    )
    .await;
    let mut results = Vec::new();
    for _ in 0..5 {
        results.push(next_of(&mut ws, "action:result").await);
    }
    results.sort_by_key(|r| r["index"].as_u64());
    let said = |i: usize| results[i]["text"].as_str().unwrap().to_string();
    assert_eq!(results[0]["ok"], false);
    assert!(said(0).contains("fly"), "{}", said(0));
    assert_eq!(
        results[1]["ok"],
        false,
        "only the lead summons: {}",
        said(1)
    );
    assert_eq!(results[2]["ok"], false, "{}", said(2));
    assert_eq!(results[3]["ok"], false, "{}", said(3));
    assert_eq!(results[4]["ok"], true, "{}", said(4));
    let refusals = marker_errors(&c.state, seat).await;
    assert!(refusals.iter().any(|r| r.contains("fly")), "{refusals:?}");
    // The message reached the human's inbox and the thread.
    wait_for(&c.state, "its message to the human", |d| {
        thread(d, seat)
            .iter()
            .any(|m| m.text.contains("Done, Marcus."))
    })
    .await;
    // Closing on our side: asleep, nothing left running.
    drop(ws);
    wait_for(&c.state, "asleep", |d| {
        identity(d, seat).is_some_and(|i| i.status() == AgentStatus::Sleeping)
    })
    .await;
}

#[tokio::test]
async fn what_needs_a_claude_session_says_in_a_sentence_it_does_not_apply() {
    let c = console(&[]).await;
    let (mut ws, _, seat) = named(&c, "Orrin").await;
    let fork = call(
        &c.router,
        post_json(&format!("/api/agents/{seat}/fork"), json!({})),
    )
    .await;
    assert_eq!(fork.status, 409, "{}", fork.body);
    assert!(fork.body.contains("external agent"), "{}", fork.body);
    // Its own fork action: refused with the same reason.
    tell(&c, seat, "fork yourself").await;
    let turn = next_of(&mut ws, "turn:start").await;
    send(
        &mut ws,
        json!({"type": "agent:action", "turn": turn["turn"], "actions": [{"type": "fork"}]}),
    )
    .await;
    let result = next_of(&mut ws, "action:result").await;
    assert_eq!(result["ok"], false, "{result}");
    assert!(
        result["text"].as_str().unwrap().contains("external agent"),
        "{result}"
    );
}
