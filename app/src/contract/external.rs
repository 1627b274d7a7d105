//! External agents: the invite the human makes (`POST /api/invites`), a secret rotated, and
//! the frames of `GET /ws/agent` (docs/EXTERNAL.md), one JSON text frame each, tagged by
//! `type`. Seats are grid positions 0-8, as everywhere in the API (4 is the lead's).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::Seat;

/// The protocol's version, said in `agent:registered`; a client names the one it speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// `POST /api/invites`: an invite for the seat given, or the first empty one when it is used.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewInvite {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
}

/// The invite made (`201`): its token, shown once (the server keeps only its hash), and a
/// command line for the Python client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invite {
    pub token: String,
    pub seat: Option<Seat>,
    pub command: String,
}

/// `POST /api/agents/{id}/secret`: an external agent's new secret, shown once; the old one no
/// longer connects (a connection made with it is closed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSecret {
    pub identity: String,
    pub secret: String,
}

/// What an external agent sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum ClientFrame {
    /// The first frame: an invite (a newcomer), or an identity and its secret (coming back).
    /// A newcomer may give its name and soul at once; without them its first turn asks.
    #[serde(rename = "agent:register")]
    Register {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        identity: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        soul: Option<String>,
    },
    /// The answer to the open turn: actions, each `{"type": <tool>, ...its arguments}`
    /// (`say {text}`, `register {name, soul?}`, and the agents' tools: `send_message`,
    /// `post_finding`, `stage_done`, `claim_job`, …), carried out in order.
    #[serde(rename = "agent:action")]
    Action { turn: u64, actions: Vec<Value> },
    /// The open turn is answered with nothing to do.
    #[serde(rename = "agent:wait")]
    Wait { turn: u64 },
}

/// What the server sends an external agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ServerFrame {
    /// Registered: who it is and where it sits; `secret` only when it was just made (an
    /// invite used): keep it, it is shown once.
    #[serde(rename = "agent:registered")]
    Registered {
        identity: String,
        seat: Seat,
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
        protocol: u32,
    },
    /// A turn: what waits for the agent (mail under its senders' headers, a stage's brief,
    /// the letter that asks a newcomer its name) and where it stands. Answer it with
    /// `agent:action` or `agent:wait` naming `turn`.
    #[serde(rename = "turn:start")]
    TurnStart {
        turn: u64,
        messages: Vec<TurnMessage>,
        state: TurnState,
    },
    /// What became of one action of a turn (`index` in its `actions`): done, or refused and
    /// why. Actions that ask the team for something are answered when it is carried out.
    #[serde(rename = "action:result")]
    ActionResult {
        turn: u64,
        index: usize,
        ok: bool,
        text: String,
    },
    /// The turn is over: `answered`, `waited`, or `timeout` (no answer in time: a wait was
    /// recorded for it, and its mail comes again with the next turn).
    #[serde(rename = "turn:end")]
    TurnEnd { turn: u64, how: String },
    /// A frame that could not be taken, and why; the connection stays.
    #[serde(rename = "error")]
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn: Option<u64>,
        message: String,
    },
}

/// One message of a turn: what reached the agent, as a Claude agent would read it (`text`:
/// its sender's header line, then its words), and the same apart: `from` (the header's name;
/// none for words the server itself gave) and `body` (the words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnMessage {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default)]
    pub body: String,
}

impl TurnMessage {
    /// A turn's messages from the text delivered to the agent: one per sender's header.
    pub fn cut(text: &str) -> Vec<TurnMessage> {
        crate::domain::provenance::messages(text)
            .into_iter()
            .map(|(from, body)| TurnMessage {
                text: match from {
                    Some(from) => {
                        format!("{}{from}]\n{body}", crate::domain::provenance::MAIL_HEADER)
                    }
                    None => body.clone(),
                },
                from: from.map(str::to_owned),
                body,
            })
            .collect()
    }
}

/// Where the agent stands when its turn starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnState {
    pub seat: Seat,
    /// `None` until it has chosen one.
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_state: Option<String>,
    /// Who is on the team, as the `team` tool says it.
    pub team: String,
    /// It is in a running quest stage (`post_finding` and `stage_done` are its).
    #[serde(default)]
    pub in_stage: bool,
}

/// Close codes of `/ws/agent` (with a reason): a client reconnects after the ones marked so.
pub mod close {
    /// A newer connection for the same identity took over (do not reconnect).
    pub const REPLACED: u16 = 4000;
    /// The human put the agent to sleep or retired it (do not reconnect).
    pub const DISMISSED: u16 = 4001;
    /// The register frame was refused: a wrong or used invite, a wrong secret, no seat.
    pub const REFUSED: u16 = 4003;
    /// A frame outside the protocol: binary, or anything before `agent:register`.
    pub const PROTOCOL: u16 = 4004;
    /// No pong to a ping in time (reconnect).
    pub const NO_PONG: u16 = 4008;
    /// Too many frames too fast.
    pub const FLOOD: u16 = 4029;
    /// A frame over the size limit (the WebSocket's own "too big").
    pub const TOO_BIG: u16 = 1009;
}

/// `POST /api/watch {"label"?}`: a watch link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewWatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A watch link made (`201`): its token, shown once, and the page it opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchLink {
    pub token: String,
    pub url: String,
}

/// One watch link as `GET /api/watch` lists it (never its token).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchView {
    /// What revokes it (`POST /api/watch/{id}/revoke`), as its token does.
    pub id: String,
    pub label: Option<String>,
    pub created_at: crate::domain::Millis,
    /// The last request made with it (since the server started).
    pub last_used_at: Option<crate::domain::Millis>,
    pub revoked_at: Option<crate::domain::Millis>,
}
