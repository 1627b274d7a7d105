//! A permission request in the thread: which tool, with what input, what the CLI suggests; while
//! it waits, Approve and Deny (with a reason the agent reads); once settled, what became of it.

use crate::contract::endpoints as e;
use crate::ui::when::When;
use leptos::prelude::*;

use crate::domain::permissions::{input_preview, suggestion_texts, Decision, PermissionDoc};

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn PermissionCard(p: PermissionDoc, who: String) -> impl IntoView {
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let reason = RwSignal::new(String::new());
    let id = p.request_id.clone();
    // `suggestion`: with `allow_always`, the index of the suggested rule to keep.
    let answer = move |decision: Decision, suggestion: Option<usize>| {
        let id = id.clone();
        let message = reason.get_untracked();
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let answer = crate::contract::PermissionAnswer {
                decision,
                message: (!message.trim().is_empty()).then_some(message),
                suggestion,
            };
            let answered = crate::api::call::<e::AnswerPermission>(&id, &answer).await;
            if let Err(e) = answered {
                error.set(Some(e));
            }
            busy.set(false);
        });
    };
    let answer_deny = answer.clone();
    let suggestions = suggestion_texts(&p);
    // One button per rule the CLI suggests: approving with one keeps only that one.
    let remember = (p.is_pending() && !suggestions.is_empty()).then(|| {
        let buttons = suggestions
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let answer = answer.clone();
                view! {
                    <button
                        type="button"
                        class="approve-always"
                        title="Approve, and do not ask again for calls this rule covers"
                        disabled=move || busy.get()
                        on:click=move |_| answer(Decision::AllowAlways, Some(i))
                    >
                        {format!("Approve and {text}")}
                    </button>
                }
            })
            .collect_view();
        view! { <div class="permission-remember">{buttons}</div> }
    });
    let actions = p.is_pending().then(|| {
        view! {
            <div class="permission-actions">
                <button
                    type="button"
                    class="approve"
                    disabled=move || busy.get()
                    on:click=move |_| answer(Decision::Allow, None)
                >
                    "Approve"
                </button>
                <input
                    type="text"
                    class="deny-reason"
                    placeholder="Reason (optional, the agent reads it)"
                    aria-label="Reason for denying"
                    maxlength="2000"
                    prop:value=move || reason.get()
                    on:input=move |ev| reason.set(event_target_value(&ev))
                />
                <button
                    type="button"
                    class="deny"
                    disabled=move || busy.get()
                    on:click=move |_| answer_deny(Decision::Deny, None)
                >
                    "Deny"
                </button>
            </div>
        }
    });
    view! {
        <li
            class="permission"
            data-state=p.state.as_str()
            data-request-id=p.request_id.clone()
            aria-label=format!("{who} asks to use {}", p.tool_name)
        >
            <div class="meta">
                <span class="who">{format!("{who} asks to use ")}<strong>{p.tool_name.clone()}</strong></span>
                <When at=p.created_at short=true/>
            </div>
            {p.description.clone().map(|d| view! { <div class="permission-description">{d}</div> })}
            <pre class="permission-input">{input_preview(&p.tool_name, &p.input)}</pre>
            {(!p.is_pending() && !suggestions.is_empty()).then(|| view! {
                <div class="permission-suggestions">
                    "The CLI suggested: "
                    {suggestions.join("; ")}
                </div>
            })}
            {actions}
            {remember}
            {(!p.is_pending()).then(|| view! { <div class="permission-outcome">{p.outcome()}</div> })}
            {move || error.get().map(|e| view! { <div class="error" role="alert">{e}</div> })}
        </li>
    }
}
