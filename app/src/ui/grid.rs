//! The 3×3 grid: the lead in the centre, eight seats around it, and the one button below.

use leptos::prelude::*;

use super::cell::{Cell, CellView};
use crate::domain::buttons::{grid_button, GridButton};
use crate::domain::docs::{identity, Docs};
use crate::domain::SEATS;

#[component]
pub fn Grid(#[prop(into)] docs: Signal<Docs>, lead_name: String) -> impl IntoView {
    let rows = move || {
        docs.with(|docs| {
            (0..SEATS)
                .map(|seat| CellView::new(seat, identity(docs, seat), &lead_name))
                .collect::<Vec<_>>()
        })
    };
    let button = move || docs.with(|docs| grid_button(docs, false));
    view! {
        <section class="grid-panel" aria-label="Agents">
            <div class="grid">
                <For
                    each=rows
                    key=|cell| cell.clone()
                    children=|cell| view! { <Cell view=cell/> }
                />
            </div>
            {move || match button() {
                GridButton::None => None,
                b => Some(view! {
                    <button
                        class="grid-button"
                        data-button=b.label().unwrap_or_default()
                        disabled=b == GridButton::Waking
                    >
                        {b.label()}
                    </button>
                }),
            }}
        </section>
    }
}
