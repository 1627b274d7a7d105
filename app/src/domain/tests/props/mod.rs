//! The reducer laws, on random event sequences (drawn in `gen`).

use super::super::docs::permissions;
use super::super::docs::{commit, identities, Doc, Docs};
use super::super::events::{Event, EventKind};
use super::super::permissions::PermissionState;
use super::super::reducer::apply;
use super::super::status::AgentStatus;
use super::super::Seat;
use proptest::prelude::*;
use std::collections::BTreeMap;

mod gen;
pub(super) use gen::log;

pub(super) fn replay(from: &Docs, events: &[Event]) -> Docs {
    let mut docs = from.clone();
    for e in events {
        let w = apply(&docs, e);
        commit(&mut docs, w);
    }
    docs
}

fn statuses(docs: &Docs) -> BTreeMap<Seat, AgentStatus> {
    identities(docs)
        .map(|d| (d.grid_position, d.status()))
        .collect()
}

/// Serializes documents as the store and the SSR snapshot do, and reads them back.
pub(super) fn through_json(docs: &Docs) -> Docs {
    serde_json::from_str(&serde_json::to_string(docs).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The store applies each event of a batch against the documents so far, but publishes
    /// the batch's writes to the shared documents in one `commit`: both must agree, whatever
    /// the batches (several writes to one document in a batch: the last one counts).
    #[test]
    fn a_batch_of_writes_committed_at_once_equals_committing_them_event_by_event(
        events in log(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut ends: Vec<usize> = cuts.iter().map(|c| c.index(events.len() + 1)).collect();
        ends.push(events.len());
        ends.sort_unstable();
        let (mut working, mut shared, mut start) = (Docs::new(), Docs::new(), 0);
        for end in ends {
            let mut batch = Vec::new();
            for e in &events[start..end] {
                let w = apply(&working, e);
                commit(&mut working, w.clone());
                batch.extend(w);
            }
            commit(&mut shared, batch);
            start = end;
        }
        prop_assert_eq!(shared, replay(&Docs::new(), &events));
    }

    /// Every event is read back from the JSON the log writes as the event it was.
    #[test]
    fn every_event_reads_back_as_itself(events in log()) {
        for e in &events {
            let text = serde_json::to_string(e).unwrap();
            prop_assert_eq!(&serde_json::from_str::<Event>(&text).unwrap(), e, "{}", text);
        }
    }

    #[test]
    fn snapshot_at_any_prefix_plus_suffix_equals_full_replay(events in log(), cut in any::<prop::sample::Index>()) {
        let at = cut.index(events.len() + 1);
        let snapshot = through_json(&replay(&Docs::new(), &events[..at]));
        prop_assert_eq!(replay(&snapshot, &events[at..]), replay(&Docs::new(), &events));
    }

    #[test]
    fn every_event_is_idempotent_and_duplicates_converge(events in log(), dup in prop::collection::vec(any::<bool>(), 40)) {
        let mut once = Docs::new();
        let mut tab = Docs::new();
        for (i, e) in events.iter().enumerate() {
            let w = apply(&once, e);
            commit(&mut once, w);
            // A second delivery of the same event writes nothing new.
            prop_assert!(apply(&once, e).is_empty(), "event {:?} is not idempotent", e.kind);
            let times = if dup[i % dup.len()] { 2 } else { 1 };
            for _ in 0..times {
                let w = apply(&tab, e);
                commit(&mut tab, w);
            }
        }
        prop_assert_eq!(once, tab);
    }

    #[test]
    fn no_event_removes_a_document(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let before: Vec<String> = docs.keys().cloned().collect();
            let w = apply(&docs, e);
            commit(&mut docs, w);
            for id in before {
                prop_assert!(docs.contains_key(&id));
            }
        }
    }

    #[test]
    fn alive_only_through_register_or_a_live_process(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let before = statuses(&docs);
            let w = apply(&docs, e);
            commit(&mut docs, w);
            for (seat, status) in statuses(&docs) {
                let became_alive = status == AgentStatus::Alive && before.get(&seat) != Some(&AgentStatus::Alive);
                if became_alive {
                    let allowed = match &e.kind {
                        EventKind::AgentRegistered { .. } => true,
                        EventKind::AgentProcess { state, .. } => state.is_live(),
                        _ => false,
                    };
                    prop_assert!(allowed, "seat {} became alive through {:?}", seat, e.kind);
                }
            }
        }
    }

    #[test]
    fn no_two_seated_agents_share_a_name_or_an_inbox(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let w = apply(&docs, e);
            commit(&mut docs, w);
            let seated: Vec<_> = super::super::docs::identities(&docs)
                .filter(|d| d.status().is_visible() && d.has_name())
                .collect();
            for (i, a) in seated.iter().enumerate() {
                for b in &seated[i + 1..] {
                    prop_assert_ne!(a.name.as_deref().map(str::to_lowercase), b.name.as_deref().map(str::to_lowercase));
                    prop_assert!(a.inbox().is_none() || a.inbox() != b.inbox());
                }
            }
        }
    }

    #[test]
    fn an_identity_is_seated_once_or_in_the_hall_never_both(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let w = apply(&docs, e);
            commit(&mut docs, w);
            let seated: Vec<String> = super::super::docs::identities(&docs)
                .filter(|d| d.status().is_visible())
                .map(|d| d.stable_id())
                .collect();
            let mut unique = seated.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), seated.len(), "seated once: {:?}", seated);
            for h in super::super::docs::hall(&docs) {
                prop_assert!(!seated.contains(&h.stable_id()), "{} seated and in the Hall", h.stable_id());
            }
        }
    }

    #[test]
    fn lineage_is_acyclic(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let w = apply(&docs, e);
            commit(&mut docs, w);
        }
        let all: Vec<_> = super::super::docs::identities(&docs)
            .chain(super::super::docs::hall(&docs))
            .collect();
        let parent_of = |id: &str| {
            all.iter()
                .find(|d| d.stable_id() == id)
                .and_then(|d| d.parent_uuid.clone())
        };
        for d in &all {
            let mut seen = vec![d.stable_id()];
            let mut at = d.parent_uuid.clone();
            while let Some(p) = at {
                prop_assert!(!seen.contains(&p), "a cycle through {:?}", seen);
                seen.push(p.clone());
                at = parent_of(&p);
            }
        }
    }

    #[test]
    fn the_leads_belief_changes_no_seats_status(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let before = statuses(&docs);
            let w = apply(&docs, e);
            commit(&mut docs, w);
            if matches!(e.kind, EventKind::AgentStatus { .. }) {
                prop_assert_eq!(statuses(&docs), before);
            }
        }
    }

    #[test]
    fn expired_seats_stay_expired_until_a_summon_a_recall_or_a_fork_fills_them(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let before = statuses(&docs);
            let w = apply(&docs, e);
            commit(&mut docs, w);
            if matches!(e.kind, EventKind::AgentsSummoned { .. } | EventKind::AgentRecalled { .. } | EventKind::AgentForked { .. }) {
                continue;
            }
            for (seat, status) in statuses(&docs) {
                if before.get(&seat) == Some(&AgentStatus::Expired) {
                    prop_assert_eq!(status, AgentStatus::Expired, "seat {} resurrected by {:?}", seat, e.kind);
                }
            }
        }
    }

    #[test]
    fn a_settled_permission_request_never_changes(events in log()) {
        let mut docs = Docs::new();
        for e in &events {
            let settled: Vec<_> = permissions(&docs).filter(|p| !p.is_pending()).cloned().collect();
            let w = apply(&docs, e);
            commit(&mut docs, w);
            for p in settled {
                prop_assert_eq!(docs.get(&p.id).and_then(Doc::as_permission), Some(&p));
            }
            for p in permissions(&docs) {
                prop_assert!(p.state == PermissionState::Pending || p.decided_at.is_some());
            }
        }
    }

    #[test]
    fn a_named_seat_never_expires(events in log()) {
        let docs = replay(&Docs::new(), &events);
        for d in identities(&docs) {
            if d.status() == AgentStatus::Expired {
                prop_assert!(!d.has_name());
            }
        }
        for doc in docs.values() {
            prop_assert!(!matches!(doc, Doc::Other(_)));
        }
    }
}
