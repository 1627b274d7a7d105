//! **Put to work on …** in an agent's panel: the linked projects it does not work on yet.

use leptos::prelude::*;

use crate::contract::endpoints as ep;
use crate::domain::projects;
use crate::live::use_live;
use crate::ui::action::Action;

/// **Put to work on …**: the linked projects the identity does not work on yet.
#[component]
pub fn PutToWork(identity: String) -> impl IntoView {
    let live = use_live();
    let who = identity.clone();
    let choices = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::projects(d)
                .into_iter()
                .filter(|p| p.is_linked() && projects::worktree(d, &p.project_id, &who).is_none())
                .map(|p| (p.project_id.clone(), p.name.clone()))
                .collect::<Vec<_>>()
        })
    });
    let chosen = RwSignal::new(String::new());
    let action = Action::new();
    let put = move |_| {
        let project = match chosen.get_untracked() {
            c if !c.is_empty() => c,
            _ => match choices.get_untracked().first() {
                Some((id, _)) => id.clone(),
                None => return,
            },
        };
        let body = crate::contract::AgentToWork {
            agent: identity.clone(),
        };
        action.run(
            async move {
                crate::api::call::<ep::PutToWork>(&project, &body)
                    .await
                    .map(drop)
            },
            || {},
        );
    };
    move || {
        let c = choices.get();
        (!c.is_empty()).then(|| view! {
            <p class="put-to-work">
                <select aria-label="Project" on:change=move |ev| chosen.set(event_target_value(&ev))>
                    {c.into_iter().map(|(id, name)| view! { <option value=id>{name}</option> }).collect_view()}
                </select>
                <button type="button" class="agent-action" disabled=move || action.busy.get() on:click=put.clone()>
                    "Put to work"
                </button>
                {move || action.error.get().map(|e| view! { <span class="error" role="alert">{e}</span> })}
            </p>
        })
    }
}
