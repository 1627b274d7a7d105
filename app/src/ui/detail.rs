//! What is known of the selected agent: identity, every soul version, process and cost.

use crate::api::Call;
use crate::contract::endpoints as e;
use crate::ui::when::When;
use leptos::prelude::*;

use crate::domain::docs::{identity, souls, AgentIdentity};
use crate::domain::Seat;

use crate::live::use_live;
use crate::ui::external::ExternalNote;

#[component]
pub fn AgentDetail(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    // The fork form's state lives outside the drawing (the panel is drawn again when its shape
    // changes), for one seat at a time.
    let fork = ForkState::default();
    let made_secret: crate::ui::external::NewSecret = RwSignal::new(None);
    let detail = Memo::new(move |_| {
        let seat = seat.get();
        live.docs.with(|docs| identity(docs, seat).cloned())
    });
    // What decides the panel's elements: it is drawn again only when one of these changes. The
    // fields (status, process, tokens, cost, …) follow the document in place.
    let shape = Memo::new(move |_| {
        let seat = seat.get();
        detail.with(|d| {
            // No panel for a seat nobody sits in (its agent retired or never hatched).
            let d = d.as_ref().filter(|d| d.status().is_visible())?;
            let versions: Vec<(u32, crate::domain::Millis, String)> = live.docs.with(|docs| {
                souls(docs, seat)
                    .into_iter()
                    .map(|s| (s.version, s.created_at, s.text.clone()))
                    .collect()
            });
            Some(Shape {
                seat: d.grid_position,
                name: d.name.clone(),
                page: d.stable_id(),
                can_sleep: d.process_state.is_some_and(|p| {
                    p.is_live() || p == crate::domain::process::ProcessState::Starting
                }),
                external: d.external,
                can_wake: d.has_name()
                    && !d.external
                    && d.status() == crate::domain::status::AgentStatus::Sleeping
                    && !d.process_state.is_some_and(|p| {
                        p.is_live() || p == crate::domain::process::ProcessState::Starting
                    }),
                can_fork: d.has_name() && !d.external && d.status().is_visible(),
                can_retire: d.grid_position != crate::domain::LEAD_SEAT && d.status().is_visible(),
                versions,
                soul_version: d.soul_version,
            })
        })
    });
    // Open or closed as the human left it while the panel is drawn again.
    let panel = move |open: RwSignal<bool>| {
        move || {
            shape.get().map(|d| {
                let summary = format!("About {}", d.name.as_deref().unwrap_or("this seat"));
                let seat = d.seat;
                let load = move || detail_body(d.clone(), detail, fork, made_secret);
                view! {
                    <super::lazy::LazyDetails class="agent-detail" attr:data-detail-seat=seat open=open load=load>
                        {summary}
                    </super::lazy::LazyDetails>
                }
            })
        }
    };
    // One panel per seat: another agent selected gets a panel of its own (nothing left open
    // from the last one); the same agent's panel is updated in place as its document changes.
    view! {
        <For each=move || std::iter::once(seat.get()) key=|s| *s let:_seat>
            {panel(RwSignal::new(false))}
        </For>
    }
}

/// The panel's body, in its own part of the wasm, fetched when a panel is first opened
/// (`ui::lazy`).
#[cfg_attr(lazy_parts, leptos::lazy)]
async fn detail_body(
    d: Shape,
    detail: Memo<Option<AgentIdentity>>,
    fork: ForkState,
    made_secret: crate::ui::external::NewSecret,
) -> AnyView {
    view! { <Body d=d detail=detail fork=fork made_secret=made_secret/> }.into_any()
}

/// What the panel shows of `d` (its buttons and soul versions) and of `detail` (its fields,
/// followed in place).
#[component]
fn Body(
    d: Shape,
    detail: Memo<Option<AgentIdentity>>,
    fork: ForkState,
    made_secret: crate::ui::external::NewSecret,
) -> impl IntoView {
    let live = use_live();
    let lead_name = live.lead_name.get_value();
    let belief =
        Memo::new(move |_| detail.with(|d| d.as_ref().and_then(|d| d.belief_text(&lead_name))));
    // One field of the document, as text ("—" when it has none).
    let field = move |f: fn(&AgentIdentity) -> Option<String>| {
        move || {
            detail
                .with(|d| d.as_ref().and_then(f))
                .unwrap_or_else(|| "—".into())
        }
    };
    let row = move |label: &'static str, f: fn(&AgentIdentity) -> Option<String>| {
        view! {
            <dt>{label}</dt>
            <dd>{field(f)}</dd>
        }
    };
    // A time of the document, in the reader's zone ("—" when it has none).
    let when_row =
        move |label: &'static str, f: fn(&AgentIdentity) -> Option<crate::domain::Millis>| {
            // Drawn once; a time that changes is updated in place.
            let at = Memo::new(move |_| detail.with(|d| d.as_ref().and_then(f)));
            view! {
                <dt>{label}</dt>
                <dd>
                    <Show when=move || at.get().is_some() fallback=|| "—">
                        <When at=Signal::derive(move || at.get().unwrap_or_default())/>
                    </Show>
                </dd>
            }
        };
    let name = d.name.clone();
    view! {
        {d.can_sleep.then(|| {
            let label = format!("Put {} to sleep", name.clone().unwrap_or_default());
            let call = Call::new::<e::Dismiss>(&d.seat, &e::Empty {});
            view! { <PostButton label=label call=call/> }
        })}
        {d.can_wake.then(|| {
            let label = format!("Wake {}", name.clone().unwrap_or_default());
            let request = crate::contract::WakeRequest { seats: Some(vec![d.seat]) };
            let call = Call::new::<e::Wake>(&(), &request);
            view! { <PostButton label=label call=call/> }
        })}
        {d.external.then(|| {
            let name = name.clone().unwrap_or_else(|| "This agent".into());
            view! { <ExternalNote id=d.page.clone() name=name made=made_secret/> }
        })}
        {d.can_fork.then(|| {
            view! { <ForkForm seat=d.seat name=name.clone().unwrap_or_default() state=fork/> }
        })}
        {d.can_retire.then(|| {
            let name = name.clone().unwrap_or_else(|| "this agent".into());
            let call = Call::new::<e::Kill>(&d.seat, &crate::contract::KillRequest::default());
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
                    <PostButton label=format!("Retire {name}") call=call/>
                </details>
            }
        })}
        <crate::ui::projects::put::WorksOn identity=d.page.clone()/>
        {d.can_fork.then(|| view! { <crate::ui::projects::put::PutToWork identity=d.page.clone()/> })}
        <p><a class="agent-page-link" href=format!("/agents/{}", d.page)>
            {format!("{}'s page", name.clone().unwrap_or_else(|| "This agent".into()))}
        </a></p>
        <dl>
            {row("Status", |d| Some(crate::domain::words::state_word(d)))}
            {move || belief.get().map(|text| view! { <dt>"The lead's belief"</dt><dd class="belief">{text}</dd> })}
            {row("Colour", |d| d.color_name.clone().map(|c| format!("{c} ({})", d.color.clone().unwrap_or_default())))}
            {when_row("Created", |d| d.created_at)}
            {when_row("Last alive", |d| d.last_alive_at)}
            {row("Work cycle", |d| d.work_state.map(|w| w.as_str().to_string()))}
            {row("Context", |d| d.context_tokens.map(|t| format!("{t} tokens")))}
            {row("Cost", |d| d.cost_usd.map(|c| format!("${c:.4}")))}
            <crate::ui::talk::TalkCounts identity=d.page.clone()/>
            {row("Last problem", |d| d.last_problem.as_ref().map(|p| p.message.clone()))}
            {when_row("Last problem at", |d| d.last_problem.as_ref().map(|p| p.at))}
        </dl>
        // Ids and raw states, for whoever debugs: out of the way of the rest.
        <details class="technical">
            <summary>"Technical"</summary>
            <dl>
                {row("Server session", |d| d.last_session_id.clone())}
                {row("Claude session", |d| d.claude_session_id.clone())}
                {row("Process", |d| d.process_state.map(|p| match &d.process_reason {
                    Some(r) => format!("{} ({r})", p.as_str()),
                    None => p.as_str().to_string(),
                }))}
                {row("Problem detail", |d| d.last_problem.as_ref().and_then(|p| p.detail.clone()))}
            </dl>
        </details>
        <h3>"Soul" {(d.versions.len() > 1).then(|| format!(" ({} versions)", d.versions.len()))}</h3>
        {if d.versions.is_empty() {
            view! { <p class="muted">"No soul written yet."</p> }.into_any()
        } else {
            d.versions
                .into_iter()
                .rev()
                .map(|(v, at, text)| view! {
                    <details class="soul" open=v == d.soul_version>
                        <summary>"Version " {v} " · " <When at=at/></summary>
                        <div class="soul-text">{text}</div>
                    </details>
                })
                .collect_view()
                .into_any()
        }}
    }
}

/// What the detail panel's elements are drawn from (see [`AgentDetail`]).
#[derive(Clone, PartialEq)]
struct Shape {
    seat: Seat,
    name: Option<String>,
    /// The agent page's id.
    page: String,
    can_sleep: bool,
    /// A program that joins over `/ws/agent`: it wakes by connecting, and is not forked.
    external: bool,
    /// Asleep with a name: it can be woken alone.
    can_wake: bool,
    can_fork: bool,
    can_retire: bool,
    /// Every soul version: number, when, text.
    versions: Vec<(u32, crate::domain::Millis, String)>,
    soul_version: u32,
}

/// A button that makes one call to the API (typed where it was made) and shows the server's
/// error, if any.
#[component]
pub fn PostButton(label: String, call: Call) -> impl IntoView {
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let press = move |_| action.send(call.clone());
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
            let answer = crate::api::call::<e::Fork>(&seat, &request).await.map(|r| {
                let room = r
                    .made_room
                    .map(|who| format!(" {who} went to the Hall asleep to make room."))
                    .unwrap_or_default();
                format!(
                    "The fork will hatch in seat {} once this turn has ended.{room}",
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
                    "A new agent in the first empty seat (every seat taken: the seat of the \
                     agent asleep longest, who goes to the Hall), carrying {name}'s \
                     conversation so far; it chooses its own name and soul. {name} stays as it is."
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
