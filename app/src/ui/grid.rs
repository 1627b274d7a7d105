//! The 3×3 grid: the lead in the centre, eight seats around it, and the one button below.

use crate::api::Call;
use crate::contract::endpoints as e;
use crate::contract::{SummonRequest, WakeRequest};
use leptos::prelude::*;

use super::cell::{Cell, CellView};
use crate::domain::buttons::{grid_button, GridButton};
use crate::domain::docs::pending;
use crate::domain::docs::{identities, identity, Docs};
use crate::domain::process::ProcessState;
use crate::domain::{Seat, SEATS};

/// Whether some process is still starting: a SUMMON or WAKE is under way.
fn starting(docs: &Docs) -> bool {
    identities(docs).any(|d| d.process_state == Some(ProcessState::Starting))
}

/// What pressing the button asks (every empty seat, every sleeper). The server builds every
/// wake prompt from its own store.
fn request(button: GridButton) -> Option<Call> {
    match button {
        GridButton::Summon => Some(Call::new::<e::Summon>(&(), &SummonRequest { seats: None })),
        GridButton::Wake => Some(Call::new::<e::Wake>(&(), &WakeRequest { seats: None })),
        GridButton::Waking | GridButton::None => None,
    }
}

/// The seat an arrow key (or Home, End) moves to from `seat` in the 3×3 grid, stopping at its
/// edges; `None` for another key.
fn step(seat: Seat, key: &str) -> Option<Seat> {
    let (row, col) = (seat / 3, seat % 3);
    Some(match key {
        "ArrowLeft" => row * 3 + col.saturating_sub(1),
        "ArrowRight" => row * 3 + (col + 1).min(2),
        "ArrowUp" => row.saturating_sub(1) * 3 + col,
        "ArrowDown" => (row + 1).min(2) * 3 + col,
        "Home" => 0,
        "End" => SEATS - 1,
        _ => return None,
    })
}

/// Moves the focus from the face that has it to the one `ev`'s key points at (an empty seat's
/// menu, where nobody sits).
fn walk(ev: leptos::ev::KeyboardEvent) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let Some(from) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest(".cell").ok().flatten())
            .and_then(|cell| cell.get_attribute("data-seat"))
            .and_then(|s| s.parse::<Seat>().ok())
        else {
            return;
        };
        let Some(to) = step(from, &ev.key()) else {
            return;
        };
        ev.prevent_default();
        let cell = document()
            .query_selector(&format!(".grid .cell[data-seat=\"{to}\"]"))
            .ok()
            .flatten();
        let target = match cell {
            Some(c) if c.tag_name() == "BUTTON" => Some(c),
            Some(c) => c.query_selector("summary").ok().flatten(),
            None => None,
        };
        if let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (ev, step);
}

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn Grid(
    #[prop(into)] docs: Signal<Docs>,
    lead_name: String,
    /// The seat whose thread is open.
    selected: RwSignal<Seat>,
    /// Unread replies per seat.
    #[prop(into)]
    unread: Signal<[usize; SEATS as usize]>,
) -> impl IntoView {
    let in_flight = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let spectating = crate::live::use_live().spectating();
    // One memo per seat: an event recomputes each cell's view, but a cell changes only when
    // its own view does.
    let cell = move |seat: Seat| {
        let lead_name = lead_name.clone();
        Memo::new(move |_| {
            docs.with(|docs| {
                let mut cell = CellView::new(
                    seat,
                    identity(docs, seat),
                    &lead_name,
                    unread.get()[seat as usize],
                    pending(docs, seat).len(),
                );
                cell.stage = crate::domain::quest::running_quest(docs)
                    .and_then(|q| q.current().filter(|s| s.is_running()))
                    .and_then(|s| {
                        let name = cell.name.as_deref().filter(|n| s.has(n))?;
                        let done = s.done.iter().any(|d| d.eq_ignore_ascii_case(name));
                        Some((s.index, done))
                    });
                cell.radar = identity(docs, seat)
                    .filter(|i| i.status().is_visible())
                    .and_then(|i| crate::domain::projects::radar_of(docs, &i.stable_id()));
                cell
            })
        })
    };
    // A memo: the button is drawn again when it changes, not with every event.
    let button = Memo::new(move |_| docs.with(|d| grid_button(d, in_flight.get() || starting(d))));
    // Said before it is pressed: how many Claude sessions it begins (each costs).
    let begun = Memo::new(move |_| {
        let b = button.get();
        let n = docs.with(|d| crate::domain::buttons::sessions_begun(d, b));
        match (b, n) {
            (GridButton::Summon, n) => format!(
                "Begins {n} new Claude session{}: a newborn in each empty seat.",
                if n == 1 { "" } else { "s" }
            ),
            (GridButton::Wake, n) => format!(
                "Wakes {n} agent{}: a Claude session each, resumed or begun.",
                if n == 1 { "" } else { "s" }
            ),
            _ => String::new(),
        }
    });
    let press = move |_| {
        let Some(call) = request(button.get_untracked()) else {
            return;
        };
        super::presence::ask_permission();
        in_flight.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            if let Err(e) = crate::api::send_call(&call).await {
                error.set(Some(e));
            }
            in_flight.set(false);
        });
    };
    view! {
        <section class="grid-panel" aria-label="Agents">
            // One Tab stop (the chosen face); arrows, Home and End walk the 3×3 grid.
            <div class="grid" on:keydown=walk>
                <super::talk::TalkLines/>
                // Keyed by seat: a cell stays the same element for the page's life.
                <For
                    each=|| 0..SEATS
                    key=|seat| *seat
                    children=move |seat| {
                        view! {
                            <Cell
                                view=cell(seat)
                                selected=Signal::derive(move || selected.get() == seat)
                                on_select=Callback::new(move |s| selected.set(s))
                            />
                        }
                    }
                />
            </div>
            // A spectator's grid offers nothing.
            {move || match button.get() {
                _ if spectating => None,
                GridButton::None => None,
                b => Some(view! {
                    <button
                        class="grid-button"
                        data-button=b.label().unwrap_or_default()
                        disabled=b == GridButton::Waking
                        aria-busy=(b == GridButton::Waking).to_string()
                        on:click=press
                    >
                        {b.label()}
                    </button>
                    <p class="grid-button-note">{move || begun.get()}</p>
                }),
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}
