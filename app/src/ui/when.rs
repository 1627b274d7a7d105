//! A time as a person reads it: in the browser's own time zone, with the UTC time in its
//! tooltip. The server renders UTC and says so; once the page has hydrated every time turns to
//! the reader's zone (the server cannot know it).

use leptos::prelude::*;

use crate::domain::{time, Millis};

/// Whether times are shown in the reader's zone: false on the server and while hydrating.
#[derive(Clone, Copy)]
struct LocalTimes(RwSignal<bool>);

/// Times turn local once the page has hydrated (called once, at the root).
pub fn provide_local_times() {
    let local = RwSignal::new(false);
    provide_context(LocalTimes(local));
    Effect::new(move |_| local.set(true));
}

/// Minutes east of UTC in the browser's zone at `at` (summer time included); 0 off the browser.
fn offset(at: Millis) -> i64 {
    #[cfg(feature = "hydrate")]
    {
        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at as f64));
        // JavaScript counts minutes *west* of UTC.
        -(date.get_timezone_offset() as i64)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = at;
        0
    }
}

/// `<time>` with the date and time (`short`: the time of day only). A time that changes is
/// updated in place (its element stays).
#[component]
pub fn When(#[prop(into)] at: Signal<Millis>, #[prop(optional)] short: bool) -> impl IntoView {
    let local = use_context::<LocalTimes>().map(|l| l.0);
    let text = move || {
        let at = at.get();
        match (local.is_some_and(|l| l.get()), short) {
            (true, true) => time::clock_at(at, offset(at)),
            (true, false) => time::human_at(at, offset(at)),
            (false, true) => format!("{} UTC", time::clock(at)),
            (false, false) => time::human(at),
        }
    };
    view! {
        <time datetime=move || time::iso(at.get()) title=move || time::human(at.get())>{text}</time>
    }
}

/// How long since `since` (a turn's start), as "12 s" or "3 min 05 s", counted each second while
/// there is one; `None` without one (and on the server, which does not count). A page of the
/// past (`still`: its moment) counts to that moment and stays still.
pub fn elapsed(since: Memo<Option<Millis>>, still: Option<Millis>) -> Signal<Option<String>> {
    let now = RwSignal::new(still);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if since.get().is_none() || still.is_some() {
            return;
        }
        let tick = move || now.set(Some(js_sys::Date::now() as Millis));
        tick();
        if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(1)) {
            on_cleanup(move || handle.clear());
        }
    });
    Signal::derive(move || {
        let (since, now) = (since.get()?, now.get()?);
        let secs = ((now - since) / 1000).max(0);
        Some(match secs {
            0..=59 => format!("{secs} s"),
            _ => format!("{} min {:02} s", secs / 60, secs % 60),
        })
    })
}

/// The time now, once a minute, in the browser only (`None` on the server and before
/// hydration: nothing is drawn that the server would draw differently).
pub fn minute() -> RwSignal<Option<Millis>> {
    let now = RwSignal::new(None::<Millis>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let tick = move || now.set(Some(js_sys::Date::now() as Millis));
        tick();
        if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(60)) {
            on_cleanup(move || handle.clear());
        }
    });
    now
}
