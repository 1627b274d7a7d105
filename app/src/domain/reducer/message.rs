//! A message's document, and its count in its identity's ledger: one place for both, so that
//! neither the writes nor the ledger reach into the other. Every event that says something
//! (the human's, an agent's, the lead's words, a tool line, a post in #team, one agent's letter
//! to another) comes here.

use super::super::docs::{identity, message_id, AgentIdentity, Doc, MessageDoc, SpeakerType};
use super::super::events::{Aside, Event, EventKind};
use super::super::tool_lines::ToolLine;
use super::super::{Seat, LEAD_SEAT};
use super::writes::Writes;

/// A message as an event says it.
struct Said<'a> {
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

/// Who speaks for a seat: the lead in the lead's seat, else an agent.
fn seat_speaker(seat: Seat) -> SpeakerType {
    match seat == LEAD_SEAT {
        true => SpeakerType::Lead,
        false => SpeakerType::Agent,
    }
}

impl<'a> Said<'a> {
    /// Words in a seat's thread, and nothing else.
    fn words(
        uuid: &'a str,
        speaker_name: &'a str,
        speaker_type: SpeakerType,
        seat: Seat,
        text: &'a str,
    ) -> Self {
        Said {
            uuid,
            speaker_name,
            speaker_type,
            seat,
            text,
            target_agent: &NO_ONE,
            aside: None,
            tool: None,
            channel: None,
            from_seat: None,
        }
    }
}

/// No agent addressed.
static NO_ONE: Option<String> = None;

/// The message an event says (its document, counted in the ledger).
pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::UserMessage { .. }
        | EventKind::AgentMessage { .. }
        | EventKind::LeadText { .. } => words(w, event),
        EventKind::TeamMessage { .. } => team_post(w, event),
        EventKind::AgentWrote { .. } => letter(w, event),
        EventKind::ToolUsed { .. } => tool_line(w, event),
        _ => {}
    }
}

/// Words in a seat's thread: the human's, an agent's, the lead's.
fn words(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::UserMessage {
            message_id,
            speaker_name,
            seat,
            text,
            target_agent,
        } => put(
            w,
            event,
            Said {
                target_agent,
                ..Said::words(message_id, speaker_name, SpeakerType::Human, *seat, text)
            },
        ),
        EventKind::AgentMessage {
            message_id,
            seat,
            speaker_name,
            text,
            target_agent,
            aside,
        } => put(
            w,
            event,
            Said {
                target_agent,
                aside: *aside,
                ..Said::words(message_id, speaker_name, seat_speaker(*seat), *seat, text)
            },
        ),
        EventKind::LeadText {
            message_id,
            speaker_name,
            text,
            aside,
        } => put(
            w,
            event,
            Said {
                aside: *aside,
                ..Said::words(message_id, speaker_name, SpeakerType::Lead, LEAD_SEAT, text)
            },
        ),
        _ => {}
    }
}

/// A post in #team (the human's has no seat: it is kept under the lead's).
fn team_post(w: &mut Writes, event: &Event) {
    let EventKind::TeamMessage {
        message_id,
        seat,
        speaker_name,
        text,
        mentioned: _,
    } = &event.kind
    else {
        return;
    };
    let who = seat.map_or(SpeakerType::Human, seat_speaker);
    let seat = seat.unwrap_or(LEAD_SEAT);
    put(
        w,
        event,
        Said {
            channel: Some(crate::domain::channel::TEAM),
            ..Said::words(message_id, speaker_name, who, seat, text)
        },
    )
}

/// A letter between agents: in the reader's thread, and the writer's copy in its own (each owned by one identity, so each thread and its pages hold it).
fn letter(w: &mut Writes, event: &Event) {
    let EventKind::AgentWrote {
        message_id,
        from_seat,
        to_seat,
        speaker_name,
        to_name,
        text,
    } = &event.kind
    else {
        return;
    };
    let to = Some(to_name.clone());
    let copy = format!("{message_id}:from");
    let who = seat_speaker(*from_seat);
    for (uuid, seat, copy_of) in [
        (message_id.as_str(), *to_seat, None),
        (copy.as_str(), *from_seat, Some(*from_seat)),
    ] {
        let said = Said::words(uuid, speaker_name, who, seat, text);
        put(
            w,
            event,
            Said {
                target_agent: &to,
                from_seat: copy_of,
                ..said
            },
        );
    }
}

/// A tool call, as a line of the thread.
fn tool_line(w: &mut Writes, event: &Event) {
    let EventKind::ToolUsed {
        message_id,
        seat,
        speaker_name,
        line,
    } = &event.kind
    else {
        return;
    };
    let summary = line.summary();
    let said = Said::words(
        message_id,
        speaker_name,
        seat_speaker(*seat),
        *seat,
        &summary,
    );
    put(
        w,
        event,
        Said {
            tool: Some(line.clone()),
            ..said
        },
    )
}

/// Puts the message (a human's, the lead's or an agent's) and counts it in the ledger.
fn put(w: &mut Writes, event: &Event, said: Said<'_>) {
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
