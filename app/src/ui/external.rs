//! What the console says of an external agent (a program that joins over `/ws/agent`): how it
//! wakes, what does not apply to it, and **Replace its secret** (the new one shown once).

use leptos::prelude::*;

use crate::contract::endpoints as e;

/// A secret just made, for the identity it is of: kept by the panel's owner, outside the
/// drawing (the panel is drawn again when the agent's connection closes, which the new secret
/// itself causes).
pub type NewSecret = RwSignal<Option<(String, String)>>;

#[component]
pub fn ExternalNote(id: String, name: String, made: NewSecret) -> impl IntoView {
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let mine = id.clone();
    let secret = move || {
        made.with(|m| {
            m.as_ref()
                .filter(|(of, _)| *of == mine)
                .map(|(_, s)| s.clone())
        })
    };
    let replace = move |_| {
        let id = id.clone();
        action.run(
            async move {
                let new = crate::api::call::<e::RotateSecret>(&id, &e::Empty {}).await?;
                made.set(Some((new.identity, new.secret)));
                Ok(())
            },
            || {},
        );
    };
    view! {
        <div class="external-note">
            <p>
                {format!(
                    "{name} is an external agent: a program that joins over a WebSocket. It is awake \
                     while it is connected and wakes only by connecting again; it cannot be forked \
                     (it has no Claude session to carry)."
                )}
            </p>
            <button type="button" class="rotate-secret" disabled=move || busy.get() on:click=replace>
                "Replace its secret"
            </button>
            {move || secret().map(|s| view! {
                <p class="secret">"Shown once; its connection with the old one is closed: "<code>{s}</code></p>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </div>
    }
}
