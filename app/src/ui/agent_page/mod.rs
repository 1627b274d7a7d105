//! `/agents/{id}`: one identity's whole life, seated or in the Hall: where it is and what can be
//! done with it, its lineage, every soul version (with a diff between any two), its Claude
//! sessions, its ledger and its thread (paged). Drawn from [`crate::contract::agent_view`], the
//! same view `GET /api/agents/{id}` answers with, over the live replica.

mod knowledge;
mod ledger;
mod lineage;
mod rules;
mod souls;

use crate::api::Call;
use crate::contract::endpoints::{self as e, Endpoint as _};
use crate::ui::when::When;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::detail::{ForkForm, ForkState, PostButton};
use super::face::Face;
use crate::contract::agent_view;
use crate::domain::docs::page::thread_owners;
use crate::domain::docs::{identity_by_id, thread_of, AgentIdentity, SpeakerType};
use crate::domain::process::ProcessState;
use crate::domain::status::AgentStatus;
use crate::domain::{markdown, LEAD_SEAT};
use crate::functions::{get_snapshot, Snapshot};
use crate::live::provide_live;

/// Messages of the thread shown at first, and added by each "Show older".
const PAGE: usize = 50;

/// The route. The page's own code is a part of the wasm fetched when the page is first shown
/// (`#[lazy]`, built with cargo-leptos' `--split`), so a first visit to the console does not
/// download it. Drawn in the browser only: the server sends the loading line, hydrated as such,
/// and the page is built once its part has arrived; never hydrated, so no asynchronous
/// hydration is compiled in (vendor/README.md).
#[component]
pub fn AgentPage() -> impl IntoView {
    let in_browser = RwSignal::new(false);
    Effect::new(move |_| in_browser.set(true));
    let loading = || view! { <p class="loading">"Loading…"</p> };
    move || match in_browser.get() {
        false => loading().into_any(),
        true => view! {
            <Suspense fallback=loading>{Suspend::new(agent_page())}</Suspense>
        }
        .into_any(),
    }
}

/// The page, in its own part of the wasm.
#[cfg_attr(lazy_parts, leptos::lazy)]
async fn agent_page() -> AnyView {
    view! { <Page/> }.into_any()
}

/// The page: the identity's documents loaded, then its life over the live replica.
#[component]
fn Page() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    // With this identity's whole history (its soul and knowledge versions), which the grid's
    // snapshot leaves out: a link to another identity's page loads that one's.
    let snapshot = Resource::new(move || id.get(), |id| get_snapshot(Some(id)));
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! {
                <p class="error" role="alert">
                    "Could not load the agent: "
                    {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join("; ")}
                </p>
            }>
                {move || Suspend::new(async move {
                    // Erased here: the page's view compiled once, not for each way Suspend
                    // renders, hydrates and rebuilds it (app::console).
                    snapshot.await.map(|s| view! { <Lives snapshot=s/> }.into_any())
                })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The replica of the identity's page, and its life.
#[component]
fn Lives(snapshot: Snapshot) -> impl IntoView {
    let id = snapshot.agent.clone().unwrap_or_default();
    provide_live(snapshot);
    view! { <AgentLife id=id/> }
}

#[component]
fn AgentLife(id: String) -> impl IntoView {
    let live = crate::live::use_live();
    let found = {
        let id = id.clone();
        Memo::new(move |_| live.docs.with(|d| identity_by_id(d, &id).cloned()))
    };
    // Whether it is there at all decides the page; what it is redraws the parts below.
    let exists = Memo::new(move |_| found.with(Option::is_some));
    move || {
        if exists.get() {
            view! { <Life id=id.clone() who=found/> }.into_any()
        } else {
            view! {
                <main class="agent-page">
                    <p><a href="/">"← the console"</a></p>
                    <p class="error" role="alert">"No agent has this id."</p>
                </main>
            }
            .into_any()
        }
    }
}

/// Where the identity is, in words.
fn place(who: &AgentIdentity) -> AnyView {
    match who.retired_at {
        Some(at) => {
            let why = who.retired_reason.as_ref().map(|r| format!(" ({r})"));
            view! { "In the Hall since " <When at=at/> {why} }.into_any()
        }
        None => format!(
            "Seat {} · {}",
            who.grid_position + 1,
            crate::domain::words::state_word(who)
        )
        .into_any(),
    }
}

#[component]
fn Life(id: String, who: Memo<Option<AgentIdentity>>) -> impl IntoView {
    let live = crate::live::use_live();
    let view_of = {
        let id = id.clone();
        Memo::new(move |_| live.docs.with(|d| agent_view(d, &id)))
    };
    let name = move || {
        who.with(|w| w.as_ref().and_then(|w| w.name.clone()))
            .unwrap_or_else(|| "A nameless one".into())
    };
    let face = move || {
        who.get().map(|w| {
            let f = w.face_variant.clone().unwrap_or_default();
            view! {
                <Face color=w.color.clone().unwrap_or_default() eyes_kind=f.eyes mouth_kind=f.mouth/>
            }
        })
    };
    // Its life (lineage, soul, ledger, sessions, thread), or what it knows.
    let knowing = RwSignal::new(false);
    let tab = move |label: &'static str, this: bool| {
        view! {
            <button type="button" role="tab" class="tab"
                aria-selected=move || (knowing.get() == this).to_string()
                on:click=move |_| knowing.set(this)>{label}</button>
        }
    };
    let life = move || {
        view! {
            <h2>"Lineage"</h2>
            {move || view_of.get().map(|v| view! { <lineage::Tree root=v.lineage current=v.id/> })}
            <h2>"Soul"</h2>
            <souls::Souls view=view_of/>
            <h2>"Ledger"</h2>
            {move || view_of.get().map(|v| view! { <ledger::Ledger ledger=v.ledger/> })}
            <h2>"Rules"</h2>
            <rules::Rules who=who/>
            <h2>"Sessions"</h2>
            {move || view_of.get().map(|v| view! { <ledger::Sessions sessions=v.sessions/> })}
            <h2>"Thread"</h2>
            <Thread who=who/>
        }
    };
    let knowledge_id = id.clone();
    view! {
        <leptos_meta::Title text=move || format!("{} · Soulgrid", name())/>
        <main class="agent-page" data-identity=id.clone()>
            <p><a href="/">"← the console"</a></p>
            <header class="agent-head">
                <span class="agent-face">{face}</span>
                <div>
                    <h1>{name}</h1>
                    <p class="place">{move || who.with(|w| w.as_ref().map(place))}</p>
                    <crate::ui::projects::put::WorksOn identity=id.clone()/>
                </div>
            </header>
            <Actions who=who/>
            <div class="tabs" role="tablist" aria-label="About this agent">
                {tab("Life", false)}
                {tab("Knowledge", true)}
            </div>
            {move || match knowing.get() {
                false => life().into_any(),
                true => view! { <knowledge::Knowledge id=knowledge_id.clone()/> }.into_any(),
            }}
        </main>
    }
}

/// What can be done with the identity where it is: wake, fork and retire a seated one; recall
/// one from the Hall.
#[component]
fn Actions(who: Memo<Option<AgentIdentity>>) -> impl IntoView {
    let fork = ForkState::default();
    // Redrawn only when what decides the actions changes, not with every turn it takes.
    let facts = Memo::new(move |_| {
        who.with(|w| {
            w.as_ref().map(|w| {
                (
                    w.stable_id(),
                    w.name.clone().unwrap_or_else(|| "this agent".into()),
                    w.grid_position,
                    w.retired_at.is_some(),
                    w.status(),
                    w.process_state.is_some_and(|p| p != ProcessState::Stopped),
                )
            })
        })
    });
    move || {
        facts.get().map(|(id, name, seat, retired, status, running)| {
            let soul = e::Bundle::path(&id);
            let download = view! {
                <a class="download-soul" href=soul download>"Download soul"</a>
            };
            if retired {
                let call = Call::new::<e::Recall>(&id, &crate::contract::RecallRequest::default());
                return view! {
                    <div class="agent-actions">
                        <PostButton label=format!("Recall {name}") call=call/>
                        {download}
                    </div>
                }
                .into_any();
            }
            let wake = (status == AgentStatus::Sleeping && !running && seat != LEAD_SEAT).then(|| {
                let call = Call::new::<e::Wake>(&(), &crate::contract::WakeRequest { seats: Some(vec![seat]) });
                view! { <PostButton label=format!("Wake {name}") call=call/> }
            });
            let named = status == AgentStatus::Alive || status == AgentStatus::Sleeping;
            let fork_form = named.then(|| view! { <ForkForm seat=seat name=name.clone() state=fork/> });
            let retire = (seat != LEAD_SEAT).then(|| {
                let call = Call::new::<e::Kill>(&seat, &crate::contract::KillRequest::default());
                view! {
                    <details class="retire">
                        <summary>"Retire…"</summary>
                        <p>{format!(
                            "{name}'s process stops and {name} leaves seat {} for the Hall, with every \
                             soul, message and memory; it can be recalled later.",
                            seat + 1
                        )}</p>
                        <PostButton label=format!("Retire {name}") call=call/>
                    </details>
                }
            });
            view! { <div class="agent-actions">{wake}{fork_form}{retire}{download}</div> }.into_any()
        })
    }
}

/// The identity's whole thread, wherever it sat: the newest [`PAGE`] messages, and older ones
/// a page at a time.
#[component]
fn Thread(who: Memo<Option<AgentIdentity>>) -> impl IntoView {
    let live = crate::live::use_live();
    let shown = RwSignal::new(PAGE);
    let lines = Memo::new(move |_| {
        let Some(w) = who.get() else {
            return (Vec::new(), 0);
        };
        live.docs.with(|d| {
            let all = thread_of(d, &w);
            let older = all.len().saturating_sub(shown.get());
            let lines: Vec<_> = all[older..]
                .iter()
                .map(|m| {
                    (
                        m.id.clone(),
                        m.speaker_type,
                        m.speaker_name.clone(),
                        m.text.clone(),
                        m.created_at,
                    )
                })
                .collect();
            (lines, older)
        })
    });
    // Older messages the page did not carry come from the server when asked for.
    let owners =
        Memo::new(move |_| who.with(|w| w.as_ref().map(thread_owners).unwrap_or_default()));
    let unloaded = move || owners.with(|o| live.older_of(o));
    let load = crate::ui::action::Action::new();
    crate::ui::older::fill_when_looked_at(
        live,
        owners,
        move || lines.with_untracked(|(shown, hidden)| shown.len() + hidden),
        PAGE,
        load,
    );
    let show_older = move |_| {
        if lines.with_untracked(|(_, held)| *held) >= PAGE || unloaded() == 0 {
            shown.update(|n| *n += PAGE);
            return;
        }
        crate::ui::older::load_older(live, owners.get_untracked(), load, move || {
            shown.update(|n| *n += PAGE)
        });
    };
    let older = move || lines.with(|(_, older)| *older) + unloaded();
    // Drawn again only when there comes to be (or stops being) anything older, not per line.
    let any_older = Memo::new(move |_| older() > 0);
    view! {
        {move || any_older.get().then(|| view! {
            <button type="button" class="show-older" disabled=move || load.busy.get() on:click=show_older>
                {move || format!("Show older messages ({} more)", older())}
            </button>
        })}
        <crate::ui::older::OlderFailed load/>
        <ol class="thread">
            <For each=move || lines.get().0 key=|(id, ..)| id.clone() let:line>
                {
                    let (_, kind, who, text, at) = line;
                    let speaker = match kind {
                        SpeakerType::Human => "human",
                        SpeakerType::Lead => "lead",
                        SpeakerType::Agent => "agent",
                    };
                    let body = if kind == SpeakerType::Human {
                        view! { <div class="text plain">{text}</div> }.into_any()
                    } else {
                        view! { <div class="text md" inner_html=markdown::render(&text)></div> }.into_any()
                    };
                    view! {
                        <li class="msg" data-speaker-type=speaker>
                            <div class="meta">
                                <span class="who">{who}</span>
                                <When at=at/>
                            </div>
                            {body}
                        </li>
                    }
                }
            </For>
        </ol>
    }
}
