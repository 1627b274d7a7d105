//! Who talks to whom, as the console shows it: a line from one face to another that lights and
//! fades when one agent writes to another (a letter, or a post in #team that names it), drawn
//! over the grid from the live stream (nothing runs while nothing arrives); and in an agent's
//! panel, whom it wrote to and heard from over the last hour.

use std::time::Duration;

use leptos::prelude::*;

use crate::domain::docs::identity;
use crate::domain::talk::{after, counts, with, Pair};
use crate::domain::{Millis, Seat};
use crate::live::use_live;

/// How long a line stays lit.
const LIT: Duration = Duration::from_millis(2400);
/// The panel's window: the last hour.
const HOUR_MS: Millis = 60 * 60 * 1000;

/// The centre of a seat's cell in the grid's 3×3 box.
fn centre(seat: Seat) -> (f64, f64) {
    (f64::from(seat % 3) + 0.5, f64::from(seat / 3) + 0.5)
}

/// The lines over the grid: one per pair a new message joins, gone after [`LIT`].
#[component]
pub fn TalkLines() -> impl IntoView {
    let live = use_live();
    let lit = RwSignal::new(Vec::<(u64, Pair)>::new());
    let seen = StoredValue::new(live.last_event_id.get_untracked());
    let lead = live.lead_name.get_value();
    Effect::new(move |_| {
        let last = live.last_event_id.get();
        let from = seen.get_value();
        seen.set_value(last);
        if last <= from {
            return;
        }
        let new = live.docs.with_untracked(|d| after(d, from, &lead));
        if new.is_empty() {
            return;
        }
        // Each line keyed by the event it came with and its place among that event's.
        let keyed = new
            .into_iter()
            .enumerate()
            .map(|(i, p)| (last * 64 + i as u64, p));
        lit.update(|l| l.extend(keyed));
        set_timeout(
            move || {
                if !lit.is_disposed() {
                    lit.update(|l| l.retain(|(k, _)| *k / 64 != last));
                }
            },
            LIT,
        );
    });
    view! {
        <svg class="talk-lines" viewBox="0 0 3 3" preserveAspectRatio="none" aria-hidden="true">
            <For
                each=move || lit.get()
                key=|(k, _)| *k
                children=|(_, p)| {
                    let ((x1, y1), (x2, y2)) = (centre(p.from), centre(p.to));
                    view! {
                        <line class="talk-line" data-from=p.from data-to=p.to
                            x1=x1 y1=y1 x2=x2 y2=y2></line>
                    }
                }
            />
        </svg>
    }
}

/// In the agent's panel: whom the agent in `seat` wrote to and heard from in the last hour
/// (shown once the page runs: the hour is the browser's).
#[component]
pub fn TalkedWith(seat: Seat) -> impl IntoView {
    let live = use_live();
    let now = RwSignal::new(None::<Millis>);
    // The browser's clock, read again with each event (and on opening); the server has none.
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        live.last_event_id.track();
        now.set(Some(js_sys::Date::now() as Millis));
    });
    let lead = live.lead_name.get_value();
    let lines = Memo::new(move |_| {
        let now = now.get()?;
        let talked = live.docs.with(|d| {
            let c = counts(d, now - HOUR_MS, &lead);
            with(&c, seat)
                .into_iter()
                .map(|(other, wrote, heard)| {
                    let who = identity(d, other)
                        .and_then(|i| i.name.clone())
                        .unwrap_or_else(|| format!("Seat {}", other + 1));
                    let mut parts = Vec::new();
                    if wrote > 0 {
                        parts.push(format!("wrote {wrote}"));
                    }
                    if heard > 0 {
                        parts.push(format!("heard {heard}"));
                    }
                    (other, format!("{who}: {}", parts.join(", ")))
                })
                .collect::<Vec<_>>()
        });
        (!talked.is_empty()).then_some(talked)
    });
    move || {
        lines.get().map(|talked| {
            view! {
                <div class="talked-with">
                    <span class="label">"Talked with, the last hour: "</span>
                    <ul>
                        {talked
                            .into_iter()
                            .map(|(other, text)| view! { <li data-seat=other>{text}</li> })
                            .collect_view()}
                    </ul>
                </div>
            }
        })
    }
}
