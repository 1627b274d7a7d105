//! The shared crate: compiled natively for the server (feature `ssr`) and to wasm for the
//! browser (feature `hydrate`). The domain core is pure and compiles with neither.

pub mod domain;

mod api;
mod app;
pub mod contract;
pub mod functions;
pub mod live;
pub mod ui;

pub use app::{shell, App};
