//! The request and response bodies of the JSON API, shared by the handlers and the UI.

use serde::{Deserialize, Serialize};

use crate::domain::permissions::{Decision, PermissionState};
use crate::domain::Seat;

pub mod endpoints;
pub mod external;
mod governance;
mod hall;
mod knowledge;
mod life;
mod params;
mod projects;
mod quest;

pub use external::{Invite, NewInvite, NewSecret, NewWatch, WatchLink, WatchView};
pub use governance::*;
pub use hall::*;
pub use knowledge::*;
pub use life::*;
pub use projects::*;
pub use quest::*;

/// Every error of the API: `{"error": "..."}` with a fitting status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    pub error: String,
}

/// `POST /api/send`: a message from the human. It addresses a seat (`seat`); `targetAgent`, a
/// name compared case- and Unicode-folded, is kept for callers that know only names. With
/// neither, it goes to the lead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_agent: Option<String>,
    /// `team`: posted in #team (no `seat` or `targetAgent`); its `@Name`s, `@lead` and `@all`
    /// file it in those agents' inboxes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

/// What happened to a message for an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Written to the running process's stdin.
    Delivered,
    /// The lead was not running: it was started with the message.
    Started,
    /// The agent sleeps: the message waits for its wake.
    Queued,
    /// The agent's process cannot be started: the lead was given the message instead.
    Relayed,
}

/// The answer to `POST /api/send` (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendResponse {
    pub event_id: u64,
    pub seat: Seat,
    pub delivery: Delivery,
    /// A post in #team: `team`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// A post in #team: each agent it mentions, and what became of it there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentioned: Vec<Mention>,
    /// A post in #team: words after `@` that are nobody's name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nobody: Vec<String>,
}

/// An agent a #team post mentions, and what became of it in its inbox (`null`: the inbox
/// could not take it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mention {
    pub name: String,
    pub seat: Seat,
    pub delivery: Option<Delivery>,
}

/// `POST /api/agents/summon`: fill these empty seats (every empty seat when absent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummonRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<Seat>>,
}

/// `POST /api/agents/wake`: wake the sleeping agents in these seats (all of them when absent).
/// Other fields (payloads older pages sent) are ignored: the server builds every wake prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WakeRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<Seat>>,
}

/// The seats SUMMON or WAKE started (`202`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatsResponse {
    pub seats: Vec<Seat>,
}

/// `POST /api/permissions/{id}`: the human's answer to a permission request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionAnswer {
    pub decision: Decision,
    /// For a denial: what the agent is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// With `allow_always`: the index of the one suggestion to apply (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<usize>,
}

/// Where a permission request stands after the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAnswered {
    pub request_id: String,
    pub state: PermissionState,
}

/// `POST /api/session/end`: the events that ended the session and began the next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnded {
    pub end_event_id: u64,
    pub session: String,
    pub start_event_id: u64,
}

/// `GET /api/docs`: every document, and the id of the last event they include.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocsResponse {
    pub docs: crate::domain::docs::Docs,
    pub last_event_id: u64,
}

/// `GET /healthz`: `{"ok": true}`, and (to a caller with the token, or on loopback without
/// one) what the server runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub ok: bool,
    /// `"leader"` or `"follower"`, when several servers share the team (PostgreSQL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Where the leader answers, on a follower that knows of one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// The server is shutting down: new work is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closing: bool,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub server: Option<HealthDetail>,
}

impl Health {
    /// Only that it answers.
    pub fn default_ok() -> Self {
        Health {
            ok: true,
            role: None,
            leader: None,
            closing: false,
            server: None,
        }
    }
}

/// What a server runs, for `GET /healthz`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthDetail {
    /// The Claude command, or that it is simulated.
    pub claude: String,
    pub simulated: bool,
    /// The seats with a running process.
    pub running: Vec<Seat>,
    /// The server session.
    pub session: String,
    pub last_event_id: u64,
    pub version: String,
    /// Why the server is not healthy (`ok` false): the store stopped taking events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}
