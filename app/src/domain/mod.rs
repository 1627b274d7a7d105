//! The pure core of Soulgrid: documents, events, the reducer and every rule of the agent
//! lifecycle that needs no I/O. The server and the browser both run this code, so the grid a tab
//! shows is computed exactly as the server's store computes it.
//!
//! Nothing in here may touch the clock, the disk, the network or a framework: time and ids arrive
//! inside events, which keeps every function deterministic and property-testable. The compiler
//! holds it to that: `cargo check -p app --no-default-features` builds this without leptos or
//! tokio among the dependencies, and clippy denies here what `app/clippy.toml` lists (the file
//! system, the clock, the environment, threads, processes, the network).

#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod budget;
pub mod buttons;
pub mod channel;
pub mod diff;
pub mod docs;
pub mod escalation;
pub mod events;
mod fields;
pub mod imported;
pub mod knowledge;
pub mod life;
pub mod mail;
pub mod markdown;
pub mod markers;
pub mod moment;
pub mod names;
pub mod palette;
pub mod permissions;
pub mod process;
pub mod projects;
pub mod provenance;
pub mod quest;
pub mod reducer;
pub mod rules;
pub mod spectate;
pub mod state_file;
pub mod status;
pub mod talk;
pub mod thread_items;
pub mod time;
pub mod tool_lines;
pub mod tools;
pub mod wake;
pub mod words;
pub mod work_cycle;

#[cfg(test)]
mod tests;

/// Milliseconds since the Unix epoch; every timestamp in documents and events uses it.
pub type Millis = i64;

/// A grid position, 0–8. Position 4 is the lead.
pub type Seat = u8;

/// The lead's seat in the centre of the 3×3 grid.
pub const LEAD_SEAT: Seat = 4;

/// Number of seats in the grid.
pub const SEATS: Seat = 9;

/// A nameless hatching seat older than this becomes `expired`.
pub const HATCHING_TTL_MS: Millis = 5 * 60 * 1000;

/// The eight agent seats around the lead, in grid order.
pub fn agent_seats() -> impl Iterator<Item = Seat> {
    (0..SEATS).filter(|s| *s != LEAD_SEAT)
}
