//! What every handler can reach.

use std::sync::Arc;

use app::functions::SnapshotSource;
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;

#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub snapshots: Arc<dyn SnapshotSource>,
    pub claude_label: &'static str,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
