//! The random event sequences the reducer laws are checked on: every kind of event, with
//! seats, names, identities and projects drawn so that they meet.

use super::super::super::docs::{Author, MergeState};
use super::super::super::events::{Event, EventKind, SummonedSeat, TurnUsage};
use super::super::super::permissions::{Decider, Decision};
use super::super::super::process::ProcessState;
use super::super::super::work_cycle::WorkState;
use super::super::super::{Seat, HATCHING_TTL_MS};
use proptest::prelude::*;

fn seat() -> impl Strategy<Value = Seat> {
    0u8..9
}

fn seats() -> impl Strategy<Value = Vec<Seat>> {
    prop::collection::vec(seat(), 0..5)
}

#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
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
                base_overlaps: Vec::new(),
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
pub(crate) fn log() -> impl Strategy<Value = Vec<Event>> {
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
