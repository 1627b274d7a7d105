//! What travels between an external agent's WebSocket (held by the HTTP layer, which answers
//! pings, bounds frame sizes and rates) and its session here: text frames in, frames and the
//! close out, over bounded channels (a slow client slows its own session, nobody else's).

use tokio::sync::mpsc;

/// How many frames wait each way before the sender waits.
pub const DEPTH: usize = 32;

/// What the client sent, or how the connection ended.
#[derive(Debug)]
pub enum FromClient {
    Text(String),
    /// A binary frame: not part of the protocol.
    Binary,
    /// The connection is gone, and why (closed by the client, lost, no pong, a frame too big,
    /// a flood); the HTTP layer has closed it with the fitting code.
    Gone(String),
}

/// What goes to the client.
#[derive(Debug)]
pub enum ToClient {
    Text(String),
    /// Close with this code and reason; nothing follows.
    Close(u16, String),
}

impl ToClient {
    pub fn frame(frame: &app::contract::external::ServerFrame) -> Self {
        ToClient::Text(serde_json::to_string(frame).unwrap_or_default())
    }
}

/// A session's end of the connection.
pub struct Wire {
    pub from: mpsc::Receiver<FromClient>,
    pub to: mpsc::Sender<ToClient>,
}

/// The two ends: the session's [`Wire`], and the HTTP layer's (frames in, frames out).
pub fn pair() -> (Wire, mpsc::Sender<FromClient>, mpsc::Receiver<ToClient>) {
    let (in_tx, in_rx) = mpsc::channel(DEPTH);
    let (out_tx, out_rx) = mpsc::channel(DEPTH);
    (
        Wire {
            from: in_rx,
            to: out_tx,
        },
        in_tx,
        out_rx,
    )
}
