//! What an empty seat offers: **Summon here** (a newborn in this seat), **Recall…** (someone
//! from the Hall into this seat), **Fork into** (a child of a seated agent in this seat) and
//! **Invite an external agent…** (a one-time token for a program that joins over `/ws/agent`).

use crate::api::Call;
use crate::contract::endpoints as e;
use leptos::prelude::*;

use crate::contract::{ForkRequest, RecallRequest, SummonRequest};
use crate::domain::docs::{hall, identities};
use crate::domain::{Seat, LEAD_SEAT};
use crate::live::use_live;

/// Who could come to an empty seat: the Hall's identities (to recall) and the seated, named
/// agents (to fork), as (id or seat, name).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Candidates {
    hall: Vec<(String, String)>,
    seated: Vec<(Seat, String)>,
}

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn SeatMenu(seat: Seat) -> impl IntoView {
    let live = use_live();
    let candidates = Memo::new(move |_| {
        live.docs.with(|d| Candidates {
            hall: hall(d)
                .map(|h| {
                    (
                        h.stable_id(),
                        h.name.clone().unwrap_or_else(|| "A nameless one".into()),
                    )
                })
                .collect(),
            seated: identities(d)
                .filter(|i| i.status().is_visible() && i.has_name() && i.grid_position != LEAD_SEAT)
                .map(|i| (i.grid_position, i.name.clone().unwrap_or_default()))
                .collect(),
        })
    });
    // Posts one request; the seat fills (or says why not) through the live stream.
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let act = move |call: Call| action.send(call);
    let summon = move |_| {
        let body = SummonRequest {
            seats: Some(vec![seat]),
        };
        act(Call::new::<e::Summon>(&(), &body));
    };
    let recall_list = move || {
        let hall = candidates.with(|c| c.hall.clone());
        (!hall.is_empty()).then(|| {
            let items = hall
                .into_iter()
                .map(|(id, name)| {
                    let call = Call::new::<e::Recall>(&id, &RecallRequest { seat: Some(seat) });
                    view! {
                        <li><button type="button" disabled=move || busy.get()
                            on:click=move |_| act(call.clone())>{format!("Recall {name} here")}</button></li>
                    }
                })
                .collect_view();
            view! { <li class="menu-group">"Recall…"<ul>{items}</ul></li> }
        })
    };
    let fork_list = move || {
        let seated = candidates.with(|c| c.seated.clone());
        (!seated.is_empty()).then(|| {
            let items = seated
                .into_iter()
                .map(|(from, name)| {
                    let call = Call::new::<e::Fork>(&from, &ForkRequest { prompt: None, seat: Some(seat) });
                    view! {
                        <li><button type="button" disabled=move || busy.get()
                            on:click=move |_| act(call.clone())>{format!("Fork {name} into this seat")}</button></li>
                    }
                })
                .collect_view();
            view! { <li class="menu-group">"Fork into…"<ul>{items}</ul></li> }
        })
    };
    // An invite's token is shown once, here, with the command that uses it.
    let invite = RwSignal::new(None::<crate::contract::Invite>);
    let make_invite = move |_| {
        action.run(
            async move {
                let body = crate::contract::NewInvite { seat: Some(seat) };
                let made = crate::api::call::<e::MakeInvite>(&(), &body).await?;
                invite.set(Some(made));
                Ok(())
            },
            || {},
        );
    };
    let invite_shown = move || {
        invite.get().map(|i| {
            view! {
                <li class="invite" data-invite-seat=seat>
                    <p>"Shown once: run this where the agent's program lives (the token seats one agent, once)."</p>
                    <pre><code class="invite-command">{i.command}</code></pre>
                    <p class="hint">"The protocol: docs/EXTERNAL.md."</p>
                </li>
            }
        })
    };
    view! {
        <details class="seat-menu">
            <summary tabindex="-1" aria-label=format!("Seat {}: empty. What can come here", seat + 1)>
                <span class="empty-seat" aria-hidden="true"></span>
            </summary>
            <ul class="menu" role="list">
                <li><button type="button" class="summon-here" disabled=move || busy.get() on:click=summon>
                    "Summon here"
                </button></li>
                {recall_list}
                {fork_list}
                <li><button type="button" class="invite-here" disabled=move || busy.get() on:click=make_invite>
                    "Invite an external agent…"
                </button></li>
                {invite_shown}
            </ul>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </details>
    }
}
