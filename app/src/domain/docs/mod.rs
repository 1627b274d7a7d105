//! The document model (DESIGN §3): camelCase JSON, deterministic ids, unknown fields kept.

use std::collections::BTreeMap;

use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::permissions::{permission_id, PermissionDoc, TYPE_PERMISSION};
use super::{Millis, Seat};

use super::names::{fold, slug, Taken};

mod identity;
mod ledger;

pub use identity::{identity_id, AgentIdentity, Problem, TYPE_IDENTITY};
pub use ledger::{
    claude_session_doc_id, ledger_id, micro_usd, ClaudeSessionDoc, LedgerDoc, TYPE_CLAUDE_SESSION,
    TYPE_LEDGER,
};

pub const TYPE_MESSAGE: &str = "message";
pub const TYPE_SOUL: &str = "soul";

/// `message:{uuid}`.
pub fn message_id(uuid: &str) -> String {
    format!("{TYPE_MESSAGE}:{uuid}")
}

/// `soul:{pos}:{version}`: a soul written before identities had ids, kept by seat.
pub fn soul_id(seat: Seat, version: u32) -> String {
    format!("{TYPE_SOUL}:{seat}:{version}")
}

/// `soul:{identity}:{version}`: every soul an identity ever wrote, never overwritten.
pub fn identity_soul_id(identity: &str, version: u32) -> String {
    format!("{TYPE_SOUL}:{identity}:{version}")
}

/// `hall:{identity}`: a retired identity, with everything it was.
pub fn hall_id(identity: &str) -> String {
    format!("hall:{identity}")
}

/// Who spoke a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpeakerType {
    Human,
    Lead,
    Agent,
}

/// One line of a conversation. Chats are scoped by `seat` (the agent side), not by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub speaker_name: String,
    pub speaker_type: SpeakerType,
    pub seat: Seat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_agent: Option<String>,
    pub text: String,
    #[serde(default)]
    pub server_session_id: String,
    pub created_at: Millis,
    /// The id of the event that wrote this message: orders messages with equal timestamps.
    #[serde(default)]
    pub event_id: u64,
    /// The identity in the seat when it was written (older messages: whoever holds the seat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One version of a seat's soul.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SoulDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub seat: Seat,
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub text: String,
    pub created_at: Millis,
    /// Whose soul it is (older souls: whoever holds the seat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Any document of the store. Types this version does not know are kept verbatim.
// Documents live in one map, a few hundred at most: boxing the identity would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Doc {
    Identity(AgentIdentity),
    Message(MessageDoc),
    Soul(SoulDoc),
    Permission(PermissionDoc),
    Ledger(LedgerDoc),
    ClaudeSession(ClaudeSessionDoc),
    Other(Value),
}

impl Doc {
    pub fn id(&self) -> Option<&str> {
        match self {
            Doc::Identity(d) => Some(&d.id),
            Doc::Message(d) => Some(&d.id),
            Doc::Soul(d) => Some(&d.id),
            Doc::Permission(d) => Some(&d.id),
            Doc::Ledger(d) => Some(&d.id),
            Doc::ClaudeSession(d) => Some(&d.id),
            Doc::Other(v) => v.get("_id").and_then(Value::as_str),
        }
    }

    pub fn as_identity(&self) -> Option<&AgentIdentity> {
        match self {
            Doc::Identity(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_message(&self) -> Option<&MessageDoc> {
        match self {
            Doc::Message(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_soul(&self) -> Option<&SoulDoc> {
        match self {
            Doc::Soul(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_permission(&self) -> Option<&PermissionDoc> {
        match self {
            Doc::Permission(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_ledger(&self) -> Option<&LedgerDoc> {
        match self {
            Doc::Ledger(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_claude_session(&self) -> Option<&ClaudeSessionDoc> {
        match self {
            Doc::ClaudeSession(d) => Some(d),
            _ => None,
        }
    }

    fn type_name(&self) -> Option<&str> {
        match self {
            Doc::Identity(_) => Some(TYPE_IDENTITY),
            Doc::Message(_) => Some(TYPE_MESSAGE),
            Doc::Soul(_) => Some(TYPE_SOUL),
            Doc::Permission(_) => Some(TYPE_PERMISSION),
            Doc::Ledger(_) => Some(TYPE_LEDGER),
            Doc::ClaudeSession(_) => Some(TYPE_CLAUDE_SESSION),
            Doc::Other(_) => None,
        }
    }

    /// Parses a stored document. Known types with missing or malformed fields fail; a document
    /// of an unknown type is kept as it is.
    pub fn from_value(mut value: Value) -> Result<Self, serde_json::Error> {
        let Some(obj) = value.as_object_mut() else {
            return Err(serde_json::Error::custom(
                "a document must be a JSON object",
            ));
        };
        let ty = obj.get("type").and_then(Value::as_str).map(str::to_owned);
        let known = matches!(
            ty.as_deref(),
            Some(
                TYPE_IDENTITY
                    | TYPE_MESSAGE
                    | TYPE_SOUL
                    | TYPE_PERMISSION
                    | TYPE_LEDGER
                    | TYPE_CLAUDE_SESSION
            )
        );
        if !known {
            return Ok(Doc::Other(value));
        }
        obj.remove("type");
        match ty.as_deref() {
            Some(TYPE_IDENTITY) => {
                // Lazy schema evolution: an old document may lack `gridPosition`; its id has it.
                if !obj.contains_key("gridPosition") {
                    if let Some(pos) = obj
                        .get("_id")
                        .and_then(Value::as_str)
                        .and_then(|id| id.strip_prefix("agent-identity:"))
                        .and_then(|p| p.parse::<Seat>().ok())
                    {
                        obj.insert("gridPosition".into(), pos.into());
                    }
                }
                serde_json::from_value(value).map(Doc::Identity)
            }
            Some(TYPE_MESSAGE) => serde_json::from_value(value).map(Doc::Message),
            Some(TYPE_PERMISSION) => serde_json::from_value(value).map(Doc::Permission),
            Some(TYPE_LEDGER) => serde_json::from_value(value).map(Doc::Ledger),
            Some(TYPE_CLAUDE_SESSION) => serde_json::from_value(value).map(Doc::ClaudeSession),
            _ => serde_json::from_value(value).map(Doc::Soul),
        }
    }

    pub fn to_value(&self) -> Value {
        let mut value = match self {
            Doc::Identity(d) => serde_json::to_value(d),
            Doc::Message(d) => serde_json::to_value(d),
            Doc::Soul(d) => serde_json::to_value(d),
            Doc::Permission(d) => serde_json::to_value(d),
            Doc::Ledger(d) => serde_json::to_value(d),
            Doc::ClaudeSession(d) => serde_json::to_value(d),
            Doc::Other(v) => return v.clone(),
        }
        .expect("documents serialize to JSON objects");
        if let (Some(obj), Some(ty)) = (value.as_object_mut(), self.type_name()) {
            obj.insert("type".into(), ty.into());
        }
        value
    }
}

impl Serialize for Doc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Doc::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// All documents by id. A `BTreeMap` keeps iteration deterministic on every platform.
pub type Docs = BTreeMap<String, Doc>;

/// A write the reducer asks for. There are no deletes: documents only move between states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocWrite {
    pub id: String,
    pub doc: Doc,
}

/// Applies writes to a document map.
pub fn commit(docs: &mut Docs, writes: Vec<DocWrite>) {
    for w in writes {
        docs.insert(w.id, w.doc);
    }
}

/// The identity in `seat`, if any.
pub fn identity(docs: &Docs, seat: Seat) -> Option<&AgentIdentity> {
    docs.get(&identity_id(seat)).and_then(Doc::as_identity)
}

/// Every identity document, in seat order.
pub fn identities(docs: &Docs) -> impl Iterator<Item = &AgentIdentity> {
    docs.range(format!("{TYPE_IDENTITY}:")..format!("{TYPE_IDENTITY};"))
        .filter_map(|(_, d)| d.as_identity())
}

/// Every soul version of the identity in `seat`, oldest first.
pub fn souls(docs: &Docs, seat: Seat) -> Vec<&SoulDoc> {
    identity(docs, seat).map_or_else(Vec::new, |d| souls_of(docs, d))
}

/// Every soul version of `who`, oldest first: its own, and (written before souls had owners)
/// those of the seat it holds.
pub fn souls_of<'a>(docs: &'a Docs, who: &AgentIdentity) -> Vec<&'a SoulDoc> {
    let id = who.stable_id();
    let mut v: Vec<&SoulDoc> = docs
        .range(format!("{TYPE_SOUL}:")..format!("{TYPE_SOUL};"))
        .filter_map(|(_, d)| d.as_soul())
        .filter(|s| match &s.identity_id {
            Some(owner) => *owner == id,
            None => s.seat == who.grid_position && who.retired_at.is_none(),
        })
        .collect();
    v.sort_by_key(|s| s.version);
    v
}

/// The retired identities, in the Hall (recalled ones are seated again and not listed).
pub fn hall(docs: &Docs) -> impl Iterator<Item = &AgentIdentity> {
    docs.range("hall:".to_string().."hall;".to_string())
        .filter_map(|(_, d)| d.as_identity())
        .filter(|d| d.recalled_at.is_none())
}

/// Every message document, in id order.
pub fn messages(docs: &Docs) -> impl Iterator<Item = &MessageDoc> {
    docs.range(format!("{TYPE_MESSAGE}:")..format!("{TYPE_MESSAGE};"))
        .filter_map(|(_, d)| d.as_message())
}

/// The thread of the identity in `seat`: its messages wherever it sat (and, written before
/// messages had owners, the seat's), in time order (event id breaks ties).
pub fn thread(docs: &Docs, seat: Seat) -> Vec<&MessageDoc> {
    let current = identity(docs, seat).map(AgentIdentity::stable_id);
    thread_where(docs, |m| match &m.identity_id {
        Some(owner) => Some(owner) == current.as_ref(),
        None => m.seat == seat,
    })
}

/// The thread of `who`, seated or in the Hall (where its messages are all marked its own).
pub fn thread_of<'a>(docs: &'a Docs, who: &AgentIdentity) -> Vec<&'a MessageDoc> {
    if who.retired_at.is_none() {
        return thread(docs, who.grid_position);
    }
    let id = who.stable_id();
    thread_where(docs, |m| m.identity_id.as_deref() == Some(id.as_str()))
}

/// An identity by its stable id: seated, or in the Hall.
pub fn identity_by_id<'a>(docs: &'a Docs, id: &str) -> Option<&'a AgentIdentity> {
    identities(docs)
        .filter(|d| d.status().is_visible())
        .find(|d| d.stable_id() == id)
        .or_else(|| docs.get(&hall_id(id)).and_then(Doc::as_identity))
}

fn thread_where(docs: &Docs, keep: impl Fn(&MessageDoc) -> bool) -> Vec<&MessageDoc> {
    let mut v: Vec<&MessageDoc> = messages(docs).filter(|m| keep(m)).collect();
    v.sort_by_key(|m| (m.created_at, m.event_id));
    v
}

/// The seat of the visible agent called `name`, compared case- and Unicode-folded (`zoe` finds
/// `Zoë`).
pub fn seat_named(docs: &Docs, name: &str) -> Option<Seat> {
    let folded = fold(name);
    identities(docs)
        .filter(|d| d.status().is_visible())
        .find(|d| d.name.as_deref().is_some_and(|n| fold(n) == folded))
        .map(|d| d.grid_position)
}

/// Every permission document, in id order.
pub fn permissions(docs: &Docs) -> impl Iterator<Item = &PermissionDoc> {
    docs.range(format!("{TYPE_PERMISSION}:")..format!("{TYPE_PERMISSION};"))
        .filter_map(|(_, d)| d.as_permission())
}

/// The requests of one seat, oldest first.
pub fn of_seat(docs: &Docs, seat: Seat) -> Vec<&PermissionDoc> {
    let mut v: Vec<&PermissionDoc> = permissions(docs).filter(|p| p.seat == seat).collect();
    v.sort_by_key(|p| (p.created_at, p.event_id));
    v
}

/// The requests of one seat still waiting for an answer, oldest first.
pub fn pending(docs: &Docs, seat: Seat) -> Vec<&PermissionDoc> {
    let mut v = of_seat(docs, seat);
    v.retain(|p| p.is_pending());
    v
}

/// The request `request_id`, if it was ever made.
pub fn request<'a>(docs: &'a Docs, request_id: &str) -> Option<&'a PermissionDoc> {
    docs.get(&permission_id(request_id))
        .and_then(Doc::as_permission)
}

/// The names and inboxes a newcomer in `seat` must not take: everyone else seated, plus the
/// lead and the human as configured.
pub fn taken_names(docs: &Docs, seat: Seat, lead: &str, human: &str) -> Taken {
    let mut taken = Taken::default();
    for d in identities(docs).filter(|d| d.grid_position != seat && d.status().is_visible()) {
        if let Some(name) = d.name.as_deref() {
            let who = format!("the agent in seat {}", d.grid_position + 1);
            taken.add(name, &who, d.inbox());
        }
    }
    taken.add(lead, "the lead", Some(slug(lead)));
    taken.add(human, "the human", Some(slug(human)));
    taken
}
