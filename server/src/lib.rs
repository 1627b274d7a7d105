//! The Soulgrid server: axum + leptos_axum, one folder per edge.

pub mod config;
pub mod error;
pub mod http;
pub mod memory;
pub mod state;

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, for event timestamps.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
