//! The composer: writes to the selected agent, or to the lead.

use crate::contract::endpoints as e;
use leptos::prelude::*;

use crate::domain::docs::identity;
use crate::domain::{Seat, LEAD_SEAT};
use crate::live::use_live;

#[component]
pub fn Composer(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let text = RwSignal::new(String::new());
    let sending = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    // One key per composed message: a retry after an error sends the same message again,
    // which the server answers without recording it twice; editing the text makes a new one.
    let key = RwSignal::new(None::<String>);
    // The agent's name, for the placeholder; `None` for the lead.
    let target = move || {
        let s = seat.get();
        (s != LEAD_SEAT)
            .then(|| {
                live.docs
                    .with(|d| identity(d, s).and_then(|i| i.name.clone()))
            })
            .flatten()
    };
    let placeholder = move || match target() {
        Some(name) => format!("Write to {name}…"),
        None => format!("Write to {}…", live.lead_name.get_value()),
    };
    let send = move || {
        let body = text.get_untracked();
        if body.trim().is_empty() || sending.get_untracked() {
            return;
        }
        super::presence::ask_permission();
        // Sending addresses the seat, never a name: two names can look alike.
        let request = crate::contract::SendRequest {
            text: body,
            seat: Some(seat.get_untracked()),
            target_agent: None,
        };
        let once = key
            .get_untracked()
            .unwrap_or_else(crate::api::idempotency_key);
        key.set(Some(once.clone()));
        sending.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let sent = crate::api::call_once::<e::SendMessage>(&(), &request, Some(&once)).await;
            match sent {
                Ok(_) => {
                    text.set(String::new());
                    key.set(None);
                }
                Err(e) => error.set(Some(e)),
            }
            sending.set(false);
        });
    };
    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            <label class="sr-only" for="composer-text">"Message"</label>
            <textarea
                id="composer-text"
                rows="2"
                placeholder=placeholder
                prop:value=move || text.get()
                on:input=move |ev| {
                    text.set(event_target_value(&ev));
                    key.set(None);
                }
                on:keydown=move |ev| {
                    // Enter sends; Shift+Enter is a new line.
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <button type="submit" disabled=move || sending.get() || text.with(|t| t.trim().is_empty())>
                {move || if sending.get() { "Sending…" } else { "Send" }}
            </button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}
