//! A message's document, and its count in its identity's ledger: one place for both, so that
//! neither the writes nor the ledger reach into the other.

use super::super::docs::{identity, message_id, AgentIdentity, Doc, MessageDoc, SpeakerType};
use super::super::events::{Aside, Event};
use super::super::tool_lines::ToolLine;
use super::super::Seat;
use super::writes::Writes;

/// A message as an event says it.
pub(super) struct Said<'a> {
    pub uuid: &'a str,
    pub speaker_name: &'a str,
    pub speaker_type: SpeakerType,
    pub seat: Seat,
    pub text: &'a str,
    pub target_agent: &'a Option<String>,
    pub aside: Option<Aside>,
    pub tool: Option<ToolLine>,
    /// Said in a channel (`team`), not a thread.
    pub channel: Option<&'a str>,
    /// A letter's copy in its writer's thread: the writer's seat (`seat` is the same).
    pub from_seat: Option<Seat>,
}

/// Puts the message (a human's, the lead's or an agent's) and counts it in the ledger.
pub(super) fn put(w: &mut Writes, event: &Event, said: Said<'_>) {
    let Said {
        uuid,
        speaker_name,
        speaker_type,
        seat,
        text,
        target_agent,
        aside,
        tool,
        channel,
        from_seat,
    } = said;
    let id = message_id(uuid);
    // The human's words in a channel are nobody's thread's (the seat is the lead's).
    let owner = match (channel, speaker_type) {
        (Some(_), SpeakerType::Human) => None,
        _ => identity(w.docs, seat).map(AgentIdentity::stable_id),
    };
    let doc = MessageDoc {
        id: id.clone(),
        speaker_name: speaker_name.to_string(),
        speaker_type,
        seat,
        target_agent: target_agent.clone(),
        text: text.to_string(),
        server_session_id: event.session_id.clone(),
        created_at: event.ts,
        event_id: event.id,
        identity_id: owner,
        aside,
        tool,
        channel: channel.map(str::to_string),
        from_identity: from_seat
            .and_then(|s| identity(w.docs, s))
            .map(AgentIdentity::stable_id),
        extra: Default::default(),
    };
    // A tool line is counted as a tool call (its process report), not as a message.
    if let Some(who) = doc.identity_id.as_ref().filter(|_| doc.tool.is_none()) {
        let own = speaker_type != SpeakerType::Human
            && identity(w.docs, seat).and_then(|d| d.name.as_deref()) == Some(speaker_name);
        super::ledger::count_message(w, event, who, own);
    }
    w.put(id, Doc::Message(doc));
}
