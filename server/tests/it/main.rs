//! The server's integration tests (tiers 1 and 2): one test binary, a module per concern, so the
//! server and `common` are compiled and linked once (docs/TESTING.md). The real-CLI tier is
//! the other binary, `tests/real_cli/`.
//!
//! - `router`: the router driven with `oneshot` (pages, errors, access, headers, heavy reads,
//!   the accept loop, startup settings).
//! - The runtime against `soulgrid-sim`: `runtime`, `agent_life`, `lifecycle`, `one_process`,
//!   `stops`, `belief`, `names`, `hall`, `permissions`, `provenance`, `knowledge`, `quests`,
//!   `state_file`.
//! - Mail: `mail_runtime`, `mail_delivery`, `mailbox`, `mailbox_lock`, `inbox_scale`.
//! - From stdout lines to events: `protocol`, `turn`, `turn_control`, `turn_names`.
//! - The store and what reads it: `store_sync`, `store_faults`, `follow`, `restart`, `threads`, `sse`,
//!   `time_travel`, `portable`.
//! - `fuzz`: arbitrary input at every edge.

#[path = "../common/mod.rs"]
mod common;

/// Tests that render a page through the router run one at a time: the 404 page, rendered by
/// leptos_axum while another test's Tokio runtime renders concurrently, hung about one run in
/// sixty (each `#[tokio::test]` has its own runtime; the real server has one). Serialising them
/// costs nothing: they take ms.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod agent_life;
mod backup;
mod belief;
mod budgets;
mod channel;
mod database_gone;
mod external;
mod failover;
mod follow;
mod follower;
mod fuzz;
mod hall;
mod inbox_files;
mod inbox_scale;
mod knowledge;
mod lead_first;
mod lifecycle;
mod mail_delivery;
mod mail_runtime;
mod mailbox;
mod mailbox_lock;
mod names;
mod one_process;
mod page_snapshot;
mod permissions;
mod portable;
mod portable_pg;
mod projects;
mod protocol;
mod provenance;
mod quests;
mod relay;
mod replicas;
mod restart;
mod rooms;
mod router;
mod rules;
mod runtime;
mod sandbox;
mod shutdown;
mod soul_bundle;
mod sse;
mod state_file;
mod stops;
mod store_contract;
mod store_faults;
mod store_sync;
mod threads;
mod time_travel;
mod tool_calls;
mod tools;
mod turn;
mod turn_control;
mod turn_names;
mod watch;
mod webhooks;
mod work_cycle;
