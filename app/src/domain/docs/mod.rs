//! The document model (DESIGN §3): camelCase JSON, deterministic ids, unknown fields kept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::permissions::{permission_id, PermissionDoc, TYPE_PERMISSION};
use super::{Millis, Seat};

use super::names::{fold, slug, Taken};

mod budget;
mod doc;
mod identity;
mod invite;
mod knowledge;
mod ledger;
pub mod page;
mod project;
mod quest;
mod talk;
mod watch;

pub use budget::{budget_id, BudgetDoc, ToldLevel, TYPE_BUDGET};
pub use doc::{commit, Doc, DocWrite, Docs};
pub use identity::{
    identity_id, AgentIdentity, Note, Problem, NOTES_KEPT, TYPE_HALL, TYPE_IDENTITY,
};
pub use invite::{invite_doc_id, InviteDoc, TYPE_INVITE};
pub use knowledge::{
    knowledge_doc_id, work_commit_id, Author, KnowledgeDoc, KnowledgeFiles, WorkCommitDoc,
    TYPE_KNOWLEDGE, TYPE_WORK_COMMIT,
};
pub use ledger::{
    claude_session_doc_id, ledger_id, micro_usd, ClaudeSessionDoc, LedgerDoc, TYPE_CLAUDE_SESSION,
    TYPE_LEDGER,
};
pub use project::{
    project_doc_id, worktree_doc_id, Claim, MergeNote, MergeState, ProjectDoc, Review,
    ReviewComment, WorktreeDoc, MAX_LISTED, TYPE_PROJECT, TYPE_WORKTREE,
};
pub use quest::{
    artifact_doc_id, finding_doc_id, job_doc_id, quest_doc_id, ArtifactDoc, ArtifactKind, Comment,
    FindingDoc, JobDoc, JobStatus, QuestDoc, QuestStatus, Severity, StageAgent, StageDoc,
    TYPE_ARTIFACT, TYPE_FINDING, TYPE_JOB, TYPE_QUEST,
};
pub use talk::{talk_id, TalkDoc, Talked, TYPE_TALK};
pub use watch::{watch_doc_id, WatchDoc, TYPE_WATCH};

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

/// Words an agent says that answer the server, not the human: its first words as a newborn
/// (its soul), its words on waking, its note before sleep, its answer to being moved to new
/// work (put to work while awake). They stand in its thread, but no badge counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aside {
    Birth,
    Wake,
    Distil,
    Moved,
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
    /// Words that answer the server, not the human: never counted unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aside: Option<Aside>,
    /// A tool call rather than words: the line shows it folded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<super::tool_lines::ToolLine>,
    /// The channel it was said in (`team`); none: a thread's own message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// A letter's copy in its writer's thread (one agent wrote to `target_agent`): the writer.
    /// Its reader's thread holds the letter itself; the copy is never counted unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_identity: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The most bytes one soul version may have: a newborn's longer soul is cut to it, a longer
/// rewrite is refused, and a bundle that carries a longer one is not brought (every page
/// carries the souls of the seated agents).
pub const MAX_SOUL_BYTES: usize = 16 * 1024;

/// `text` cut to at most `max` bytes, at a character's boundary.
pub fn cut_to(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
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
        .filter_map(|(_, d)| d.as_hall())
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
    thread_where(docs, |m| {
        m.channel.is_none()
            && match &m.identity_id {
                Some(owner) => Some(owner) == current.as_ref(),
                None => m.seat == seat,
            }
    })
}

/// The messages of the channel `name` (`team`), in time order.
pub fn channel<'a>(docs: &'a Docs, name: &str) -> Vec<&'a MessageDoc> {
    thread_where(docs, |m| m.channel.as_deref() == Some(name))
}

/// The thread of `who`, seated or in the Hall (where its messages are all marked its own).
pub fn thread_of<'a>(docs: &'a Docs, who: &AgentIdentity) -> Vec<&'a MessageDoc> {
    if who.retired_at.is_none() {
        return thread(docs, who.grid_position);
    }
    let id = who.stable_id();
    thread_where(docs, |m| {
        m.channel.is_none() && m.identity_id.as_deref() == Some(id.as_str())
    })
}

/// An identity by its stable id: seated, or in the Hall.
pub fn identity_by_id<'a>(docs: &'a Docs, id: &str) -> Option<&'a AgentIdentity> {
    identities(docs)
        .filter(|d| d.status().is_visible())
        .find(|d| d.stable_id() == id)
        .or_else(|| docs.get(&hall_id(id)).and_then(Doc::as_hall))
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

/// Every agent's requests still waiting for an answer, oldest first: the approval queue.
pub fn waiting(docs: &Docs) -> Vec<&PermissionDoc> {
    let mut v: Vec<&PermissionDoc> = permissions(docs).filter(|p| p.is_pending()).collect();
    v.sort_by_key(|p| (p.created_at, p.event_id));
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
