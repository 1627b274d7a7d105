//! Time travel in the header: a slider over the log (moving it opens `/?at=<event>`), and when
//! the page shows the past, a bar saying which moment it is, with the way back to now. The
//! past is read-only: nothing on such a page acts.

use crate::ui::when::When;
use leptos::prelude::*;

use crate::functions::Moment;
use crate::live::use_live;

/// Opens the page at the moment after event `at` (a new page: the past is not live).
fn go(at: Option<u64>) {
    #[cfg(feature = "hydrate")]
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_href(&match at {
            Some(at) => format!("/?at={at}"),
            None => "/".to_string(),
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = at;
}

#[component]
pub fn TimeSlider(at: Option<Moment>) -> impl IntoView {
    let live = use_live();
    let max = move || at.map_or_else(|| live.last_event_id.get(), |m| m.now);
    let value = move || at.map_or_else(|| live.last_event_id.get(), |m| m.event_id);
    view! {
        <label class="time-slider">
            <span class="sr-only">"Look at the team as it was after event"</span>
            <input type="range" min="0" step="1" prop:max=move || max().to_string()
                prop:value=move || value().to_string()
                aria-valuetext=move || format!("event {} of {}", value(), max())
                on:change=move |ev| {
                    let v: u64 = event_target_value(&ev).parse().unwrap_or(0);
                    go((v < max()).then_some(v));
                }/>
        </label>
    }
}

#[component]
pub fn PastBar(at: Moment) -> impl IntoView {
    view! {
        <div class="past-bar" role="status" data-at=at.event_id>
            <span>
                "You are looking at " <When at=at.ts/>
                {format!(" (after event {} of {}): read-only.", at.event_id, at.now)}
            </span>
            " "
            <a href="/" class="back-to-now">"Back to now"</a>
        </div>
    }
}
