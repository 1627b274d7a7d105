//! The reducer laws, on random event sequences.

use super::super::docs::permissions;
use super::super::docs::{commit, identities, Author, Doc, Docs, MergeState};
use super::super::events::{Event, EventKind, SummonedSeat, TurnUsage};
use super::super::permissions::{Decider, Decision, PermissionState};
use super::super::process::ProcessState;
use super::super::reducer::apply;
use super::super::status::AgentStatus;
use super::super::work_cycle::WorkState;
use super::super::{Seat, HATCHING_TTL_MS};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn seat() -> impl Strategy<Value = Seat> {
    0u8..9
}

fn seats() -> impl Strategy<Value = Vec<Seat>> {
    prop::collection::vec(seat(), 0..5)
}

fn kind() -> impl Strategy<Value = EventKind> {
    let name = prop::sample::select(vec!["Lyra", "Kael", "Wren", "lyra", " "]);
    let soul = prop::option::of(prop::sample::select(vec!["s1", "s2", "s3"]));
    let state = prop::sample::select(vec![
        ProcessState::Starting,
        ProcessState::Running,
        ProcessState::Idle,
        ProcessState::Stopped,
    ]);
    prop_oneof![
        Just(EventKind::SessionStart {
            lead_name: Some("Julian".into()),
            human_name: None
        }),
        Just(EventKind::SessionEnd { reason: None }),
        seats().prop_map(|s| EventKind::AgentsSummoned {
            seats: s
                .into_iter()
                .map(|seat| SummonedSeat {
                    seat,
                    uuid: None,
                    secret_hash: None
                })
                .collect()
        }),
        (seat(), name, soul).prop_map(|(seat, name, soul)| EventKind::AgentRegistered {
            seat,
            name: name.into(),
            color_name: None,
            soul: soul.map(Into::into),
            claude_session_id: None,
            inbox: None,
        }),
        seats().prop_map(|seats| EventKind::AgentStatus { seats }),
        (
            seat(),
            state,
            prop::option::of(0u64..3),
            prop::option::of(prop::sample::select(vec!["c1", "c2"])),
            prop::option::of(prop::sample::select(vec!["Bash", "Read"])),
        )
            .prop_map(|(seat, state, tokens, session, tool)| {
                EventKind::AgentProcess {
                    seat,
                    state,
                    reason: None,
                    claude_session_id: session.map(Into::into),
                    context_tokens: tokens,
                    cost_usd: tokens.map(|t| t as f64 / 100.0),
                    tool: tool.map(Into::into),
                    usage: tokens.map(|t| TurnUsage {
                        input_tokens: t * 100,
                        output_tokens: t,
                    }),
                }
            }),
        seats().prop_map(|seats| EventKind::HatchingExpired { seats }),
        (
            0usize..4,
            prop::sample::select(vec!["a", "b"]),
            any::<bool>()
        )
            .prop_map(|(who, text, human)| EventKind::VaultSaved {
                // An index into the identities so far (the log names one of them).
                identity_id: format!("vault-{who}"),
                author: if human { Author::Human } else { Author::Agent },
                author_name: None,
                reason: None,
                files: [("insights.md".to_string(), text.to_string())].into(),
            }),
        (seat(), prop::sample::select(vec!["s1", "s4"])).prop_map(|(seat, text)| {
            EventKind::SoulRevised {
                seat,
                text: text.into(),
            }
        }),
        (seat(), 0u8..4).prop_map(|(seat, m)| EventKind::UserMessage {
            message_id: format!("m{m}"),
            speaker_name: "H".into(),
            seat,
            text: format!("t{m}"),
            target_agent: None,
        }),
        (prop::option::of(seat()), 0u8..4).prop_map(|(seat, m)| EventKind::TeamMessage {
            message_id: format!("c{m}"),
            seat,
            speaker_name: "H".into(),
            text: format!("@all c{m}"),
            mentioned: seat.into_iter().collect(),
        }),
        (seat(), seat(), 0u8..4).prop_map(|(from_seat, to_seat, m)| EventKind::AgentWrote {
            message_id: format!("w{m}"),
            from_seat,
            to_seat,
            speaker_name: "A".into(),
            to_name: "B".into(),
            text: format!("w{m}"),
        }),
        (seat(), prop::sample::select(WorkState::ALL.to_vec()))
            .prop_map(|(seat, state)| EventKind::WorkState { seat, state }),
        (seat(), 0u8..3).prop_map(|(seat, n)| EventKind::RuntimeError {
            seat: Some(seat),
            message: format!("e{n}")
        }),
        (seat(), 0u8..3).prop_map(|(seat, r)| EventKind::PermissionRequest {
            seat,
            request_id: format!("r{r}"),
            tool_name: "Bash".into(),
            input: serde_json::json!({"command": format!("echo {r}")}),
            description: None,
            suggestions: Some(serde_json::json!([{"type": "setMode", "mode": "acceptEdits"}])),
            tool_use_id: None,
        }),
        (
            seat(),
            0u8..3,
            prop::sample::select(vec![Decision::Allow, Decision::AllowAlways, Decision::Deny]),
            prop::option::of(0usize..2)
        )
            .prop_map(
                |(seat, r, decision, suggestion)| EventKind::PermissionDecision {
                    seat,
                    request_id: format!("r{r}"),
                    decision,
                    message: (decision == Decision::Deny).then(|| "no".into()),
                    decided_by: Decider::Human,
                    suggestion,
                    rule: None,
                }
            ),
        Just(EventKind::Unknown),
        (prop::option::of(0u8..3), prop::option::of(1u64..9)).prop_map(|(who, day)| {
            EventKind::BudgetSet {
                agent: who.map(|w| format!("id-{w}")),
                per_day_micro_usd: day.map(|d| d * 1_000_000),
                per_month_micro_usd: None,
            }
        }),
        (prop::option::of(seat()), any::<bool>()).prop_map(|(seat, reached)| {
            EventKind::BudgetCrossed {
                agent: seat.map(|_| "id-0".to_string()),
                seat,
                told: "day:2026-11-27:near".into(),
                words: "its daily budget".into(),
                reached,
            }
        }),
        (seat(), 0u8..3, any::<bool>()).prop_map(|(seat, r, lead)| EventKind::PermissionRouted {
            seat,
            request_id: format!("r{r}"),
            to: if lead {
                crate::domain::escalation::Approver::Lead
            } else {
                crate::domain::escalation::Approver::Human
            },
            why: (!lead).then(|| "kept".into()),
        }),
        (
            0u8..9,
            prop::sample::select(vec!["Bash(cargo test:*)", "Read", "Bash(", "Edit(src/**)"])
        )
            .prop_map(|(who, rule)| EventKind::RuleAdded {
                identity_id: who.to_string(),
                rule: rule.into(),
                by: "human".into(),
                n: None,
            }),
        (0u8..9, 1u32..4).prop_map(|(who, n)| EventKind::RuleRemoved {
            identity_id: who.to_string(),
            n,
            by: "human".into(),
        }),
        seat().prop_map(|seat| EventKind::AgentKilled { seat, reason: None }),
        // Which of the identities summoned so far: `log` picks it.
        (0u8..9, seat()).prop_map(|(who, seat)| EventKind::AgentRecalled {
            identity_id: who.to_string(),
            seat
        }),
        (0u8..9, seat()).prop_map(|(who, seat)| EventKind::AgentForked {
            seat,
            uuid: String::new(),
            parent_id: who.to_string(),
            fork_message_id: None,
        }),
        project_kind(),
    ]
}

/// Projects and worktrees: two projects, linked and unlinked; worktrees of the identities so
/// far (`log` picks which), made and made again.
fn project_kind() -> impl Strategy<Value = EventKind> {
    let project = prop::sample::select(vec!["p1", "p2"]);
    prop_oneof![
        (
            project.clone(),
            prop::sample::select(vec!["web", "Web", "api"])
        )
            .prop_map(|(p, name)| EventKind::ProjectLinked {
                project_id: p.into(),
                name: name.into(),
                path: format!("/repos/{p}"),
                base: "main".into(),
                check: None,
            }),
        project.clone().prop_map(|p| EventKind::ProjectUnlinked {
            project_id: p.into()
        }),
        (project.clone(), 0u8..9).prop_map(|(p, who)| EventKind::WorktreeMade {
            project_id: p.into(),
            identity_id: who.to_string(),
            agent: "Lyra".into(),
            branch: "soulgrid/lyra".into(),
            path: format!("/data/worktrees/{who}/{p}"),
            started_from: "c0ffee".into(),
            parent_branch: None,
        }),
        (
            project.clone(),
            0u8..9,
            prop::sample::select(vec!["h1", "h2"])
        )
            .prop_map(|(p, who, head)| EventKind::WorktreeChanged {
                project_id: p.into(),
                identity_id: who.to_string(),
                head: head.into(),
                changed: vec!["a".into()],
                uncommitted: Vec::new(),
                changed_count: 1,
                ahead: 1,
            }),
        (
            project.clone(),
            0u8..9,
            prop::sample::select(vec!["h1", "h2"])
        )
            .prop_map(|(p, who, head)| EventKind::BranchApproved {
                project_id: p.into(),
                identity_id: who.to_string(),
                head: head.into(),
                base_head: None,
            }),
        (
            project.clone(),
            0u8..9,
            prop::sample::select(vec![
                MergeState::Queued,
                MergeState::Checking,
                MergeState::Merged,
                MergeState::Refused
            ])
        )
            .prop_map(|(p, who, state)| EventKind::MergeMoved {
                project_id: p.into(),
                identity_id: who.to_string(),
                state,
                strategy: None,
                commit: None,
                why: None,
                files: Vec::new(),
                output: None,
                exit: None,
            }),
        (project, 0u8..9).prop_map(|(p, who)| EventKind::WorktreeRemade {
            project_id: p.into(),
            identity_id: who.to_string(),
            head: "c0ffee".into(),
            why: "was removed".into(),
            path: (who % 2 == 0).then(|| format!("/elsewhere/{who}")),
        }),
    ]
}

/// A log: ids 1.., timestamps that advance by up to three minutes, two server sessions.
pub(super) fn log() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec(
        (kind(), 0i64..(HATCHING_TTL_MS / 100 * 60), any::<bool>()),
        0..40,
    )
    .prop_map(|v| {
        let mut ts = 0;
        // Every summoned egg gets an identity id of its own, as the runtime gives it; a recall
        // names one of them.
        let mut ids: Vec<String> = Vec::new();
        v.into_iter()
            .enumerate()
            .map(|(i, (mut kind, dt, second))| {
                match &mut kind {
                    EventKind::AgentsSummoned { seats } => {
                        for s in seats.iter_mut() {
                            let id = format!("id-{i}-{}", s.seat);
                            ids.push(id.clone());
                            s.uuid = Some(id);
                        }
                    }
                    EventKind::VaultSaved { identity_id, .. } => {
                        let who: usize = identity_id
                            .trim_start_matches("vault-")
                            .parse()
                            .unwrap_or(0);
                        *identity_id = ids.get(who % ids.len().max(1)).cloned().unwrap_or_default();
                    }
                    EventKind::AgentRecalled { identity_id, .. }
                    | EventKind::WorktreeMade { identity_id, .. }
                    | EventKind::WorktreeChanged { identity_id, .. }
                    | EventKind::BranchApproved { identity_id, .. }
                    | EventKind::MergeMoved { identity_id, .. }
                    | EventKind::RuleAdded { identity_id, .. }
                    | EventKind::RuleRemoved { identity_id, .. }
                    | EventKind::WorktreeRemade { identity_id, .. } => {
                        let who: usize = identity_id.parse().unwrap_or(0);
                        *identity_id = ids.get(who % ids.len().max(1)).cloned().unwrap_or_default();
                    }
                    EventKind::AgentForked {
                        seat,
                        uuid,
                        parent_id,
                        ..
                    } => {
                        let who: usize = parent_id.parse().unwrap_or(0);
                        *parent_id = ids.get(who % ids.len().max(1)).cloned().unwrap_or_default();
                        *uuid = format!("id-{i}-{seat}");
                        ids.push(uuid.clone());
                    }
                    _ => {}
                }
                ts += dt;
                Event {
                    id: i as u64 + 1,
                    ts,
                    session_id: if second { "B" } else { "A" }.into(),
                    kind,
                }
            })
            .collect()
    })
}

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
