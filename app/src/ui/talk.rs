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

/// Whom the identity wrote to and heard from in the last hour, per agent (the detail panel).
#[component]
pub fn TalkCounts(identity: String) -> impl IntoView {
    let live = use_live();
    let now = crate::ui::when::minute();
    let counts = Memo::new(move |_| {
        let now = now.get()?;
        live.docs.with(|d| {
            let doc = d
                .get(&crate::domain::talk::talk_id(&identity))
                .and_then(crate::domain::docs::Doc::as_talk)?;
            let rows: Vec<(String, u32, u32)> =
                crate::domain::talk::counts(doc, now - crate::domain::talk::WINDOW_MS)
                    .into_iter()
                    .map(|(with, wrote, heard)| {
                        let name = crate::domain::docs::identity_by_id(d, &with)
                            .and_then(|w| w.name.clone())
                            .unwrap_or(with);
                        (name, wrote, heard)
                    })
                    .collect();
            (!rows.is_empty()).then_some(rows)
        })
    });
    move || {
        counts.get().map(|rows| {
            let items = rows
                .into_iter()
                .map(|(name, wrote, heard)| {
                    let shown = name.clone();
                    view! {
                        <li data-with=name>
                            <span class="with">{shown}</span>
                            {format!(" · wrote {wrote}, heard {heard}")}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <dt>"Talked with, last hour"</dt>
                <dd><ul class="talk-counts">{items}</ul></dd>
            }
        })
    }
}
