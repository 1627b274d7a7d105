//! A button's POST to the API, as components hold it: whether it is under way, and what the
//! server said went wrong. What it changed arrives through the live stream.

use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct Action {
    pub busy: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
}

impl Action {
    pub fn new() -> Self {
        Action {
            busy: RwSignal::new(false),
            error: RwSignal::new(None),
        }
    }

    /// POSTs `body` to `path`; busy until the answer, and the server's error kept if any.
    pub fn post(self, path: String, body: serde_json::Value) {
        self.busy.set(true);
        self.error.set(None);
        leptos::task::spawn_local(async move {
            let done: Result<serde_json::Value, String> = crate::api::post(&path, &body).await;
            if let Err(e) = done {
                self.error.set(Some(e));
            }
            self.busy.set(false);
        });
    }
}

impl Default for Action {
    fn default() -> Self {
        Self::new()
    }
}
