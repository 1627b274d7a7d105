//! A session's bounds and the seats' births and expiries: the lead's seat at a session's
//! start, every process stopped at its end, newborns' eggs summoned, eggs that never hatched
//! expired.

use super::super::docs::{identity, AgentIdentity};
use super::super::events::{Event, SummonedSeat};
use super::super::process::ProcessState;
use super::super::status::AgentStatus;
use super::super::{Seat, HATCHING_TTL_MS, LEAD_SEAT, SEATS};
use super::ledger;
use super::writes::Writes;

pub(super) fn session_start(w: &mut Writes, event: &Event, lead_name: &Option<String>) {
    let Some(lead_name) = lead_name else { return };
    match identity(w.docs, LEAD_SEAT) {
        Some(d) if d.name.as_deref() == Some(lead_name.as_str()) => {}
        Some(_) => w.update(LEAD_SEAT, |d| d.name = Some(lead_name.clone())),
        None => {
            // The lead sleeps until its process runs: liveness comes from the process.
            let mut d = AgentIdentity::new(LEAD_SEAT, AgentStatus::Sleeping);
            d.name = Some(lead_name.clone());
            d.created_at = Some(event.ts);
            w.put_identity(d);
        }
    }
}

/// `session_end`: every waiting approval cancelled, every process counted stopped, every agent
/// asleep, and the lead's beliefs forgotten.
pub(super) fn session_end(w: &mut Writes, event: &Event) {
    w.cancel_pending(None, event, "the session ended");
    for seat in 0..SEATS {
        ledger::count(w, event, ledger::Report::stopped(seat, "session ended"));
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

/// `agents_summoned`: an egg in each vacant agent seat, in a colour nobody wears.
pub(super) fn summoned(w: &mut Writes, event: &Event, seats: &[SummonedSeat]) {
    for s in seats
        .iter()
        .filter(|s| s.seat != LEAD_SEAT && s.seat < SEATS)
    {
        let vacant = identity(w.docs, s.seat).is_none_or(|d| d.status() == AgentStatus::Expired);
        if !vacant {
            continue;
        }
        let mut d = AgentIdentity::new(s.seat, AgentStatus::Hatching);
        if let Some((color, name)) = free_color(w, s.seat) {
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

/// The seat's colour, unless an identity seated elsewhere or in the Hall wears it (an identity
/// keeps its own wherever it sits): then one nobody has.
fn free_color(w: &Writes, seat: Seat) -> Option<(String, String)> {
    let seated: Vec<String> = (0..SEATS)
        .filter(|&o| o != seat)
        .filter_map(|o| w.current(o))
        .filter(|i| i.status().is_visible())
        .filter_map(|i| i.color)
        .collect();
    let hall: Vec<String> = super::super::docs::hall(w.docs)
        .filter_map(|i| i.color.clone())
        .collect();
    let seated: Vec<&str> = seated.iter().map(String::as_str).collect();
    let hall: Vec<&str> = hall.iter().map(String::as_str).collect();
    super::super::palette::newcomer_color(seat, &seated, &hall)
}

/// `hatching_expired`: an egg that never chose a name, older than the hatching deadline.
pub(super) fn hatching_expired(w: &mut Writes, event: &Event, seats: &[Seat]) {
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
