//! `team`'s answer, and seats as an agent numbers them: 1-9, row by row, the lead's 5 (the
//! console's seats are 0-8).

use crate::domain::docs::{hall, identities, identity, Docs};
use crate::domain::words::state_word;
use crate::domain::{Seat, LEAD_SEAT, SEATS};

/// A seat as an agent numbers it (1-9).
pub fn seat_number(seat: Seat) -> u8 {
    seat + 1
}

/// The agent seat an agent numbered `n`, or why it is none (one sentence).
pub fn seat_from_number(n: u8) -> Result<Seat, String> {
    match n.checked_sub(1) {
        Some(seat) if seat == LEAD_SEAT => Err(format!(
            "seat {n} is the lead's: the agents' seats are 1-4 and 6-9"
        )),
        Some(seat) if seat < SEATS => Ok(seat),
        _ => Err(format!(
            "there is no seat {n}: the agents' seats are 1-4 and 6-9"
        )),
    }
}

/// `team`'s answer: each seat's agent and its state in the console's words, and the Hall.
pub fn team(docs: &Docs) -> String {
    let mut lines: Vec<String> = identities(docs)
        .filter(|i| i.status().is_visible())
        .map(|i| {
            let name = i.name.clone().unwrap_or_else(|| "(choosing a name)".into());
            let role = match i.grid_position == LEAD_SEAT {
                true => ", the lead",
                false => "",
            };
            let word = state_word(i);
            let state = i
                .work_state
                .map(|w| format!(", work state {}", w.as_str()))
                .unwrap_or_default();
            format!(
                "- seat {}: {name}{role}: {word}{state}",
                seat_number(i.grid_position)
            )
        })
        .collect();
    let empty: Vec<String> = crate::domain::agent_seats()
        .filter(|s| identity(docs, *s).is_none_or(|i| !i.status().is_visible()))
        .map(|s| seat_number(s).to_string())
        .collect();
    lines.push(match empty.is_empty() {
        true => "Empty seats: none.".to_string(),
        false => format!("Empty seats: {}.", empty.join(", ")),
    });
    let retired: Vec<String> = hall(docs).filter_map(|i| i.name.clone()).collect();
    lines.push(match retired.is_empty() {
        true => "In the Hall: nobody.".to_string(),
        false => format!("In the Hall: {}.", retired.join(", ")),
    });
    lines.join("\n")
}
