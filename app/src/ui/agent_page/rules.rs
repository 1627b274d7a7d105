//! An identity's rules on its page: what it may do without asking, each with who added it and
//! when, removable; a field to add one ("always allow `Bash(cargo test:*)`"), refused with where
//! when it does not parse. Kept on the identity (the replica shows them live).

use leptos::prelude::*;

use crate::contract::endpoints as e;
use crate::contract::{NewRule, RuleAt};
use crate::domain::docs::AgentIdentity;
use crate::ui::when::When;

#[component]
pub fn Rules(who: Memo<Option<AgentIdentity>>) -> impl IntoView {
    let kept = Memo::new(move |_| {
        who.with(|w| {
            w.as_ref().map(|w| {
                (
                    w.stable_id(),
                    w.name.clone().unwrap_or_else(|| "this agent".into()),
                    w.rules.clone(),
                    w.rules_version,
                )
            })
        })
    });
    let text = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some((id, ..)) = kept.get_untracked() else {
            return;
        };
        let rule = text.get_untracked();
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            match crate::api::call::<e::AddRule>(&id, &NewRule { rule }).await {
                Ok(_) => text.set(String::new()),
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let remove = move |n: u32| {
        let Some((id, ..)) = kept.get_untracked() else {
            return;
        };
        error.set(None);
        leptos::task::spawn_local(async move {
            if let Err(e) =
                crate::api::call::<e::RemoveRule>(&RuleAt { id, n }, &Default::default()).await
            {
                error.set(Some(e));
            }
        });
    };
    let list = move || {
        kept.get().map(|(_, name, rules, version)| {
            if rules.is_empty() {
                return view! {
                    <p class="muted">{format!("No rules: every call {name} asks about waits for an answer.")}</p>
                }
                .into_any();
            }
            let rows = rules
                .into_iter()
                .map(|k| {
                    let n = k.n;
                    view! {
                        <li data-rule=n.to_string()>
                            <code>{k.rule.clone()}</code>
                            <span class="muted">" added by " {k.added_by.clone()} " " <When at=k.added_at/></span>
                            <button type="button" class="remove-rule"
                                aria-label=format!("Remove the rule {}", k.rule)
                                on:click=move |_| remove(n)>"Remove"</button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <ul class="rules" data-version=version.to_string()>{rows}</ul>
            }
            .into_any()
        })
    };
    view! {
        <p class="muted">
            "Calls a rule covers are allowed without asking, the rule recorded as the reason. "
            "Written as Claude Code writes its own: " <code>"Bash(cargo test:*)"</code> ", "
            <code>"Edit(src/**)"</code> ", " <code>"WebFetch(domain:docs.rs)"</code> ", " <code>"Read"</code> "."
        </p>
        {list}
        <form class="add-rule" on:submit=add>
            <input type="text" aria-label="A rule" placeholder="Bash(cargo test:*)" maxlength="500"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))/>
            <button type="submit" disabled=move || busy.get() || text.with(|t| t.trim().is_empty())>
                "Always allow"
            </button>
        </form>
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
