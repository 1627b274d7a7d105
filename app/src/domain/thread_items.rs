//! What one seat's thread shows, oldest first: its messages (a human's that waits for a
//! sleeper marked queued, **Wake** beside the newest of them), its permission requests, a
//! fork's inherited conversation (by reference), what happened to its process, and its last
//! problem. Pure: the `Thread` view draws it, and tests read it without a browser.

use super::docs::{identity, identity_by_id, of_seat, thread, Docs, SpeakerType};
use super::permissions::PermissionDoc;
use super::status::AgentStatus;
use super::tool_lines::ToolLine;
use super::{Millis, Seat};

/// One message of the thread.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadLine {
    pub id: String,
    pub who: String,
    pub kind: SpeakerType,
    pub text: String,
    pub at: Millis,
    /// The human's, written while its agent sleeps: not delivered yet.
    pub queued: bool,
    /// The newest message queued for a sleeper: **Wake** is offered beside it.
    pub wake_here: bool,
    /// A tool call rather than words.
    pub tool: Option<Box<ToolLine>>,
    /// One agent's letter to another: whom it was to ("Lyra → Kael").
    pub to: Option<String>,
}

/// One entry of the thread.
#[derive(Clone, Debug, PartialEq)]
pub enum ThreadItem {
    Message(ThreadLine),
    /// A permission request, and whose it is.
    Permission(Box<PermissionDoc>, String),
    /// The last thing that went wrong for the seat (a marker refused, a name taken), and when.
    Problem(String, Millis),
    /// A fork's inherited conversation, by reference: the parent's id and name, up to when.
    Inherited(String, String, Millis),
    /// What happened to the agent's process (it woke, was interrupted, crashed): text, when,
    /// and the event it was noted at.
    Note(String, Millis, u64),
}

impl ThreadItem {
    pub fn is_message(&self) -> bool {
        matches!(self, ThreadItem::Message(_))
    }

    /// Keyed by what changes how it is drawn: a queued message is drawn again when its agent
    /// wakes, a request when it is answered.
    pub fn key(&self) -> String {
        match self {
            ThreadItem::Message(l) => format!("{}:{}:{}", l.id, l.queued, l.wake_here),
            ThreadItem::Permission(p, _) => format!("{}:{}", p.id, p.state.as_str()),
            ThreadItem::Problem(_, at) => format!("problem:{at}"),
            ThreadItem::Inherited(parent, _, at) => format!("inherited:{parent}:{at}"),
            ThreadItem::Note(_, _, event) => format!("note:{event}"),
        }
    }
}

/// Where an entry stands in the thread: when, then the event that wrote it.
type Place = (Millis, u64);

/// The thread of `seat`, oldest first.
pub fn thread_items(docs: &Docs, seat: Seat) -> Vec<ThreadItem> {
    let me = identity(docs, seat);
    let who = me
        .and_then(|d| d.name.clone())
        .unwrap_or_else(|| format!("Seat {}", seat + 1));
    let mut items = messages(docs, seat);
    items.extend(of_seat(docs, seat).into_iter().map(|p| {
        let item = ThreadItem::Permission(Box::new(p.clone()), who.clone());
        ((p.created_at, p.event_id), item)
    }));
    items.extend(inherited(docs, seat));
    if let Some(d) = me {
        items.extend(d.notes.iter().map(|n| {
            let item = ThreadItem::Note(n.text.clone(), n.at, n.event_id);
            ((n.at, n.event_id), item)
        }));
        if let Some(p) = &d.last_problem {
            items.push((
                (p.at, u64::MAX),
                ThreadItem::Problem(p.message.clone(), p.at),
            ));
        }
    }
    items.sort_by_key(|(at, _)| *at);
    let newest_queued = items.iter_mut().rev().find_map(|(_, item)| match item {
        ThreadItem::Message(l) if l.queued => Some(l),
        _ => None,
    });
    if let Some(l) = newest_queued {
        l.wake_here = true;
    }
    items.into_iter().map(|(_, item)| item).collect()
}

/// The seat's messages; the human's written after its agent was last alive, while it sleeps,
/// are queued.
fn messages(docs: &Docs, seat: Seat) -> Vec<(Place, ThreadItem)> {
    let asleep_since = identity(docs, seat)
        .filter(|d| d.status() == AgentStatus::Sleeping)
        .map(|d| d.last_alive_at.unwrap_or(0));
    thread(docs, seat)
        .into_iter()
        .map(|m| {
            let human = m.speaker_type == SpeakerType::Human;
            let line = ThreadLine {
                id: m.id.clone(),
                who: m.speaker_name.clone(),
                kind: m.speaker_type,
                text: m.text.clone(),
                at: m.created_at,
                queued: human && asleep_since.is_some_and(|since| m.created_at > since),
                wake_here: false,
                tool: m.tool.clone().map(Box::new),
                to: (!human).then(|| m.target_agent.clone()).flatten(),
            };
            ((m.created_at, m.event_id), ThreadItem::Message(line))
        })
        .collect()
}

/// A fork carries its parent's conversation: shown by reference, first, not copied.
fn inherited(docs: &Docs, seat: Seat) -> Option<(Place, ThreadItem)> {
    let d = identity(docs, seat)?;
    let parent = d.parent_uuid.clone()?;
    let parent_name = identity_by_id(docs, &parent)
        .and_then(|p| p.name.clone())
        .unwrap_or_else(|| "its parent".into());
    let point = d
        .fork_message_id
        .as_ref()
        .and_then(|id| docs.get(id))
        .and_then(|m| m.as_message())
        .map(|m| m.created_at);
    let at = point.or(d.created_at).unwrap_or_default();
    Some((
        (Millis::MIN, 0),
        ThreadItem::Inherited(parent, parent_name, at),
    ))
}
