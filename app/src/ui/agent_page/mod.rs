//! `/agents/{id}`: one identity's whole life, seated or in the Hall: its facts, every soul
//! version with what changed from the one before, and its thread.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::detail::PostButton;
use crate::domain::diff::{line_diff, LineChange};
use crate::domain::docs::{identity_by_id, souls_of, thread_of, AgentIdentity, SpeakerType};
use crate::domain::{markdown, time};
use crate::functions::{get_snapshot, Snapshot};
use crate::live::provide_live;

#[component]
pub fn AgentPage() -> impl IntoView {
    let params = use_params_map();
    let snapshot = Resource::new(|| (), |_| get_snapshot());
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! {
                <p class="error" role="alert">
                    "Could not load the agent: "
                    {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join("; ")}
                </p>
            }>
                {move || Suspend::new(async move {
                    let id = params.with_untracked(|p| p.get("id").unwrap_or_default());
                    snapshot.await.map(|s| view! { <AgentLife snapshot=s id=id/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn AgentLife(snapshot: Snapshot, id: String) -> impl IntoView {
    let live = provide_live(snapshot);
    let found = Memo::new(move |_| live.docs.with(|d| identity_by_id(d, &id).cloned()));
    move || match found.get() {
        None => view! {
            <main class="agent-page">
                <p><a href="/">"← the console"</a></p>
                <p class="error" role="alert">"No agent has this id."</p>
            </main>
        }
        .into_any(),
        Some(who) => view! { <Life who=who/> }.into_any(),
    }
}

#[component]
fn Life(who: AgentIdentity) -> impl IntoView {
    let live = crate::live::use_live();
    let name = who.name.clone().unwrap_or_else(|| "A nameless one".into());
    let id = who.stable_id();
    let place = match (who.retired_at, who.status().is_visible()) {
        (Some(at), _) => format!(
            "In the Hall since {}{}",
            time::human(at),
            who.retired_reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
        (None, true) => format!("Seat {} · {}", who.grid_position + 1, who.status().as_str()),
        (None, false) => "Not seated".into(),
    };
    let action = who.retired_at.map(|_| {
        view! { <PostButton label=format!("Recall {name}") path=format!("/api/hall/{id}/recall")/> }
    });
    let souls = {
        let who = who.clone();
        move || {
            live.docs.with(|d| {
                let versions: Vec<(u32, i64, String)> = souls_of(d, &who)
                    .into_iter()
                    .map(|s| (s.version, s.created_at, s.text.clone()))
                    .collect();
                let mut before: Option<String> = None;
                let mut shown = Vec::new();
                for (version, at, text) in versions {
                    let changes = before.as_deref().map(|old| line_diff(old, &text));
                    before = Some(text.clone());
                    shown.push((version, at, text, changes));
                }
                shown
                    .into_iter()
                    .rev()
                    .map(|(version, at, text, changes)| {
                        view! {
                            <section class="soul-version" data-version=version>
                                <h3>"Version " {version} " · " {time::human(at)}</h3>
                                <div class="soul-text">{text}</div>
                                {changes.map(|lines| view! {
                                    <details class="soul-diff">
                                        <summary>"What changed from version " {version - 1}</summary>
                                        <pre>
                                            {lines.into_iter().map(|(c, line)| {
                                                let (class, mark) = match c {
                                                    LineChange::Same => ("same", "  "),
                                                    LineChange::Added => ("added", "+ "),
                                                    LineChange::Removed => ("removed", "- "),
                                                };
                                                view! { <span class=class>{mark}{line}"\n"</span> }
                                            }).collect_view()}
                                        </pre>
                                    </details>
                                })}
                            </section>
                        }
                    })
                    .collect_view()
            })
        }
    };
    let messages = move || {
        live.docs.with(|d| {
            thread_of(d, &who)
                .into_iter()
                .map(|m| {
                    let kind = match m.speaker_type {
                        SpeakerType::Human => "human",
                        SpeakerType::Lead => "lead",
                        SpeakerType::Agent => "agent",
                    };
                    let body = if m.speaker_type == SpeakerType::Human {
                        view! { <div class="text plain">{m.text.clone()}</div> }.into_any()
                    } else {
                        view! { <div class="text md" inner_html=markdown::render(&m.text)></div> }.into_any()
                    };
                    view! {
                        <li class="msg" data-speaker-type=kind>
                            <div class="meta">
                                <span class="who">{m.speaker_name.clone()}</span>
                                <time datetime=time::iso(m.created_at)>{time::human(m.created_at)}</time>
                            </div>
                            {body}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <main class="agent-page" data-identity=id.clone()>
            <p><a href="/">"← the console"</a></p>
            <h1>{name}</h1>
            <p class="place">{place}</p>
            {action}
            <h2>"Soul"</h2>
            {souls}
            <h2>"Thread"</h2>
            <ol class="thread">{messages}</ol>
        </main>
    }
}
