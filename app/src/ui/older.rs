//! A thread's older messages, for the views that show one: fetched when it is looked at (if the
//! page did not carry enough of it) or when the reader asks, with the fetch's state and failure
//! in an [`Action`] (the failure is shown; "Show older" tries again).

use leptos::prelude::*;

use super::action::Action;
use crate::domain::docs::page::missing;
use crate::live::Live;

/// Fetches the older pages of `owners` ([`Live::load_older`]) in the background under
/// `action`, then runs `then`.
pub fn load_older(live: Live, owners: Vec<String>, action: Action, then: impl FnOnce() + 'static) {
    action.run(live.load_older(owners), then);
}

/// A thread the page did not carry (it carries the lead's) comes when it is looked at: each
/// time `owners` changes, the page before is fetched if fewer than `enough` of its messages are
/// held (`held`, read untracked) and the server has more.
pub fn fill_when_looked_at(
    live: Live,
    owners: Memo<Vec<String>>,
    held: impl Fn() -> usize + 'static,
    enough: usize,
    action: Action,
) {
    Effect::new(move |_| {
        let owners = owners.get();
        let missing = live.older.with_untracked(|o| missing(o, &owners));
        if missing > 0 && held() < enough && !action.busy.get_untracked() {
            load_older(live, owners, action, || {});
        }
    });
}

/// Why the last fetch of older messages failed, if it did.
#[component]
pub fn OlderFailed(load: Action) -> impl IntoView {
    move || {
        load.error.get().map(|why| {
            view! {
                <p class="older-failed" role="alert">
                    "Older messages could not be loaded: " {why} ". Show older tries again."
                </p>
            }
        })
    }
}
