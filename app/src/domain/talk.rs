//! Who talks to whom: one agent's letter to another (`agent_wrote`) and an agent's post in
//! #team that mentions others (`team_message`), as pairs of seats, writer → reader, read from
//! the messages the replica holds. The grid lights a line for each pair a new message joins;
//! the detail panel counts each pair over the last hour.

use std::collections::BTreeMap;

use super::docs::{messages, seat_named, Docs, MessageDoc, SpeakerType};
use super::{Millis, Seat, LEAD_SEAT};

/// A writer and a reader, by seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    pub from: Seat,
    pub to: Seat,
}

/// How many messages each pair exchanged from `since` on, counted from the documents: a
/// letter by its writer's copy (in the writer's seat, to the agent it names), a post in #team
/// by the seats it was filed for (the human's are not counted: the human is no face on the
/// grid). `lead` is the lead's name (a letter to it names it).
pub fn counts(docs: &Docs, since: Millis, lead: &str) -> BTreeMap<Pair, u32> {
    let mut out: BTreeMap<Pair, u32> = BTreeMap::new();
    for pair in pairs(docs, |m| m.created_at >= since, lead) {
        *out.entry(pair).or_default() += 1;
    }
    out
}

/// The pairs joined by messages written after event `after` (the grid lights a line for each).
pub fn after(docs: &Docs, after: u64, lead: &str) -> Vec<Pair> {
    pairs(docs, |m| m.event_id > after, lead)
}

/// The pairs of the messages `keep` takes, oldest first.
fn pairs(docs: &Docs, keep: impl Fn(&MessageDoc) -> bool, lead: &str) -> Vec<Pair> {
    let mut kept: Vec<&MessageDoc> = messages(docs).filter(|m| keep(m)).collect();
    kept.sort_by_key(|m| (m.created_at, m.event_id));
    let mut out = Vec::new();
    for m in kept {
        let to: Vec<Seat> = match (&m.from_identity, &m.channel) {
            (Some(_), None) => m
                .target_agent
                .as_deref()
                .and_then(|name| match name == lead {
                    true => Some(LEAD_SEAT),
                    false => seat_named(docs, name),
                })
                .into_iter()
                .collect(),
            (None, Some(_)) if m.speaker_type != SpeakerType::Human => m.mentioned.clone(),
            _ => continue,
        };
        out.extend(
            to.into_iter()
                .filter(|to| *to != m.seat)
                .map(|to| Pair { from: m.seat, to }),
        );
    }
    out
}

/// What the panel of the agent in `seat` says of its talk: for each other seat it exchanged
/// messages with, how many it wrote and how many it was sent, busiest first.
pub fn with(counts: &BTreeMap<Pair, u32>, seat: Seat) -> Vec<(Seat, u32, u32)> {
    let mut by: BTreeMap<Seat, (u32, u32)> = BTreeMap::new();
    for (pair, n) in counts {
        if pair.from == seat {
            by.entry(pair.to).or_default().0 += n;
        } else if pair.to == seat {
            by.entry(pair.from).or_default().1 += n;
        }
    }
    let mut v: Vec<(Seat, u32, u32)> = by.into_iter().map(|(s, (w, r))| (s, w, r)).collect();
    v.sort_by_key(|(s, w, r)| (std::cmp::Reverse(w + r), *s));
    v
}
