//! Threads a page at a time: the newest page of each owner, and older pages on request, put
//! back together are the whole thread, in order, with nothing twice.

use super::super::docs::page::{newest_pages, oldest_held, page_before, seat_thread_owners, Older};
use super::super::docs::{identity_id, message_id, thread, AgentIdentity, Doc, Docs, MessageDoc};
use super::super::docs::{SpeakerType, TYPE_MESSAGE};
use super::super::status::AgentStatus;
use proptest::prelude::*;

fn message(n: u64, seat: u8, owner: Option<&str>, at: i64) -> MessageDoc {
    MessageDoc {
        id: message_id(&format!("{n:08}-{}", n.wrapping_mul(2654435761) % 1000)),
        speaker_name: "Ada".into(),
        speaker_type: SpeakerType::Agent,
        seat,
        target_agent: None,
        text: format!("line {n}"),
        server_session_id: "s".into(),
        created_at: at,
        event_id: n,
        identity_id: owner.map(str::to_string),
        aside: None,
        tool: None,
        channel: None,
        from_identity: None,
        extra: Default::default(),
    }
}

/// A team: Ada in seat 1 (messages of her own and, older, of her seat without an owner), Bo in
/// seat 2, and `n` messages spread over them (equal times happen; the event id orders them).
fn team(n: u64, spread: &[u8]) -> Docs {
    let mut docs = Docs::new();
    for (seat, id) in [(1u8, "ada"), (2, "bo")] {
        let mut d = AgentIdentity::new(seat, AgentStatus::Sleeping);
        d.identity_id = Some(id.into());
        d.uuid = Some(id.into());
        docs.insert(identity_id(seat), Doc::Identity(Box::new(d)));
    }
    for i in 0..n {
        let pick = spread[i as usize % spread.len()];
        let (seat, owner) = match pick % 3 {
            0 => (1, Some("ada")),
            1 => (1, None),
            _ => (2, Some("bo")),
        };
        let m = message(i + 1, seat, owner, (i as i64) / 3);
        docs.insert(m.id.clone(), Doc::Message(m));
    }
    docs
}

fn ids(v: &[&MessageDoc]) -> Vec<String> {
    v.iter().map(|m| m.id.clone()).collect()
}

/// What a browser does: starts from the newest pages and asks for older ones until none are left.
fn read_back(full: &Docs, seat: u8, page: usize) -> (Docs, Older) {
    let (mut held, mut older) = newest_pages(full, page);
    for owner in seat_thread_owners(&held, seat) {
        while older.get(&owner).copied().unwrap_or(0) > 0 {
            let before = oldest_held(&held, &owner);
            let (got, left) = page_before(full, &owner, before, page);
            assert!(
                !got.is_empty(),
                "a page asked for while some are left is not empty"
            );
            for m in got {
                assert!(
                    held.insert(m.id.clone(), Doc::Message(m)).is_none(),
                    "sent twice"
                );
            }
            older.insert(owner.clone(), left);
        }
    }
    (held, older)
}

#[test]
fn the_page_carries_each_owners_newest_messages_and_counts_the_rest() {
    let docs = team(30, &[0, 1, 2]);
    let (page, older) = newest_pages(&docs, 4);
    let kept: Vec<_> = page
        .keys()
        .filter(|k| k.starts_with(TYPE_MESSAGE))
        .collect();
    assert_eq!(kept.len(), 12, "four for each of three owners");
    assert_eq!(older.get("ada"), Some(&6));
    assert_eq!(older.get("seat:1"), Some(&6));
    assert_eq!(older.get("bo"), Some(&6));
    // Everything that is not a message is there as it was.
    assert_eq!(page.get(&identity_id(1)), docs.get(&identity_id(1)));
    // Seat 1's thread on the page is the newest of its whole thread.
    let whole = ids(&thread(&docs, 1));
    let shown = ids(&thread(&page, 1));
    assert_eq!(shown[..], whole[whole.len() - 8..]);
}

#[test]
fn a_short_thread_is_sent_whole() {
    let docs = team(5, &[0, 2]);
    let (page, older) = newest_pages(&docs, 100);
    assert_eq!(page, docs);
    assert!(older.is_empty());
}

#[test]
fn a_page_before_is_the_oldest_first_run_just_before() {
    let docs = team(12, &[2]);
    let (page, left) = page_before(&docs, "bo", (3, 10), 3);
    let texts: Vec<_> = page.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["line 7", "line 8", "line 9"]);
    assert_eq!(left, 6);
    let (none, left) = page_before(&docs, "nobody", (i64::MAX, u64::MAX), 3);
    assert!(none.is_empty());
    assert_eq!(left, 0);
}

proptest! {
    #[test]
    fn pages_put_back_together_are_the_whole_thread(
        n in 0u64..160,
        spread in proptest::collection::vec(0u8..3, 1..7),
        page in 1usize..40,
    ) {
        let full = team(n, &spread);
        for seat in [1u8, 2] {
            let (held, older) = read_back(&full, seat, page);
            prop_assert_eq!(ids(&thread(&held, seat)), ids(&thread(&full, seat)));
            for owner in seat_thread_owners(&held, seat) {
                prop_assert_eq!(older.get(&owner).copied().unwrap_or(0), 0);
            }
        }
    }
}
