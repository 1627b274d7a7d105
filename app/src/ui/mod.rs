//! Components of the console.

pub mod action;
pub mod agent_page;
pub mod approvals;
pub mod budgets;
pub mod cell;
pub mod composer;
pub mod detail;
pub mod diff;
pub mod drafts;
pub mod external;
pub mod face;
pub mod findings;
pub mod grid;
pub mod hall;
pub mod older;
pub mod permission;
pub mod presence;
pub mod projects;
pub mod quest;
pub mod seat_menu;
pub mod talk;
pub mod team;
pub mod thread;
pub mod time_travel;
pub mod watch_links;
pub mod when;
