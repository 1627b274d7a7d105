//! `agent_process`: what the server observed of a Claude process. Only a transition of the
//! process machine (or the same state again, an update of what it is doing) is applied; the
//! seat is alive while its process runs and sleeps once it stops; the ledger counts what it
//! used; permission requests end with their turn.

use super::super::docs::{identity, AgentIdentity, Note, Problem, NOTES_KEPT};
use super::super::events::{Event, EventKind};
use super::super::process::{can_transition, ProcessState};
use super::super::status::AgentStatus;
use super::ledger;
use super::seat::mark_alive;
use super::writes::Writes;

/// What the server observed of a process: the machine's next state (an impossible transition
/// said on the seat instead), counted in the ledger, with a note in the thread where the human
/// should read of it.
pub(super) fn apply(w: &mut Writes, event: &Event) {
    let EventKind::AgentProcess {
        seat,
        state,
        reason,
        claude_session_id,
        context_tokens,
        cost_usd,
        tool,
        usage,
    } = &event.kind
    else {
        return;
    };
    let docs = w.docs;

    // The same state again says what the process is doing now; anything else must be
    // a transition of the machine, or it is said on the seat and not applied.
    let from = identity(docs, *seat).map(|d| d.process_state);
    if let Some(from) = from.filter(|f| *f != Some(*state) && !can_transition(*f, *state)) {
        let from = from.map_or("no process", ProcessState::as_str);
        w.update(*seat, |d| {
            d.last_problem = Some(Problem {
                message: format!(
                    "impossible process transition {from} → {} (ignored)",
                    state.as_str()
                ),
                at: event.ts,
                detail: None,
            });
        });
        return;
    }
    ledger::count(
        w,
        event,
        ledger::Report {
            seat: *seat,
            state: *state,
            reason: reason.as_deref(),
            claude_session_id: claude_session_id.as_deref(),
            cost_usd: *cost_usd,
            tool: tool.as_deref(),
            usage: *usage,
        },
    );
    // A request holds its turn: once the turn is over (interrupted) or the process is
    // gone, nobody can answer it any more.
    match state {
        ProcessState::Stopped => {
            w.cancel_pending(Some(*seat), event, "the agent's process stopped")
        }
        ProcessState::Idle => {
            w.cancel_pending(Some(*seat), event, "the turn ended without an answer")
        }
        _ => {}
    }
    w.update(*seat, |d| {
        // A turn's start is kept while it runs (a tool used meanwhile changes nothing).
        d.busy_since = match (*state, d.process_state) {
            (ProcessState::Running, Some(ProcessState::Running)) => d.busy_since.or(Some(event.ts)),
            (ProcessState::Running, _) => Some(event.ts),
            _ => None,
        };
        d.process_state = Some(*state);
        d.process_reason = reason.clone();
        if let Some(id) = claude_session_id {
            d.claude_session_id = Some(id.clone());
        }
        if context_tokens.is_some() {
            d.context_tokens = *context_tokens;
        }
        if cost_usd.is_some() {
            d.cost_usd = *cost_usd;
        }
        if let Some(text) = note_of(d, *state, reason.as_deref()) {
            note(d, text, event);
        }
        match (*state, d.status()) {
            // A fresh process starts a fresh work cycle.
            (ProcessState::Starting, _) => d.work_state = None,
            (_, AgentStatus::Expired) => {}
            (_, AgentStatus::Hatching) if !d.has_name() => {}
            (s, _) if s.is_live() => mark_alive(d, event),
            (ProcessState::Stopped, AgentStatus::Alive) => d.set_status(AgentStatus::Sleeping),
            _ => {}
        }
    })
}

/// What the human reads in the thread of a process's change: it woke, its turn was
/// interrupted, it crashed (and how).
fn note_of(d: &AgentIdentity, state: ProcessState, reason: Option<&str>) -> Option<String> {
    let name = d.name.clone().unwrap_or_else(|| "The agent".into());
    match (state, reason) {
        (ProcessState::Starting, None) if d.status() == AgentStatus::Sleeping => {
            Some(format!("{name} is waking up."))
        }
        (ProcessState::Idle, Some("interrupted")) => {
            Some(format!("{name}'s turn was interrupted."))
        }
        (ProcessState::Stopped, Some(why)) if super::super::words::crashed(why) => {
            // "crashed with exit code 3" reads on from the name; "could not start …" after a
            // colon.
            Some(match why.strip_prefix("crashed") {
                Some(rest) => format!("{name} crashed{rest}."),
                None => format!("{name} crashed: {why}."),
            })
        }
        _ => None,
    }
}

/// A note in `d`'s thread, once per event (a replayed event notes nothing again), the newest
/// [`NOTES_KEPT`] kept.
fn note(d: &mut AgentIdentity, text: String, event: &Event) {
    if d.notes.iter().any(|n| n.event_id == event.id) {
        return;
    }
    d.notes.push(Note {
        text,
        at: event.ts,
        event_id: event.id,
    });
    let over = d.notes.len().saturating_sub(NOTES_KEPT);
    d.notes.drain(..over);
}
