//! External agents over HTTP: an invite made, a secret rotated, and `GET /ws/agent`, the
//! WebSocket (docs/EXTERNAL.md). This side holds the socket: it bounds frame sizes and rates,
//! pings and expects pongs, and pumps text frames to the runtime's session and back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use app::contract::external::close;
use app::contract::{Invite, NewInvite, NewSecret};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use super::extract::{AppJson, AppPath};
use crate::error::AppError;
use crate::runtime::external::wire::{self, FromClient, ToClient};
use crate::runtime::external::{InviteError, SecretError};
use crate::state::AppState;

/// The largest frame an external agent may send (its actions; a turn's text comes the other
/// way): a larger one is read whole and answered with a close (1009).
pub const MAX_FRAME_BYTES: usize = 256 * 1024;

/// Past this the WebSocket library stops reading the frame and the connection is dropped
/// without a close (nothing larger is read into memory).
const HARD_LIMIT_BYTES: usize = 2 * MAX_FRAME_BYTES;

/// More frames than this in one second is a flood: the connection is closed.
pub const FLOOD_PER_SECOND: u32 = 200;

impl From<InviteError> for AppError {
    fn from(e: InviteError) -> Self {
        match e {
            InviteError::NotASeat(_) => AppError::BadRequest(e.to_string()),
            InviteError::Occupied(_) | InviteError::NoEmptySeat => {
                AppError::Conflict(e.to_string())
            }
            InviteError::Store(_) => AppError::Unavailable(e.to_string()),
        }
    }
}

impl From<SecretError> for AppError {
    fn from(e: SecretError) -> Self {
        match e {
            SecretError::Unknown(_) => AppError::NoSuch(e.to_string()),
            SecretError::NotExternal(_) => AppError::Conflict(e.to_string()),
            SecretError::Store(_) => AppError::Unavailable(e.to_string()),
        }
    }
}

/// `POST /api/invites {"seat"?}` → `201 {"token", "seat", "command"}`: a one-time invite, its
/// token shown only here.
pub async fn make_invite(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppJson(request): AppJson<NewInvite>,
) -> Result<(StatusCode, Json<Invite>), AppError> {
    let token = state.runtime.invite(request.seat).await?;
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1:3000");
    let command = format!(
        "python3 clients/python/examples/echo.py --url ws://{host}/ws/agent --invite {token}"
    );
    Ok((
        StatusCode::CREATED,
        Json(Invite {
            token,
            seat: request.seat,
            command,
        }),
    ))
}

/// `POST /api/agents/{id}/secret` → `{"identity", "secret"}`: the external agent's new secret.
pub async fn rotate_secret(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<NewSecret>, AppError> {
    let secret = state.runtime.rotate_secret(&id).await?;
    Ok(Json(NewSecret {
        identity: id,
        secret,
    }))
}

/// `GET /ws/agent`: an external agent's connection. Its first frame registers it.
pub async fn agent_socket(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    // A program sends no Origin; a browser always does, and only the console's own page may
    // open this socket from one (a page on another site would act with the visitor's network).
    if !super::security::same_origin(&headers) {
        let refused = "a browser page of another origin may not open /ws/agent";
        return crate::error::AppError::Forbidden(refused).into_response();
    }
    let ping_timeout = state.runtime.config().agents.external_ping_timeout;
    upgrade
        .max_message_size(HARD_LIMIT_BYTES)
        .max_frame_size(HARD_LIMIT_BYTES)
        .on_upgrade(move |socket| async move {
            let (wire, from, to) = wire::pair();
            let to_tx = wire.to.clone();
            let runtime = state.runtime.clone();
            tokio::spawn(async move { runtime.external_connected(wire).await });
            pump(socket, from, to, to_tx, ping_timeout).await;
        })
}

/// Carries frames between the socket and the session until either ends: a reader (frames in,
/// bounded: a client faster than its session waits in TCP) and a writer (frames out, pings), so
/// that neither direction waits on the other.
async fn pump(
    socket: WebSocket,
    from: mpsc::Sender<FromClient>,
    to: mpsc::Receiver<ToClient>,
    to_tx: mpsc::Sender<ToClient>,
    ping_timeout: Duration,
) {
    let (sink, stream) = socket.split();
    let last_pong = Arc::new(AtomicU64::new(0));
    let start = tokio::time::Instant::now();
    let mut reader = tokio::spawn(read(stream, from.clone(), to_tx, last_pong.clone(), start));
    write(sink, to, from, last_pong, start, ping_timeout).await;
    // Closed from here: the client's close (or nothing) ends the reader, within a grace.
    if tokio::time::timeout(Duration::from_secs(5), &mut reader)
        .await
        .is_err()
    {
        reader.abort();
    }
}

fn closing(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.to_string().into(),
    }))
}

/// Frames in: text to the session (a flood refused), pongs noted, how it ended said.
async fn read(
    mut stream: futures::stream::SplitStream<WebSocket>,
    from: mpsc::Sender<FromClient>,
    to: mpsc::Sender<ToClient>,
    last_pong: Arc<AtomicU64>,
    start: tokio::time::Instant,
) {
    let (mut second, mut frames) = (tokio::time::Instant::now(), 0u32);
    // Closed by us: what the client still sends is read and dropped until its close comes (a
    // socket dropped with unread data resets, and the client would not read our close).
    let mut closing = false;
    let gone = loop {
        let message = match stream.next().await {
            Some(Ok(message)) => message,
            Some(Err(e)) => break format!("connection lost: {e}"),
            None => break "connection lost".to_string(),
        };
        match &message {
            Message::Close(frame) => {
                break match frame {
                    Some(f) if !f.reason.is_empty() => format!("disconnected: {}", f.reason),
                    _ => "disconnected".to_string(),
                }
            }
            Message::Pong(_) => {
                last_pong.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
            }
            _ => {}
        }
        if closing {
            continue;
        }
        // Every frame counts toward the flood, pings and pongs too (each is answered or read).
        if second.elapsed() >= Duration::from_secs(1) {
            (second, frames) = (tokio::time::Instant::now(), 0);
        }
        frames += 1;
        let refused = match &message {
            _ if frames > FLOOD_PER_SECOND => Some((
                close::FLOOD,
                format!("more than {FLOOD_PER_SECOND} frames in a second"),
            )),
            Message::Text(text) if text.len() > MAX_FRAME_BYTES => Some((
                close::TOO_BIG,
                format!("a frame over {MAX_FRAME_BYTES} bytes"),
            )),
            _ => None,
        };
        if let Some((code, why)) = refused {
            closing = true;
            let _ = from.send(FromClient::Gone(format!("closed: {why}"))).await;
            let _ = to.send(ToClient::Close(code, why)).await;
            continue;
        }
        match message {
            Message::Text(text) => {
                let _ = from.send(FromClient::Text(text.to_string())).await;
            }
            Message::Binary(_) => {
                let _ = from.send(FromClient::Binary).await;
            }
            _ => {}
        }
    };
    if !closing {
        let _ = from.send(FromClient::Gone(gone)).await;
    }
}

/// Frames out, and a ping every half `ping_timeout`: no pong for longer closes it, and so does
/// a client that takes no frame for that long (a write that waits is bounded: nothing behind it,
/// a stop or the server's shutdown, waits on a client that stopped reading).
async fn write(
    mut sink: futures::stream::SplitSink<WebSocket, Message>,
    mut to: mpsc::Receiver<ToClient>,
    from: mpsc::Sender<FromClient>,
    last_pong: Arc<AtomicU64>,
    start: tokio::time::Instant,
    ping_timeout: Duration,
) {
    let mut ping = tokio::time::interval((ping_timeout / 2).max(Duration::from_millis(50)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let limit = ping_timeout.max(Duration::from_secs(1));
    loop {
        tokio::select! {
            out = to.recv() => match out {
                Some(ToClient::Text(text)) => {
                    let sent = tokio::time::timeout(limit, sink.send(Message::Text(text.into()))).await;
                    match sent {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => return,
                        Err(_) => {
                            let why = format!("closed: it took no frame for {} s", limit.as_secs_f64());
                            let _ = from.send(FromClient::Gone(why)).await;
                            return;
                        }
                    }
                }
                Some(ToClient::Close(code, reason)) => {
                    let _ = tokio::time::timeout(limit, sink.send(closing(code, &reason))).await;
                    return;
                }
                // The session ended without a word: the connection ends with it.
                None => {
                    let _ = tokio::time::timeout(limit, sink.send(closing(1000, ""))).await;
                    return;
                }
            },
            _ = ping.tick() => {
                let pong = Duration::from_millis(last_pong.load(Ordering::Relaxed));
                if start.elapsed().saturating_sub(pong) > ping_timeout {
                    let why = format!("no pong within {} s", ping_timeout.as_secs_f64());
                    let _ = tokio::time::timeout(limit, sink.send(closing(close::NO_PONG, &why))).await;
                    let _ = from.send(FromClient::Gone(format!("closed: {why}"))).await;
                    return;
                }
                match tokio::time::timeout(limit, sink.send(Message::Ping(Vec::new().into()))).await {
                    Ok(Ok(())) => {}
                    _ => return,
                }
            }
        }
    }
}
