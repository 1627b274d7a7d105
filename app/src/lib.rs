//! The shared crate: compiled natively for the server (feature `ssr`) and to wasm for the
//! browser (feature `hydrate`). The domain core is pure and compiles with neither.

// The view types of the console nest deeply: the release wasm build (`wasm-release`, LTO)
// computes their layouts past the default limit of 128 ("queries overflow the depth limit").
#![recursion_limit = "256"]

pub mod domain;

mod api;
mod app;
pub mod contract;
pub mod functions;
pub mod live;
pub mod ui;

pub use app::{shell, App, SNAPSHOT_ID};
