//! `apply(docs, event) -> writes`: the one place where events become documents (DESIGN §4).
//!
//! Laws the tests hold it to: applying the same event twice gives the documents of applying it
//! once (two tabs, a replayed stream); no event removes a document; an `expired` seat is never
//! brought back by a status report; a seat only becomes `alive` through `agent_registered` or a
//! live `agent_process` (the lead's `agent_status` is a belief, recorded and never applied).

mod external;
mod governance;
mod hall;
mod knowledge;
mod ledger;
mod message;
mod process;
mod project;
mod quest;
mod review;
mod seat;
mod talk;
mod writes;

use super::docs::{identity, AgentIdentity, Doc, DocWrite, Docs, Problem};
use super::events::{Event, EventKind};
use super::permissions::{permission_id, updates_for, Decision, PermissionDoc, PermissionState};
use super::process::ProcessState;
use super::status::{AgentStatus, LeadBelief};
use super::work_cycle;
use super::{agent_seats, HATCHING_TTL_MS, LEAD_SEAT, SEATS};
use seat::{register, session_start, write_soul, Registration};
use writes::Writes;

/// The documents a log of `kinds` makes, its events numbered from 1 at time 0 (for tests and
/// benchmarks that need a team without a store).
pub fn fold(kinds: impl IntoIterator<Item = EventKind>) -> Docs {
    let mut docs = Docs::new();
    for (i, kind) in kinds.into_iter().enumerate() {
        let e = Event {
            id: i as u64 + 1,
            ts: 0,
            session_id: "s".into(),
            kind,
        };
        let w = apply(&docs, &e);
        super::docs::commit(&mut docs, w);
    }
    docs
}

/// The writes `event` makes to `docs`. Pure: `docs` is not changed.
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn apply(docs: &Docs, event: &Event) -> Vec<DocWrite> {
    let mut w = Writes::new(docs);
    match &event.kind {
        EventKind::SessionStart { lead_name, .. } => session_start(&mut w, event, lead_name),
        EventKind::SessionEnd { .. } => {
            w.cancel_pending(None, event, "the session ended");
            for seat in 0..SEATS {
                ledger::count(
                    &mut w,
                    event,
                    ledger::Report::stopped(seat, "session ended"),
                );
            }
            for seat in 0..SEATS {
                w.update(seat, |d| {
                    if d.status() == AgentStatus::Alive {
                        d.set_status(AgentStatus::Sleeping);
                    }
                    if d.process_state.is_some_and(|p| p != ProcessState::Stopped) {
                        d.process_state = Some(ProcessState::Stopped);
                        d.process_reason = Some("session ended".into());
                    }
                    d.busy_since = None;
                    // A new session starts without the old lead's beliefs.
                    d.lead_belief = None;
                });
            }
        }
        EventKind::AgentsSummoned { seats } => {
            for s in seats
                .iter()
                .filter(|s| s.seat != LEAD_SEAT && s.seat < SEATS)
            {
                let vacant =
                    identity(docs, s.seat).is_none_or(|d| d.status() == AgentStatus::Expired);
                if vacant {
                    let mut d = AgentIdentity::new(s.seat, AgentStatus::Hatching);
                    // The seat's colour, unless a recalled identity elsewhere wears it.
                    // A colour nobody has (an identity keeps its own wherever it sits).
                    let seated: Vec<String> = (0..SEATS)
                        .filter(|&o| o != s.seat)
                        .filter_map(|o| w.current(o))
                        .filter(|i| i.status().is_visible())
                        .filter_map(|i| i.color)
                        .collect();
                    let hall: Vec<String> = super::docs::hall(docs)
                        .filter_map(|i| i.color.clone())
                        .collect();
                    let seated: Vec<&str> = seated.iter().map(String::as_str).collect();
                    let hall: Vec<&str> = hall.iter().map(String::as_str).collect();
                    if let Some((color, name)) =
                        super::palette::newcomer_color(s.seat, &seated, &hall)
                    {
                        d.color = Some(color);
                        d.color_name = Some(name);
                    }
                    d.created_at = Some(event.ts);
                    d.uuid = s.uuid.clone();
                    d.identity_id = s.uuid.clone();
                    d.external = s.secret_hash.is_some();
                    // Empty: an external agent as a spectator's replica knows it (no digest).
                    d.secret_hash = s.secret_hash.clone().filter(|h| !h.is_empty());
                    w.put_identity(d);
                }
            }
        }
        EventKind::AgentRegistered {
            seat,
            name,
            color_name,
            soul,
            claude_session_id,
            inbox,
        } => register(
            &mut w,
            event,
            Registration {
                seat: *seat,
                name,
                color_name,
                soul,
                claude_session_id,
                inbox,
            },
        ),
        // The lead's belief: recorded for each named agent, never applied (DESIGN §1).
        EventKind::AgentStatus { seats } => {
            for seat in agent_seats() {
                let alive = seats.contains(&seat);
                w.update(seat, |d| {
                    if d.has_name() && d.status() != AgentStatus::Expired {
                        d.lead_belief = Some(LeadBelief {
                            alive,
                            at: event.ts,
                        });
                    }
                });
            }
        }
        EventKind::AgentProcess { .. } => process::apply(&mut w, event),
        EventKind::HatchingExpired { seats } => {
            for seat in seats {
                w.update(*seat, |d| {
                    let old = d
                        .created_at
                        .is_none_or(|c| event.ts.saturating_sub(c) >= HATCHING_TTL_MS);
                    if d.status() == AgentStatus::Hatching && !d.has_name() && old {
                        d.set_status(AgentStatus::Expired);
                    }
                });
            }
        }
        EventKind::UserMessage { .. }
        | EventKind::AgentMessage { .. }
        | EventKind::TeamMessage { .. }
        | EventKind::AgentWrote { .. }
        | EventKind::ToolUsed { .. }
        | EventKind::LeadText { .. } => {
            message::apply(&mut w, event);
            talk::count(&mut w, event);
        }
        EventKind::WorkState { seat, state } => w.update(*seat, |d| {
            // Replaying the same report is a no-op, not an invalid `x -> x` transition.
            if d.work_state != Some(*state) {
                if let Ok(next) = work_cycle::transition(d.work_state, *state) {
                    d.work_state = Some(next);
                }
            }
        }),
        EventKind::MarkerError {
            seat: Some(seat),
            line,
            error,
        } => w.update(*seat, |d| {
            let who = d.name.clone().unwrap_or_else(|| "The agent".into());
            d.last_problem = Some(Problem {
                message: super::words::refused(&who, error),
                at: event.ts,
                detail: Some(format!("{line:.200}: {error}")),
            });
        }),
        EventKind::RuntimeError {
            seat: Some(seat),
            message,
        } => w.update(*seat, |d| {
            d.last_problem = Some(Problem {
                message: message.clone(),
                at: event.ts,
                detail: None,
            });
        }),
        EventKind::PermissionRequest {
            seat,
            request_id,
            tool_name,
            input,
            description,
            suggestions,
            tool_use_id,
        } => {
            let id = permission_id(request_id);
            // The first request with an id is the request; a replay writes nothing.
            if *seat < SEATS && docs.get(&id).is_none() {
                let doc = PermissionDoc {
                    id: id.clone(),
                    seat: *seat,
                    request_id: request_id.clone(),
                    tool_name: tool_name.clone(),
                    input: input.clone(),
                    description: description.clone(),
                    suggestions: suggestions.clone(),
                    tool_use_id: tool_use_id.clone(),
                    state: PermissionState::Pending,
                    message: None,
                    decided_by: None,
                    created_at: event.ts,
                    decided_at: None,
                    remembered: Vec::new(),
                    event_id: event.id,
                    identity_id: identity(docs, *seat).map(AgentIdentity::stable_id),
                    rule: None,
                    with: None,
                    routed_why: None,
                    extra: Default::default(),
                };
                w.put(id, Doc::Permission(Box::new(doc)));
            }
        }
        EventKind::PermissionDecision {
            request_id,
            decision,
            message,
            decided_by,
            suggestion,
            rule,
            ..
        } => w.settle(request_id, |p| {
            p.state = match decision {
                Decision::Allow | Decision::AllowAlways => PermissionState::Allowed,
                Decision::Deny => PermissionState::Denied,
            };
            if *decision == Decision::AllowAlways {
                p.remembered = updates_for(p, *suggestion).unwrap_or_default();
            }
            p.message = message.clone();
            p.decided_by = Some(*decided_by);
            p.decided_at = Some(event.ts);
            p.rule = rule.clone();
        }),
        EventKind::PermissionRouted {
            request_id,
            to,
            why,
            ..
        } => w.settle(request_id, |p| {
            // Still pending (settle writes nothing else): only who it waits for changes.
            p.with = Some(*to);
            p.routed_why = why.clone();
        }),
        EventKind::AgentKilled { seat, reason } => hall::retire(&mut w, event, *seat, reason),
        EventKind::AgentRecalled { identity_id, seat } => {
            hall::recall(&mut w, event, identity_id, *seat)
        }
        EventKind::AgentForked {
            seat,
            uuid,
            parent_id,
            fork_message_id,
        } => hall::fork(&mut w, event, *seat, uuid, parent_id, fork_message_id),
        EventKind::VaultSaved {
            identity_id,
            author,
            author_name,
            reason,
            files,
        } => knowledge::vault_saved(
            &mut w,
            event,
            knowledge::Saved {
                identity_id,
                author: *author,
                author_name,
                reason,
                files,
            },
        ),
        EventKind::WorkCommitted {
            seat,
            identity_id,
            sha,
            state,
            summary,
            files,
            by_agent,
        } => knowledge::work_committed(
            &mut w,
            event,
            knowledge::Committed {
                seat: *seat,
                identity_id,
                sha,
                state,
                summary,
                files,
                by_agent: *by_agent,
            },
        ),
        EventKind::AgentImported(agent) => hall::import(&mut w, event, agent),
        EventKind::SoulRevised { seat, text } => {
            if let Some(mut d) = w
                .current(*seat)
                .filter(|d| d.status().is_visible() && d.has_name())
            {
                write_soul(&mut w, event, &mut d, text);
                w.put_identity(d);
            }
        }
        EventKind::QuestStarted { .. }
        | EventKind::QuestPlanned { .. }
        | EventKind::QuestMoved { .. }
        | EventKind::StageJoined { .. }
        | EventKind::StageAgentDone { .. }
        | EventKind::StageEnded { .. }
        | EventKind::FindingPosted { .. }
        | EventKind::FindingMarked { .. }
        | EventKind::ArtifactWritten { .. }
        | EventKind::JobPosted { .. }
        | EventKind::JobClaimed { .. }
        | EventKind::JobDone { .. } => quest::apply(&mut w, event),
        EventKind::ProjectLinked { .. }
        | EventKind::ProjectUnlinked { .. }
        | EventKind::WorktreeMade { .. }
        | EventKind::WorktreeRemade { .. }
        | EventKind::WorktreeChanged { .. }
        | EventKind::ReviewCommented { .. }
        | EventKind::ReviewRequested { .. }
        | EventKind::ChangesRequested { .. }
        | EventKind::BranchApproved { .. }
        | EventKind::MergeMoved { .. }
        | EventKind::FilesClaimed { .. } => project::apply(&mut w, event),
        EventKind::InviteMade { .. }
        | EventKind::InviteUsed { .. }
        | EventKind::SecretRotated { .. }
        | EventKind::WatchMade { .. }
        | EventKind::WatchRevoked { .. } => external::apply(&mut w, event),
        EventKind::RuleAdded { .. }
        | EventKind::RuleRemoved { .. }
        | EventKind::BudgetSet { .. }
        | EventKind::BudgetCrossed { .. } => governance::apply(&mut w, event),
        EventKind::MarkerError { seat: None, .. }
        | EventKind::RuntimeError { seat: None, .. }
        | EventKind::Unknown => {}
    }
    w.finish()
}
