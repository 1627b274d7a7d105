//! What is known of the selected agent: identity, every soul version, process and cost.

use leptos::prelude::*;

use crate::domain::docs::{identity, souls};
use crate::domain::{time, Seat};

use crate::live::use_live;

#[component]
pub fn AgentDetail(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    // The fork form's state lives outside the drawing (the panel is drawn again as the agent's
    // document changes), for one seat at a time.
    let fork = ForkState::default();
    let detail = Memo::new(move |_| {
        let seat = seat.get();
        live.docs.with(|docs| {
            let d = identity(docs, seat)?.clone();
            let versions: Vec<(u32, String, String)> = souls(docs, seat)
                .into_iter()
                .map(|s| (s.version, time::human(s.created_at), s.text.clone()))
                .collect();
            Some((d, versions))
        })
    });
    let lead_name = live.lead_name.get_value();
    let panel = move || {
        let lead_name = lead_name.clone();
        detail.get().map(|(d, versions)| {
            let row = |label: &'static str, value: Option<String>| {
                view! {
                    <dt>{label}</dt>
                    <dd>{value.unwrap_or_else(|| "—".into())}</dd>
                }
            };
            let belief = d.belief_text(&lead_name);
            let process = d.process_state.map(|p| match &d.process_reason {
                Some(r) => format!("{} ({r})", p.as_str()),
                None => p.as_str().to_string(),
            });
            view! {
                <details class="agent-detail" data-detail-seat=d.grid_position>
                    <summary>"About " {d.name.clone().unwrap_or_else(|| "this seat".into())}</summary>
                    {d.process_state.is_some_and(|p| p.is_live() || p == crate::domain::process::ProcessState::Starting).then(|| {
                        let label = format!("Put {} to sleep", d.name.clone().unwrap_or_default());
                        let path = format!("/api/agents/{}/dismiss", d.grid_position);
                        view! { <PostButton label=label path=path/> }
                    })}
                    {(d.has_name() && d.status().is_visible()).then(|| {
                        view! { <ForkForm seat=d.grid_position name=d.name.clone().unwrap_or_default() state=fork/> }
                    })}
                    {(d.grid_position != crate::domain::LEAD_SEAT && d.status().is_visible()).then(|| {
                        let name = d.name.clone().unwrap_or_else(|| "this agent".into());
                        let path = format!("/api/agents/{}/kill", d.grid_position);
                        view! {
                            <details class="retire">
                                <summary>"Retire…"</summary>
                                <p>
                                    {format!(
                                        "{name}'s process stops and {name} leaves this seat for the Hall, with \
                                         every soul, message and memory. The seat becomes empty; {name} can be \
                                         recalled into an empty seat later."
                                    )}
                                </p>
                                <PostButton label=format!("Retire {name}") path=path/>
                            </details>
                        }
                    })}
                    <p><a class="agent-page-link" href=format!("/agents/{}", d.stable_id())>
                        {format!("{}'s page", d.name.clone().unwrap_or_else(|| "This agent".into()))}
                    </a></p>
                    <dl>
                        {row("Status", Some(d.status().as_str().to_string()))}
                        {belief.map(|text| view! { <dt>"The lead's belief"</dt><dd class="belief">{text}</dd> })}
                        {row("Colour", d.color_name.clone().map(|c| format!("{c} ({})", d.color.clone().unwrap_or_default())))}
                        {row("Created", d.created_at.map(time::human))}
                        {row("Last alive", d.last_alive_at.map(time::human))}
                        {row("Server session", d.last_session_id.clone())}
                        {row("Claude session", d.claude_session_id.clone())}
                        {row("Process", process)}
                        {row("Work cycle", d.work_state.map(|w| w.as_str().to_string()))}
                        {row("Context", d.context_tokens.map(|t| format!("{t} tokens")))}
                        {row("Cost", d.cost_usd.map(|c| format!("${c:.4}")))}
                        {row("Last problem", d.last_problem.as_ref().map(|p| format!("{} ({})", p.message, time::human(p.at))))}
                    </dl>
                    <h3>"Soul" {(versions.len() > 1).then(|| format!(" ({} versions)", versions.len()))}</h3>
                    {if versions.is_empty() {
                        view! { <p class="muted">"No soul written yet."</p> }.into_any()
                    } else {
                        versions
                            .into_iter()
                            .rev()
                            .map(|(v, at, text)| view! {
                                <details class="soul" open=v == d.soul_version>
                                    <summary>"Version " {v} " · " {at}</summary>
                                    <div class="soul-text">{text}</div>
                                </details>
                            })
                            .collect_view()
                            .into_any()
                    }}
                </details>
            }
        })
    };
    // One panel per seat: another agent selected gets a panel of its own (nothing left open
    // from the last one); the same agent's panel is updated in place as its document changes.
    view! {
        <For each=move || std::iter::once(seat.get()) key=|s| *s let:_seat>
            {panel.clone()}
        </For>
    }
}

/// A button that POSTs `body` (default `{}`) to the API and shows the server's error, if any.
#[component]
pub fn PostButton(
    label: String,
    path: String,
    #[prop(optional)] body: Option<serde_json::Value>,
) -> impl IntoView {
    let body = body.unwrap_or_else(|| serde_json::json!({}));
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let press = move |_| action.post(path.clone(), body.clone());
    view! {
        <button type="button" class="agent-action" disabled=move || busy.get() on:click=press>
            {label}
        </button>
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}

/// What the fork form holds across redraws of the panel.
#[derive(Clone, Copy, Default)]
pub struct ForkState {
    /// The seat whose fork form is open.
    open: RwSignal<Option<crate::domain::Seat>>,
    prompt: RwSignal<String>,
    busy: RwSignal<bool>,
    /// What the last fork said, and for which seat.
    said: RwSignal<Option<(crate::domain::Seat, Result<String, String>)>>,
}

/// Fork…: a child of this agent in the first empty seat, carrying its conversation, with an
/// optional first message. The child starts once the agent's running turn has ended.
#[component]
pub fn ForkForm(seat: crate::domain::Seat, name: String, state: ForkState) -> impl IntoView {
    let ForkState {
        open,
        prompt,
        busy,
        said,
    } = state;
    let fork = move |_| {
        let request = crate::contract::ForkRequest {
            prompt: Some(prompt.get_untracked()).filter(|p| !p.trim().is_empty()),
            seat: None,
        };
        busy.set(true);
        leptos::task::spawn_local(async move {
            let path = format!("/api/agents/{seat}/fork");
            let answer = crate::api::post::<_, crate::contract::SeatResponse>(&path, &request)
                .await
                .map(|r| {
                    format!(
                        "The fork will hatch in seat {} once this turn has ended.",
                        r.seat + 1
                    )
                });
            if answer.is_ok() {
                prompt.set(String::new());
            }
            said.set(Some((seat, answer)));
            busy.set(false);
        });
    };
    view! {
        <details class="fork" prop:open=move || open.get() == Some(seat)>
            <summary on:click=move |ev| {
                ev.prevent_default();
                open.update(|o| *o = if *o == Some(seat) { None } else { Some(seat) });
            }>"Fork…"</summary>
            <p>
                {format!(
                    "A new agent in the first empty seat, carrying {name}'s conversation so far; \
                     it chooses its own name and soul. {name} stays as it is."
                )}
            </p>
            <label class="sr-only" for=format!("fork-prompt-{seat}")>"Opening words for the fork (optional)"</label>
            <textarea
                id=format!("fork-prompt-{seat}")
                rows="2"
                placeholder="Opening words for the fork (optional)"
                prop:value=move || prompt.get()
                on:input=move |ev| prompt.set(event_target_value(&ev))
            ></textarea>
            <button type="button" class="agent-action" disabled=move || busy.get() on:click=fork>
                {format!("Fork {name}")}
            </button>
            {move || said.get().filter(|(s, _)| *s == seat).map(|(_, r)| match r {
                Ok(text) => view! { <p class="muted" role="status">{text}</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </details>
    }
}
