//! The composer: writes to the selected agent, or to the lead.

use crate::contract::endpoints as e;
use leptos::prelude::*;

use crate::domain::docs::identity;
use crate::domain::{Seat, LEAD_SEAT};
use crate::live::use_live;
use crate::ui::drafts;

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn Composer(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let text = RwSignal::new(String::new());
    // The drafts whose messages are on their way (another agent's box stays free).
    let sending = RwSignal::new(std::collections::HashSet::<String>::new());
    let error = RwSignal::new(None::<String>);
    // One key per composed message: a retry after an error sends the same message again,
    // which the server answers without recording it twice; editing the text makes a new one.
    let key = RwSignal::new(None::<String>);
    // The retry key and the error of each draft not shown now: an agent chosen again gets its
    // own back (a retry after a switch is still the same message).
    let parked = StoredValue::new(std::collections::HashMap::<String, Pending>::new());
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
            // Nobody there: a draft of the seat's own, never the lead's.
            let id = who.map_or_else(|| format!("seat-{s}"), |i| i.stable_id());
            (
                who.and_then(|i| i.name.clone())
                    .unwrap_or_else(|| "a newcomer".into()),
                drafts::key(Some(&id)),
            )
        })
    });
    let draft_key = Memo::new(move |_| whom.with(|w| w.1.clone()));
    // Another agent chosen: its own draft in the box, no error or retry key of the last one,
    // and the cursor in the box (not on a first draw: the page does not take the focus).
    Effect::new(move |last: Option<String>| {
        let k = draft_key.get();
        if let Some(last) = &last {
            let was = Pending {
                key: key.get_untracked(),
                error: error.get_untracked(),
            };
            parked.update_value(|p| {
                p.insert(last.clone(), was);
            });
        }
        let back = parked
            .try_update_value(|p| p.remove(&k))
            .flatten()
            .unwrap_or_default();
        text.set(drafts::load(&k));
        error.set(back.error);
        key.set(back.key);
        if last.is_some() {
            focus(box_ref);
        }
        k
    });
    // This draft's message is on its way.
    let busy = move || sending.with(|s| s.contains(&draft_key.get()));
    let placeholder = move || format!("Write to {}…", whom.with(|w| w.0.clone()));
    let send = move || {
        let body = text.get_untracked();
        let sent_from = draft_key.get_untracked();
        if body.trim().is_empty() || sending.with_untracked(|s| s.contains(&sent_from)) {
            return;
        }
        super::presence::ask_permission();
        // Sending addresses the seat, never a name: two names can look alike.
        let request = crate::contract::SendRequest {
            text: body,
            seat: Some(seat.get_untracked()),
            target_agent: None,
            channel: None,
        };
        let once = key
            .get_untracked()
            .unwrap_or_else(crate::api::idempotency_key);
        key.set(Some(once.clone()));
        sending.update(|s| {
            s.insert(sent_from.clone());
        });
        error.set(None);
        leptos::task::spawn_local(async move {
            let sent = crate::api::call_once::<e::SendMessage>(&(), &request, Some(&once)).await;
            let shown = draft_key.get_untracked() == sent_from;
            match sent {
                // The draft it was is gone; the box is emptied only if it still shows it.
                Ok(_) => {
                    drafts::keep(&sent_from, "");
                    parked.update_value(|p| {
                        p.remove(&sent_from);
                    });
                    if shown {
                        text.set(String::new());
                        key.set(None);
                    }
                }
                Err(e) if shown => error.set(Some(e)),
                // Kept with its draft, with the same key: shown when its agent is chosen again,
                // and a retry then is the same message.
                Err(e) => parked.update_value(|p| {
                    p.insert(
                        sent_from.clone(),
                        Pending {
                            key: Some(once),
                            error: Some(e),
                        },
                    );
                }),
            }
            sending.update(|s| {
                s.remove(&sent_from);
            });
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
            <button type="submit" disabled=move || busy() || text.with(|t| t.trim().is_empty())>
                {move || if busy() { "Sending…" } else { "Send" }}
            </button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

/// What a draft not shown now keeps for when its agent is chosen again.
#[derive(Clone, Default)]
struct Pending {
    /// The key of its message that failed: a retry is the same message.
    key: Option<String>,
    error: Option<String>,
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
