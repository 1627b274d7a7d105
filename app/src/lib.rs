//! The shared crate: compiled natively for the server (feature `ssr`) and to wasm for the
//! browser (feature `hydrate`). Both turn on `ui`, the views and server functions.
//!
//! - `domain`: the pure core, the state machines and the reducer the server and the browser
//!   both run. No I/O, no clock, no leptos, no tokio: it builds with no feature at all
//!   (`cargo check -p app --no-default-features`, in `make check`), where none of those is a
//!   dependency, and clippy denies the file system, the clock, the environment and processes
//!   inside it (`app/clippy.toml`).
//! - `contract`: the HTTP API's request and answer types, one definition for both sides.
//! - `ui`, `app` (the shell and routes), `home` (which snapshot: now or the past), `console`
//!   (the page drawn from it), `watch` (a spectator's page), `api`, `live`, `functions`
//!   (feature `ui`): the console.

// The view types of the console nest deeply: the release wasm build (`wasm-release`, LTO)
// computes their layouts past the default limit of 128 ("queries overflow the depth limit").
#![recursion_limit = "256"]
// `app/clippy.toml` lists what the pure core may not use; only `domain` denies it.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod contract;
pub mod domain;

#[cfg(feature = "ui")]
mod api;
#[cfg(feature = "ui")]
mod app;
#[cfg(feature = "ui")]
mod console;
#[cfg(feature = "ui")]
pub mod functions;
#[cfg(feature = "ui")]
mod home;
#[cfg(feature = "ui")]
pub mod live;
#[cfg(feature = "ui")]
mod spectator;
#[cfg(feature = "ui")]
pub mod ui;

#[cfg(feature = "ui")]
pub use app::{shell, App};
#[cfg(feature = "ui")]
pub use home::SNAPSHOT_ID;
