//! Time travel in the header: a slider along the log's line of time (ticks where each session
//! and quest began, the moment under the thumb as a time), and when the page shows the past, a
//! bar saying which moment it is (and where a moment outside the log was moved to), with the
//! way back to now. Moving the slider never reloads the page: it settles on release, a run of
//! arrow keys once after the last (`SETTLE`). The past is read-only: nothing on such a page acts.

use crate::ui::when::When;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};
use leptos_router::NavigateOptions;

use crate::domain::moment::Clamped;
use crate::domain::{time, Millis};
use crate::functions::Moment;
use crate::live::use_live;

/// How long the slider waits after its last move before it shows that moment.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(400);

/// The page's address with `at` set (`None`: now), the open seat kept.
fn address(query: &leptos_router::params::ParamsMap, at: Option<Millis>) -> String {
    let mut q = query.clone();
    match at {
        Some(at) => q.replace("at", at.to_string()),
        None => {
            q.remove("at");
        }
    }
    format!("/{}", q.to_query_string())
}

#[component]
pub fn TimeSlider(at: Option<Moment>) -> impl IntoView {
    let live = use_live();
    let line = live.timeline;
    let first = move || line.with(|l| l.as_ref().map_or(0, |l| l.first));
    let last = move || line.with(|l| l.as_ref().map_or(0, |l| l.last));
    // Where the thumb is: the past's moment, else the newest event (following the log).
    let moved = RwSignal::new(at.map(|m| m.ts));
    let value = Signal::derive(move || moved.get().unwrap_or_else(last));
    let query = use_query_map();
    let navigate = use_navigate();
    let settle = move |ms: Millis| {
        // The newest moment is now.
        let at = (ms < line.with_untracked(|l| l.as_ref().map_or(0, |l| l.last))).then_some(ms);
        let options = NavigateOptions {
            scroll: false,
            ..Default::default()
        };
        navigate(&query.with_untracked(|q| address(q, at)), options);
    };
    let pending = StoredValue::new(None::<TimeoutHandle>);
    let on_change = move |ev: leptos::ev::Event| {
        let Ok(ms) = event_target_value(&ev).parse::<Millis>() else {
            return;
        };
        moved.set(Some(ms));
        if let Some(earlier) = pending.try_update_value(Option::take).flatten() {
            earlier.clear();
        }
        let settle = settle.clone();
        if let Ok(handle) = set_timeout_with_handle(move || settle(ms), SETTLE) {
            pending.set_value(Some(handle));
        }
    };
    on_cleanup(move || {
        if let Some(handle) = pending.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    });
    // Drawn again when a session or a quest begins, not at every event.
    let marked = Memo::new(move |_| {
        line.with(|l| {
            l.as_ref()
                .map(|l| (l.sessions.clone(), l.quests.clone()))
                .unwrap_or_default()
        })
    });
    let marks = move || {
        let (sessions, quests) = marked.get();
        let sessions = sessions.into_iter().enumerate().map(|(n, at)| {
            view! { <option value=at.to_string()>{format!("session {} began", n + 1)}</option> }
        });
        let quests = quests.into_iter().map(|(at, problem)| {
            view! { <option value=at.to_string()>{format!("quest: {problem}")}</option> }
        });
        sessions.chain(quests).collect::<Vec<_>>()
    };
    view! {
        <div class="time-slider">
            <label for="time-slider" class="sr-only">"Look at the team as it was at"</label>
            <input id="time-slider" type="range" list="time-marks" step="1000"
                min=move || first().to_string() max=move || last().to_string()
                prop:value=move || value.get().to_string()
                aria-valuetext=move || time::human(value.get())
                on:input=move |ev| {
                    if let Ok(ms) = event_target_value(&ev).parse::<Millis>() {
                        moved.set(Some(ms));
                    }
                }
                on:change=on_change/>
            <output for="time-slider" aria-live="off"><When at=value short=true/></output>
            <datalist id="time-marks">{marks}</datalist>
        </div>
    }
}

#[component]
pub fn PastBar(at: Moment) -> impl IntoView {
    let query = use_query_map();
    let clamped = at.clamped.map(|c| match c {
        Clamped::BeforeFirst => " That moment is before the first event: this is the first.",
        Clamped::AfterLast => " That moment is after the newest event: this is the newest.",
    });
    view! {
        <div class="past-bar" role="status" data-at=at.event_id>
            <span>
                "You are looking at " <When at=at.ts/>
                {format!(" (after event {} of {}): read-only.", at.event_id, at.now)}
                {clamped}
            </span>
            " "
            <a href=move || query.with(|q| address(q, None)) class="back-to-now">"Back to now"</a>
        </div>
    }
}
