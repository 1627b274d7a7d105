//! Putting agents to work, from either side: **Put to work on …** in an agent's panel (the
//! linked projects it does not work on yet) and on a project's card (the seated agents not at
//! work on it yet); and where an agent works, said in its panel and on its page.

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

/// Where an identity works, in words: each project with its branch, how far it is ahead of the
/// base and what it has not committed ("web · soulgrid/lyra · 2 commits ahead · 1 not
/// committed"). Shown in its panel and on its page.
#[component]
pub fn WorksOn(identity: String) -> impl IntoView {
    let live = use_live();
    let lines = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::worktrees_of(d, &identity)
                .into_iter()
                .map(|w| {
                    let project = projects::project(d, &w.project_id)
                        .map_or_else(|| "a project".to_string(), |p| p.name.clone());
                    let mut parts = vec![project, w.branch.clone()];
                    parts.push(match w.commits_ahead {
                        1 => "1 commit ahead".to_string(),
                        n => format!("{n} commits ahead"),
                    });
                    if !w.uncommitted.is_empty() {
                        parts.push(format!("{} not committed", w.uncommitted.len()));
                    }
                    parts.join(" · ")
                })
                .collect::<Vec<_>>()
        })
    });
    move || {
        let l = lines.get();
        (!l.is_empty()).then(|| {
            view! {
                <ul class="works-on" aria-label="Works on">
                    {l.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                </ul>
            }
        })
    }
}

/// **Put to work…** on a project's card: a seated agent not at work on it yet, chosen.
#[component]
pub fn PutAgentToWork(project: String) -> impl IntoView {
    let live = use_live();
    let pid = project.clone();
    let choices = Memo::new(move |_| {
        live.docs.with(|d| {
            crate::domain::docs::identities(d)
                .filter(|i| i.status().is_visible() && !i.external)
                .filter(|i| projects::worktree(d, &pid, &i.stable_id()).is_none())
                .filter_map(|i| Some((i.stable_id(), i.name.clone()?)))
                .collect::<Vec<_>>()
        })
    });
    let chosen = RwSignal::new(String::new());
    let action = Action::new();
    let put = move |_| {
        let agent = match chosen.get_untracked() {
            c if !c.is_empty() => c,
            _ => match choices.get_untracked().first() {
                Some((id, _)) => id.clone(),
                None => return,
            },
        };
        let (project, body) = (project.clone(), crate::contract::AgentToWork { agent });
        chosen.set(String::new());
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
            <p class="put-agent-to-work">
                <select aria-label="Agent to put to work" on:change=move |ev| chosen.set(event_target_value(&ev))>
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
