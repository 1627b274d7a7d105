//! Who talks to whom, by identity: each pair an event joins (`domain::talk::of_event`) goes
//! into both identities' talk documents, the writer's (`wrote`) and the reader's; each keeps
//! the last hour as of this event, at most [`KEPT`] entries.

use super::super::docs::{identity, AgentIdentity, Doc};
use super::super::events::Event;
use super::super::talk::{of_event, talk_id, TalkDoc, Talked, KEPT, WINDOW_MS};
use super::writes::Writes;

pub(super) fn count(w: &mut Writes, event: &Event) {
    for pair in of_event(&event.kind) {
        let who = |seat| identity(w.docs, seat).map(AgentIdentity::stable_id);
        let (Some(from), Some(to)) = (who(pair.from), who(pair.to)) else {
            continue;
        };
        if from == to {
            continue;
        }
        note(w, event, &from, &to, true);
        note(w, event, &to, &from, false);
    }
}

fn note(w: &mut Writes, event: &Event, who: &str, with: &str, wrote: bool) {
    let id = talk_id(who);
    // This event's earlier write to the same document counts (a post naming two agents).
    let mut doc = match w.written(&id).and_then(|d| d.as_talk().cloned()) {
        Some(doc) => doc,
        None => {
            let stored = w.docs.get(&id).and_then(Doc::as_talk).cloned();
            // Applied once: an event already counted here (a replay) counts no more.
            if stored.as_ref().is_some_and(|d| event.id <= d.last_event_id) {
                return;
            }
            stored.unwrap_or_else(|| TalkDoc {
                id: id.clone(),
                identity_id: who.to_string(),
                recent: Vec::new(),
                last_event_id: 0,
                extra: Default::default(),
            })
        }
    };
    doc.last_event_id = event.id;
    let entry = Talked {
        with: with.to_string(),
        at: event.ts,
        wrote,
    };
    doc.recent.retain(|t| t.at > event.ts - WINDOW_MS);
    doc.recent.push(entry);
    let over = doc.recent.len().saturating_sub(KEPT);
    doc.recent.drain(..over);
    w.put(id, Doc::Talk(Box::new(doc)));
}
