//! Threads a page at a time. The page a browser loads carries the newest [`PAGE`] messages of
//! each thread's owner and how many it has beyond them; older ones come from the server a page
//! at a time when the reader asks. Messages never change once written (but for being given an
//! owner when a seat is retired), so a thread loaded this way is always its newest messages
//! without a gap: the newest page, what arrived live since, and the pages asked for.

use std::collections::{BTreeMap, HashMap};

use super::{identity, identity_by_id, messages, AgentIdentity, Doc, Docs, MessageDoc};
use crate::domain::Seat;

/// Messages of a thread fetched at a time: a thread opened after the page loaded, and each
/// "Show older".
pub const PAGE: usize = 100;

/// Messages of the open thread a page load carries: a screenful and more (the rest come with
/// "Show older"). Each one is rendered on the server, walked again for hydration and sent twice
/// (as HTML and in the page's data): about 70 µs of the server's time apiece (`make bench`, P6a).
pub const FIRST: usize = 30;

/// How many messages each owner has that a replica does not hold.
pub type Older = BTreeMap<String, usize>;

/// How many messages of the threads of `owners` a replica does not hold.
pub fn missing(older: &Older, owners: &[String]) -> usize {
    owners.iter().filter_map(|w| older.get(w)).sum()
}

/// Whose thread a message is in: its channel's (`channel:team`), its identity's, or (written
/// before messages had owners) its seat's, as `seat:{n}`.
pub fn owner(m: &MessageDoc) -> String {
    match &m.channel {
        Some(name) => channel_owner(name),
        None => m.identity_id.clone().unwrap_or_else(|| seat_owner(m.seat)),
    }
}

/// The owner of a channel's messages (`#team`: `channel:team`), paged as a thread is.
pub fn channel_owner(name: &str) -> String {
    format!("channel:{name}")
}

/// The owner of a seat's messages written before messages had owners.
pub fn seat_owner(seat: Seat) -> String {
    format!("seat:{seat}")
}

/// The owners whose messages make up `who`'s thread ([`super::thread_of`]): its own, and while
/// it is seated, those of its seat that have no owner.
pub fn thread_owners(who: &AgentIdentity) -> Vec<String> {
    let mut v = vec![who.stable_id()];
    if who.retired_at.is_none() {
        v.push(seat_owner(who.grid_position));
    }
    v
}

/// The owners whose messages make up the thread of `seat` ([`super::thread`]).
pub fn seat_thread_owners(docs: &Docs, seat: Seat) -> Vec<String> {
    match identity(docs, seat) {
        Some(d) => thread_owners(d),
        None => vec![seat_owner(seat)],
    }
}

/// The owners whose messages the wake transcripts of `seats` read: each one's thread, and the
/// thread of the parent it was forked from.
pub fn transcript_owners(docs: &Docs, seats: &[Seat]) -> Vec<String> {
    let mut v = Vec::new();
    for &seat in seats {
        v.extend(seat_thread_owners(docs, seat));
        let parent = identity(docs, seat).and_then(|d| d.parent_uuid.as_deref());
        if let Some(p) = parent.and_then(|p| identity_by_id(docs, p)) {
            v.extend(thread_owners(p));
        }
    }
    v.sort();
    v.dedup();
    v
}

/// Where a message stands in its thread: time, then the event that wrote it.
pub fn place(m: &MessageDoc) -> (i64, u64) {
    (m.created_at, m.event_id)
}

/// `docs` with only the newest `keep` messages of each owner, and how many each owner has
/// beyond those (owners with none left out).
pub fn newest_pages(docs: &Docs, keep: usize) -> (Docs, Older) {
    let mut by_owner: HashMap<String, Vec<&MessageDoc>> = HashMap::new();
    for m in messages(docs) {
        by_owner.entry(owner(m)).or_default().push(m);
    }
    let mut kept = Docs::new();
    let mut older = Older::new();
    for (who, mut list) in by_owner {
        list.sort_unstable_by_key(|m| std::cmp::Reverse(place(m)));
        if list.len() > keep {
            older.insert(who, list.len() - keep);
        }
        for m in list.into_iter().take(keep) {
            kept.insert(m.id.clone(), Doc::Message(m.clone()));
        }
    }
    let prefix = |k: &String| k.starts_with("message:");
    kept.extend(
        docs.iter()
            .filter(|(k, _)| !prefix(k))
            .map(|(k, d)| (k.clone(), d.clone())),
    );
    (kept, older)
}

/// The page of `owner`'s messages just before `before`: at most `limit`, oldest first, and how
/// many older ones are left after it.
pub fn page_before(
    docs: &Docs,
    owner_id: &str,
    before: (i64, u64),
    limit: usize,
) -> (Vec<MessageDoc>, usize) {
    let mut list: Vec<&MessageDoc> = messages(docs)
        .filter(|m| place(m) < before && owner(m) == owner_id)
        .collect();
    list.sort_unstable_by_key(|m| place(m));
    let left = list.len().saturating_sub(limit);
    (list[left..].iter().map(|&m| m.clone()).collect(), left)
}

/// Where the page before a replica's messages of `owner_id` starts: its oldest one (a replica
/// holding none asks from the end).
pub fn oldest_held(docs: &Docs, owner_id: &str) -> (i64, u64) {
    messages(docs)
        .filter(|m| owner(m) == owner_id)
        .map(place)
        .min()
        .unwrap_or((i64::MAX, u64::MAX))
}

/// What a page's snapshot holds besides its threads: every document but the history only an
/// agent's own page shows. The knowledge versions before each identity's current one, and the
/// soul versions of the identities in the Hall, stay out; of `agent` (an identity's id, on its
/// page) everything is in. What stays out is never read by the reducer (it reads each
/// identity's current knowledge version, and a seat's souls only to give them an owner), so
/// the replica applies every event as the server does.
pub fn history_for(docs: Docs, agent: Option<&str>) -> Docs {
    let seated: std::collections::HashSet<String> = super::identities(&docs)
        .map(AgentIdentity::stable_id)
        .collect();
    let current: HashMap<String, u32> = super::identities(&docs)
        .chain(super::hall(&docs))
        .map(|d| (d.stable_id(), d.vault_version))
        .collect();
    docs.into_iter()
        .filter(|(_, d)| match d {
            Doc::Knowledge(v) => {
                agent == Some(v.identity_id.as_str())
                    || current.get(&v.identity_id) == Some(&v.version)
            }
            // Unowned souls (older data) are a seat's: kept with it.
            Doc::Soul(s) => s
                .identity_id
                .as_ref()
                .is_none_or(|owner| seated.contains(owner) || agent == Some(owner.as_str())),
            _ => true,
        })
        .collect()
}
