//! A button's work, as components hold it (a POST to the API, or a fetch): whether it is under
//! way, and what went wrong. What a POST changed arrives through the live stream.

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

    /// Sends `call`; busy until the answer, and the server's error kept if any.
    pub fn send(self, call: crate::api::Call) {
        self.run(async move { crate::api::send_call(&call).await }, || {});
    }

    /// Runs `work` in the background: busy until it ends, its error kept if any; then `then`.
    pub fn run(
        self,
        work: impl std::future::Future<Output = Result<(), String>> + 'static,
        then: impl FnOnce() + 'static,
    ) {
        self.busy.set(true);
        self.error.set(None);
        leptos::task::spawn_local(async move {
            if let Err(e) = work.await {
                self.error.set(Some(e));
            }
            self.busy.set(false);
            then();
        });
    }
}

impl Default for Action {
    fn default() -> Self {
        Self::new()
    }
}
