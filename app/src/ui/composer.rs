//! The composer: writes to the selected agent, or to the lead.

use crate::contract::endpoints as e;
use leptos::prelude::*;

use crate::domain::docs::identity;
use crate::domain::{Seat, LEAD_SEAT};
use crate::live::use_live;
use crate::ui::drafts;

#[component]
pub fn Composer(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let text = RwSignal::new(String::new());
    let sending = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    // One key per composed message: a retry after an error sends the same message again,
    // which the server answers without recording it twice; editing the text makes a new one.
    let key = RwSignal::new(None::<String>);
    let box_ref = NodeRef::<leptos::html::Textarea>::new();
    // Whom the composer writes to: the seat's name (the lead's for the lead), and the key its
    // draft is kept under (by identity: a draft never passes to the seat's next occupant).
    let whom = Memo::new(move |_| {
        let s = seat.get();
        if s == LEAD_SEAT {
            return (live.lead_name.get_value(), drafts::key(None));
        }
        live.docs.with(|d| {
            let who = identity(d, s);
            (
                who.and_then(|i| i.name.clone())
                    .unwrap_or_else(|| "a newcomer".into()),
                drafts::key(who.map(|i| i.stable_id()).as_deref()),
            )
        })
    });
    let draft_key = Memo::new(move |_| whom.with(|w| w.1.clone()));
    // Another agent chosen: its own draft in the box, no error or retry key of the last one,
    // and the cursor in the box (not on a first draw: the page does not take the focus).
    Effect::new(move |first: Option<()>| {
        let k = draft_key.get();
        text.set(drafts::load(&k));
        error.set(None);
        key.set(None);
        if first.is_some() {
            focus(box_ref);
        }
    });
    let placeholder = move || format!("Write to {}…", whom.with(|w| w.0.clone()));
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
        let sent_from = draft_key.get_untracked();
        let once = key
            .get_untracked()
            .unwrap_or_else(crate::api::idempotency_key);
        key.set(Some(once.clone()));
        sending.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let sent = crate::api::call_once::<e::SendMessage>(&(), &request, Some(&once)).await;
            match sent {
                // The draft it was is gone; the box is emptied only if it still shows it.
                Ok(_) => {
                    drafts::keep(&sent_from, "");
                    if draft_key.get_untracked() == sent_from {
                        text.set(String::new());
                        key.set(None);
                    }
                }
                Err(e) if draft_key.get_untracked() == sent_from => error.set(Some(e)),
                Err(_) => {}
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
                node_ref=box_ref
                placeholder=placeholder
                prop:value=move || text.get()
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    drafts::keep(&draft_key.get_untracked(), &value);
                    text.set(value);
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
            <span class="to">"To " {move || whom.with(|w| w.0.clone())}</span>
            <button type="submit" disabled=move || sending.get() || text.with(|t| t.trim().is_empty())>
                {move || if sending.get() { "Sending…" } else { "Send" }}
            </button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

/// Puts the cursor in the composer, except on a touch screen (where it would open the
/// keyboard over the conversation the human just opened).
fn focus(box_ref: NodeRef<leptos::html::Textarea>) {
    #[cfg(feature = "hydrate")]
    {
        let coarse = web_sys::window()
            .and_then(|w| w.match_media("(pointer: coarse)").ok().flatten())
            .is_some_and(|m| m.matches());
        if let (false, Some(el)) = (coarse, box_ref.get_untracked()) {
            let _ = el.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = box_ref;
}
