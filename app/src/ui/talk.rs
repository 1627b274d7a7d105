//! Who talks to whom, on the grid: a line from one face to another that lights and fades when
//! one agent writes to another (a letter, or a post in #team that names it). The live replica
//! hands over each event's pairs as it applies the event ([`crate::live::Live::talk`]); nothing
//! runs while nothing arrives.

use std::time::Duration;

use leptos::prelude::*;

use crate::domain::Seat;
use crate::live::use_live;

/// How long a line stays lit.
const LIT: Duration = Duration::from_millis(2400);

/// The centre of a seat's cell in the grid's 3×3 box.
fn centre(seat: Seat) -> (f64, f64) {
    (f64::from(seat % 3) + 0.5, f64::from(seat / 3) + 0.5)
}

/// The lines over the grid, each gone after [`LIT`].
#[component]
pub fn TalkLines() -> impl IntoView {
    let live = use_live();
    // Each line taken down by its own key once its time is up (keys only grow: the lines past
    // the last one seen are the new ones).
    Effect::new(move |seen: Option<u64>| {
        let seen = seen.unwrap_or(0);
        let fresh: Vec<u64> = live
            .talk
            .with(|t| t.iter().map(|(k, _)| *k).filter(|k| *k > seen).collect());
        let newest = fresh.iter().copied().max().unwrap_or(seen);
        if !fresh.is_empty() {
            set_timeout(
                move || {
                    if !live.talk.is_disposed() {
                        live.talk.update(|t| t.retain(|(k, _)| !fresh.contains(k)));
                    }
                },
                LIT,
            );
        }
        newest
    });
    view! {
        <svg class="talk-lines" viewBox="0 0 3 3" preserveAspectRatio="none" aria-hidden="true">
            <For
                each=move || live.talk.get()
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
