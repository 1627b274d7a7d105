//! Bad input on `/ws/agent`: each frame the protocol refuses gets its answer (an `error` frame
//! while the connection can go on, a 4xxx close when it cannot), is recorded on the seat once,
//! and touches no other agent.

use app::domain::docs::identity;
use app::domain::status::AgentStatus;
use futures::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use super::{closed, console, next, next_of, send, Console};
use crate::common::{call, marker_errors, post_json, wait_for};

/// Two newcomers: the one that misbehaves (its seat) and a bystander (its seat).
async fn two(c: &Console) -> (super::Ws, u8, super::Ws, u8) {
    let (bad, r) = c.newcomer("Rook").await;
    let (good, g) = c.newcomer("Wren").await;
    let (bad_seat, good_seat) = (
        r["seat"].as_u64().unwrap() as u8,
        g["seat"].as_u64().unwrap() as u8,
    );
    wait_for(&c.state, "both named", |d| {
        [bad_seat, good_seat]
            .iter()
            .all(|&s| identity(d, s).is_some_and(|i| i.status() == AgentStatus::Alive))
    })
    .await;
    (bad, bad_seat, good, good_seat)
}

#[tokio::test]
async fn frames_it_cannot_take_are_answered_and_said_once_and_the_connection_goes_on() {
    let c = console(&[]).await;
    let (mut ws, seat, _good, good_seat) = two(&c).await;
    for (frame, says) in [
        ("not json at all".to_string(), "not JSON"),
        (json!({"type": "agent:dance"}).to_string(), "unknown type"),
        (json!({"no": "type"}).to_string(), "no \"type\""),
        (
            json!({"type": "agent:wait", "turn": 7}).to_string(),
            "not open",
        ),
        (
            json!({"type": "agent:action", "turn": "x"}).to_string(),
            "does not fit",
        ),
        (
            json!({"type": "agent:register", "invite": "sgi_x"}).to_string(),
            "twice",
        ),
    ] {
        ws.send(Message::Text(frame.clone().into())).await.unwrap();
        let error = next_of(&mut ws, "error").await;
        assert!(
            error["message"].as_str().unwrap().contains(says),
            "{frame}: {error}"
        );
    }
    // Too many actions in one answer: refused whole, the turn still open.
    call(
        &c.router,
        post_json("/api/send", json!({"seat": seat, "text": "hi"})),
    )
    .await;
    let turn = next_of(&mut ws, "turn:start").await;
    let many: Vec<_> = (0..40)
        .map(|_| json!({"type": "say", "text": "x"}))
        .collect();
    send(
        &mut ws,
        json!({"type": "agent:action", "turn": turn["turn"], "actions": many}),
    )
    .await;
    let error = next_of(&mut ws, "error").await;
    assert!(
        error["message"].as_str().unwrap().contains("at most"),
        "{error}"
    );
    let wrong = turn["turn"].as_u64().unwrap() + 1;
    send(&mut ws, json!({"type": "agent:wait", "turn": wrong})).await;
    assert!(next_of(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("not the open turn"));
    send(&mut ws, json!({"type": "agent:wait", "turn": turn["turn"]})).await;
    assert_eq!(next_of(&mut ws, "turn:end").await["how"], "waited");
    // Said on its seat once, however many frames: nothing on the bystander's.
    let said = marker_errors(&c.state, seat).await;
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(marker_errors(&c.state, good_seat).await.is_empty());
}

#[tokio::test]
async fn a_binary_frame_a_huge_frame_and_a_flood_close_the_connection_with_a_reason() {
    let c = console(&[]).await;
    let (mut ws, seat, mut good, good_seat) = two(&c).await;
    ws.send(Message::Binary(vec![1, 2, 3].into()))
        .await
        .unwrap();
    let (code, reason) = closed(&mut ws).await;
    assert_eq!(code, 4004, "{reason}");
    wait_for(&c.state, "asleep after its close", |d| {
        identity(d, seat).is_some_and(|i| i.status() == AgentStatus::Sleeping)
    })
    .await;

    let (mut ws, registered) = c.newcomer("Pike").await;
    let _ = registered;
    let huge = "x".repeat(300 * 1024);
    let _ = ws.send(Message::Text(huge.into())).await;
    assert_eq!(closed(&mut ws).await.0, 1009);

    let (mut ws, _) = c.newcomer("Moth").await;
    for i in 0..400 {
        let frame = json!({"type": "agent:wait", "turn": i}).to_string();
        if ws.send(Message::Text(frame.into())).await.is_err() {
            break;
        }
    }
    assert_eq!(closed(&mut ws).await.0, 4029);

    // The bystander is still awake and answering.
    call(
        &c.router,
        post_json(
            "/api/send",
            json!({"seat": good_seat, "text": "still there?"}),
        ),
    )
    .await;
    let turn = next_of(&mut good, "turn:start").await;
    assert!(turn["messages"][0]["text"]
        .as_str()
        .unwrap()
        .contains("still there?"));
}

#[tokio::test]
async fn a_client_that_answers_no_ping_is_closed() {
    let c = console(&["--external-ping-timeout", "1s"]).await;
    let (mut ws, registered) = c.newcomer("Rook").await;
    let seat = registered["seat"].as_u64().unwrap() as u8;
    wait_for(&c.state, "named", |d| {
        identity(d, seat).is_some_and(|i| i.has_name())
    })
    .await;
    // Not reading: its library answers no ping meanwhile.
    wait_for(&c.state, "closed for want of a pong", |d| {
        identity(d, seat)
            .and_then(|i| i.process_reason.as_deref())
            .is_some_and(|r| r.contains("no pong"))
    })
    .await;
    assert_eq!(closed(&mut ws).await.0, 4008);
}

#[tokio::test]
async fn a_name_it_cannot_have_is_refused_and_asked_again() {
    let c = console(&[]).await;
    let (_taken, _) = c.newcomer("Wren").await;
    let invite = c.invite(None).await;
    let (mut ws, _) = c
        .register(json!({"type": "agent:register", "invite": invite, "name": "wren"}))
        .await;
    let error = next_of(&mut ws, "error").await;
    assert!(
        error["message"].as_str().unwrap().contains("taken"),
        "{error}"
    );
    let turn = next_of(&mut ws, "turn:start").await;
    assert!(
        turn["messages"][0]["text"]
            .as_str()
            .unwrap()
            .contains("cannot be yours"),
        "{turn}"
    );
    send(
        &mut ws,
        json!({"type": "agent:action", "turn": turn["turn"], "actions": [
        {"type": "register", "name": "Sable", "soul": "I mend nets."}]}),
    )
    .await;
    let result = next_of(&mut ws, "action:result").await;
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["text"], "You are Sable.");
    let _ = next(&mut ws).await;
}

/// Pings are frames too: a flood of them is closed as a flood of text is (they were not
/// counted, and each was answered).
#[tokio::test]
async fn a_flood_of_pings_closes_the_connection_too() {
    let c = console(&[]).await;
    let (mut ws, _) = c.newcomer("Moth").await;
    for _ in 0..400 {
        if ws.send(Message::Ping(Vec::new().into())).await.is_err() {
            break;
        }
    }
    assert_eq!(closed(&mut ws).await.0, 4029);
}

/// A browser page of another site cannot open the socket (its `Origin` says so); a program
/// (no `Origin`) and the console's own page can.
#[tokio::test]
async fn a_browser_page_of_another_origin_cannot_open_the_socket() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let c = console(&[]).await;
    let url = format!("ws://{}/ws/agent", c.addr);
    let with_origin = |origin: &str| {
        let mut req = url.clone().into_client_request().unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        req
    };
    match tokio_tungstenite::connect_async(with_origin("http://evil.example")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(res)) => {
            assert_eq!(res.status(), 403)
        }
        other => panic!("opened from another origin: {:?}", other.map(|r| r.1)),
    }
    let own = format!("http://{}", c.addr);
    assert!(tokio_tungstenite::connect_async(with_origin(&own))
        .await
        .is_ok());
    assert!(tokio_tungstenite::connect_async(url).await.is_ok());
}
