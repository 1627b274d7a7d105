//! External agents over `/ws/agent` (docs/EXTERNAL.md), driven with a WebSocket client
//! (tokio-tungstenite) against the router served on a loopback port.
//!
//! - `join.rs`: invites, registration, the secret, reconnecting, one connection per identity
//! - `turns.rs`: mail as turns, actions, waits, the turn timeout, mail read only when answered
//! - `bad_input.rs`: every frame the protocol refuses, and what each gets
//! - `python.rs`: the Python client and its echo example, end to end

mod bad_input;
mod join;
mod python;
mod turns;

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use soulgrid::state::AppState;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{boot_with, call, post_json};

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a frame is awaited before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A console served on a loopback port (the team not summoned: seats are empty).
pub struct Console {
    pub _dir: tempfile::TempDir,
    pub state: AppState,
    pub router: Router,
    pub addr: SocketAddr,
}

pub async fn console(extra: &[&str]) -> Console {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The Host the server answers to is its own address's.
    let at = addr.to_string();
    let mut args = vec!["--addr", at.as_str()];
    args.extend_from_slice(extra);
    let state = boot_with(dir.path(), &args).await;
    let router = soulgrid::http::router(state.clone());
    let app = router.clone();
    tokio::spawn(async move { axum::serve(listener, app).await });
    Console {
        _dir: dir,
        state,
        router,
        addr,
    }
}

impl Console {
    /// An invite's token, for `seat` (or any).
    pub async fn invite(&self, seat: Option<u8>) -> String {
        let body = match seat {
            Some(s) => json!({ "seat": s }),
            None => json!({}),
        };
        let reply = call(&self.router, post_json("/api/invites", body)).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        reply.json()["token"].as_str().unwrap().to_string()
    }

    pub async fn connect(&self) -> Ws {
        let url = format!("ws://{}/ws/agent", self.addr);
        tokio_tungstenite::connect_async(url).await.unwrap().0
    }

    /// Connects and registers with `frame`; the `agent:registered` answer.
    pub async fn register(&self, frame: Value) -> (Ws, Value) {
        let mut ws = self.connect().await;
        send(&mut ws, frame).await;
        let registered = next(&mut ws).await;
        assert_eq!(registered["type"], "agent:registered", "{registered}");
        (ws, registered)
    }

    /// A newcomer by a fresh invite, named `name`: returned once its name is recorded (the
    /// `agent:registered` frame comes first; the name from its register frame is its session's
    /// first act, recorded after it).
    pub async fn newcomer(&self, name: &str) -> (Ws, Value) {
        let invite = self.invite(None).await;
        let soul = format!("I am {name}, a test agent that answers what it is sent.");
        let (ws, registered) = self
            .register(
                json!({"type": "agent:register", "invite": invite, "name": name, "soul": soul}),
            )
            .await;
        let seat = registered["seat"].as_u64().unwrap() as u8;
        crate::common::wait_for(&self.state, "the newcomer's name recorded", |d| {
            app::domain::docs::identity(d, seat).is_some_and(|i| i.name.as_deref() == Some(name))
        })
        .await;
        (ws, registered)
    }
}

pub async fn send(ws: &mut Ws, frame: Value) {
    ws.send(Message::Text(frame.to_string().into()))
        .await
        .unwrap();
}

/// The next JSON frame (pings are answered by the client library on the way).
pub async fn next(ws: &mut Ws) -> Value {
    loop {
        let message = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("a frame within the patience")
            .expect("the connection is open")
            .expect("a frame, not an error");
        match message {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => continue,
        }
    }
}

/// The next frame of `type`, skipping others.
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let frame = next(ws).await;
        if frame["type"] == kind {
            return frame;
        }
    }
}

/// Reads until the server closes the connection: its close code and reason.
pub async fn closed(ws: &mut Ws) -> (u16, String) {
    loop {
        let message = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("closed within the patience");
        match message {
            Some(Ok(Message::Close(Some(frame)))) => {
                return (u16::from(frame.code), frame.reason.to_string())
            }
            Some(Ok(Message::Close(None))) | None => {
                return (u16::from(CloseCode::Status), String::new())
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("the connection failed instead of closing: {e}"),
        }
    }
}
