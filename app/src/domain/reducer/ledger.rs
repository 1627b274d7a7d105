//! Counting what identities use, from what their processes report: cost, tokens, turns and
//! tool calls into the identity's ledger and into the Claude session the process lives in.
//!
//! Counting is not idempotent by itself, so the ledger keeps the id of the last event it
//! counted: a replayed event (a second tab, a resumed stream) counts nothing.

use super::super::docs::{claude_session_doc_id, micro_usd, ClaudeSessionDoc, Doc, LedgerDoc};
use super::super::events::{Event, TurnUsage};
use super::super::life::ledger_of;
use super::super::process::ProcessState;
use super::super::Seat;
use super::writes::Writes;

/// What one `agent_process` event reports.
pub(super) struct Report<'a> {
    pub seat: Seat,
    pub state: ProcessState,
    pub reason: Option<&'a str>,
    pub claude_session_id: Option<&'a str>,
    pub cost_usd: Option<f64>,
    pub tool: Option<&'a str>,
    pub usage: Option<TurnUsage>,
}

impl<'a> Report<'a> {
    /// The process in `seat` stopped (the session ended, the agent retired).
    pub fn stopped(seat: Seat, reason: &'a str) -> Self {
        Report {
            seat,
            state: ProcessState::Stopped,
            reason: Some(reason),
            claude_session_id: None,
            cost_usd: None,
            tool: None,
            usage: None,
        }
    }
}

pub(super) fn count(w: &mut Writes, event: &Event, r: Report<'_>) {
    let Some(who) = w.current(r.seat).filter(|d| d.status().is_visible()) else {
        return;
    };
    let id = who.stable_id();
    let existing = ledger_of(w.docs, &id).cloned();
    if existing
        .as_ref()
        .is_some_and(|l| event.id <= l.last_event_id)
    {
        return;
    }
    let before = existing.unwrap_or_else(|| LedgerDoc::new(&id));
    let mut l = before.clone();
    if r.state == ProcessState::Starting {
        l.current_session = None;
        l.process_cost_micro_usd = 0;
    }
    let mut session = session_of(w, &mut l, &r, &id, event);
    if let Some(tool) = r.tool {
        *l.tools.entry(tool.to_string()).or_default() += 1;
    }
    // A process reports its total so far: what it adds is the difference.
    let cost = r.cost_usd.map_or(0, |c| {
        let total = micro_usd(c);
        let added = total.saturating_sub(l.process_cost_micro_usd);
        l.process_cost_micro_usd = l.process_cost_micro_usd.max(total);
        added
    });
    l.cost_micro_usd += cost;
    if cost > 0 {
        spend(&mut l, event.ts, cost);
    }
    if let Some(u) = r.usage {
        l.turns += 1;
        l.input_tokens += u.input_tokens;
        l.output_tokens += u.output_tokens;
    }
    if let Some(s) = session.as_mut() {
        add_to_session(s, &r, cost, event);
    }
    if r.state == ProcessState::Stopped {
        l.current_session = None;
        l.process_cost_micro_usd = 0;
    }
    put_ledger(w, event, l, before, session);
}

/// The Claude session this report counts into: the one a running process says it lives in (a
/// process begins to live there: one more process), else the ledger's current one. Another
/// identity's session (a CLI that reports its parent's id) is never counted in.
fn session_of(
    w: &Writes,
    l: &mut LedgerDoc,
    r: &Report<'_>,
    id: &str,
    event: &Event,
) -> Option<ClaudeSessionDoc> {
    let session_doc = |sid: &str| {
        w.docs
            .get(&claude_session_doc_id(sid))
            .and_then(Doc::as_claude_session)
            .cloned()
    };
    // Only a running process says which session it lives in: the id a process is started
    // with is the one it asks to resume (a fork's is its parent's).
    let said = r
        .claude_session_id
        .filter(|s| !s.is_empty() && r.state != ProcessState::Starting);
    let foreign = said
        .and_then(session_doc)
        .is_some_and(|s| s.identity_id != id);
    if foreign {
        return None;
    }
    if let Some(sid) = said.filter(|sid| l.current_session.as_deref() != Some(*sid)) {
        // The lead resumes its own: the same document, one process more.
        let mut s =
            session_doc(sid).unwrap_or_else(|| ClaudeSessionDoc::new(sid, id, r.seat, event.ts));
        s.processes += 1;
        s.seat = r.seat;
        s.ended_at = None;
        s.end_reason = None;
        l.current_session = Some(sid.to_string());
        return Some(s);
    }
    l.current_session.as_deref().and_then(session_doc)
}

/// What a report adds to its session: cost, a tool call, a turn's tokens; its end.
fn add_to_session(s: &mut ClaudeSessionDoc, r: &Report<'_>, cost: u64, event: &Event) {
    s.cost_micro_usd += cost;
    s.tool_calls += u64::from(r.tool.is_some());
    if let Some(u) = r.usage {
        s.turns += 1;
        s.input_tokens += u.input_tokens;
        s.output_tokens += u.output_tokens;
    }
    if r.state == ProcessState::Stopped {
        s.ended_at = Some(event.ts);
        s.end_reason = r.reason.map(str::to_owned);
    }
}

/// Counts `cost` into the spend of the UTC day and month of `ts` (a new one starts at zero).
fn spend(l: &mut LedgerDoc, ts: crate::domain::Millis, cost: u64) {
    let (day, month) = (
        crate::domain::time::day_key(ts),
        crate::domain::time::month_key(ts),
    );
    if l.spend_day.as_deref() != Some(day.as_str()) {
        l.spend_day = Some(day);
        l.day_micro_usd = 0;
    }
    if l.spend_month.as_deref() != Some(month.as_str()) {
        l.spend_month = Some(month);
        l.month_micro_usd = 0;
    }
    l.day_micro_usd += cost;
    l.month_micro_usd += cost;
}

/// A message in the thread of `who`: one it wrote (`own`), or one to it. Counted as it is
/// written, so the ledger knows a thread's length without the thread in memory.
pub(super) fn count_message(w: &mut Writes, event: &Event, who: &str, own: bool) {
    let existing = ledger_of(w.docs, who).cloned();
    if existing
        .as_ref()
        .is_some_and(|l| event.id <= l.last_event_id)
    {
        return;
    }
    let before = existing.unwrap_or_else(|| LedgerDoc::new(who));
    let mut l = before.clone();
    if own {
        l.messages_sent += 1;
    } else {
        l.messages_received += 1;
    }
    put_ledger(w, event, l, before, None);
}

/// Writes the ledger (and the session) when something was counted.
fn put_ledger(
    w: &mut Writes,
    event: &Event,
    mut l: LedgerDoc,
    before: LedgerDoc,
    session: Option<ClaudeSessionDoc>,
) {
    if l == before {
        return;
    }
    l.last_event_id = event.id;
    w.put(l.id.clone(), Doc::Ledger(l));
    if let Some(s) = session {
        w.put(s.id.clone(), Doc::ClaudeSession(Box::new(s)));
    }
}
