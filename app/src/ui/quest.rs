//! The quest bar above the grid: the quest under way (its problem, where it is, each agent of
//! the running stage and whether it is done, Abandon), or **New quest** (a problem, and a folder
//! the agents may read) when none runs; and the earlier quests, each one a click away.

use crate::api::Call;
use crate::contract::endpoints as e;
use leptos::prelude::*;

use super::action::Action;
use crate::contract::{status_text, Created, NewQuest};
use crate::domain::docs::{QuestDoc, QuestStatus};
use crate::domain::quest::{quests, running_quest};
use crate::live::use_live;

/// Which quest the board shows: the one chosen, else the one under way, else the newest.
#[derive(Clone, Copy)]
pub struct ShownQuest(pub RwSignal<Option<String>>);

pub fn provide_shown_quest() -> ShownQuest {
    let shown = ShownQuest(RwSignal::new(None));
    provide_context(shown);
    shown
}

/// The quest the board shows now.
pub fn shown_quest(docs: &crate::domain::docs::Docs, chosen: Option<&str>) -> Option<QuestDoc> {
    chosen
        .and_then(|id| crate::domain::quest::quest(docs, id))
        .or_else(|| running_quest(docs))
        .or_else(|| quests(docs).into_iter().next())
        .cloned()
}

/// Where a quest is, in words for the bar, with who holds it up and why.
fn where_it_is(q: &QuestDoc, holding: &[String]) -> String {
    let place = place(q);
    match holding {
        [] => place,
        held => format!("{place} · waiting for {}", held.join(", ")),
    }
}

fn place(q: &QuestDoc) -> String {
    match (q.status, q.current()) {
        (QuestStatus::Analysing, _) => "The lead is planning it…".into(),
        (QuestStatus::Stage, Some(s)) => {
            let ended = if s.ended_at.is_some() {
                " — ended, the lead has the next move"
            } else {
                ""
            };
            format!(
                "Stage {} of {}: {}{ended}",
                s.index + 1,
                q.stages.len(),
                s.name
            )
        }
        (QuestStatus::Reporting, _) => "The lead is writing the report…".into(),
        (QuestStatus::Done, _) => "Done: the report is ready".into(),
        (QuestStatus::Abandoned, _) => "Abandoned".into(),
        (QuestStatus::Stage, None) => "Between stages".into(),
    }
}

#[component]
pub fn QuestBar() -> impl IntoView {
    let live = use_live();
    let running = Memo::new(move |_| live.docs.with(|d| running_quest(d).cloned()));
    // The last quest, once it is over: its end is said first, with the way to its report.
    let ended = Memo::new(move |_| {
        live.docs.with(|d| {
            crate::domain::quest::quests(d)
                .first()
                .filter(|q| q.status.is_over())
                .map(|q| (q.quest_id.clone(), q.status))
        })
    });
    // A spectator is shown the quest, never a way to start or end one.
    let spectating = live.spectating();
    move || match running.get() {
        Some(q) => view! { <Running q=q/> }.into_any(),
        None => view! {
            {move || ended.get().map(|(id, status)| view! { <Ended id=id status=status/> })}
            {(!spectating).then(|| view! { <NewQuestForm/> })}
        }
        .into_any(),
    }
}

/// The last quest's end: done (with the way to its report) or abandoned.
#[component]
fn Ended(id: String, status: QuestStatus) -> impl IntoView {
    let shown = expect_context::<ShownQuest>();
    let read = {
        let id = id.clone();
        move |_| {
            shown.0.set(Some(id.clone()));
            // Once the board shows this quest (drawn again after the change above), its report.
            #[cfg(feature = "hydrate")]
            {
                let selector =
                    format!(".board[data-quest=\"{id}\"] .artifact[data-artifact=\"report\"]");
                request_animation_frame(move || {
                    if let Some(report) = document().query_selector(&selector).ok().flatten() {
                        report.scroll_into_view();
                    }
                });
            }
        }
    };
    match status {
        QuestStatus::Done => view! {
            <p class="quest-ended quest-done" role="status" data-quest=id>
                <button type="button" class="link" on:click=read>"Quest done — read the report"</button>
            </p>
        }
        .into_any(),
        _ => view! {
            <p class="quest-ended quest-abandoned" role="status" data-quest=id>"Quest abandoned"</p>
        }
        .into_any(),
    }
}

#[component]
fn Running(q: QuestDoc) -> impl IntoView {
    let live = use_live();
    let quest_id = q.quest_id.clone();
    // The quest as it is now, and who holds it up (each agent's state moves on its own).
    let q_now = {
        let (fallback, id) = (q.clone(), quest_id.clone());
        Memo::new(move |_| {
            live.docs
                .with(|d| crate::domain::quest::quest(d, &id).cloned())
                .unwrap_or_else(|| fallback.clone())
        })
    };
    let holding = Memo::new(move |_| {
        live.docs
            .with(|d| q_now.with(|q| crate::domain::quest::holding(d, q)))
    });
    let action = Action::new();
    let Action { busy, error } = action;
    let abandon = Call::new::<e::AbandonQuest>(&q.quest_id, &e::Empty {});
    let problem: String = q.problem.chars().take(160).collect();
    let agents =
        q.current().filter(|s| s.started_at.is_some()).map(|s| {
            s.agents
            .iter()
            .map(|a| {
                let done = s.done.iter().any(|d| d.eq_ignore_ascii_case(&a.name));
                let role = a.role.clone().map(|r| format!(" · {r}")).unwrap_or_default();
                view! {
                    <li class="quest-agent" data-done=done.to_string()>
                        {a.name.clone()}<span class="muted">{role}</span>
                        {done.then(|| view! { <span class="done-mark" title="done">" ✓"</span> })}
                    </li>
                }
            })
            .collect_view()
        });
    view! {
        <section class="quest-bar" aria-label="The quest" data-quest=q.quest_id.clone()
            data-quest-status=status_text(&q)>
            <p class="quest-problem">{problem}</p>
            <p class="quest-where" role="status">{move || where_it_is(&q_now.get(), &holding.get())}</p>
            {agents.map(|a| view! { <ul class="quest-agents">{a}</ul> })}
            // Asked first: abandoning ends every stage where it is. Not a spectator's to do.
            {(!live.spectating()).then(|| view! {
                <details class="abandon">
                    <summary>"Abandon the quest…"</summary>
                    <p>"The quest ends where it is: no more stages, no report. Its findings stay on the board."</p>
                    <button type="button" class="agent-action" disabled=move || busy.get()
                        on:click=move |_| action.send(abandon.clone())>"Abandon it"</button>
                </details>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}

/// Quest setup: its form is fetched when first opened (`ui::lazy`).
#[component]
fn NewQuestForm() -> impl IntoView {
    view! {
        <super::lazy::LazyDetails class="panel new-quest" load=new_quest_body>"New quest"</super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn new_quest_body() -> AnyView {
    view! { <NewQuestBody/> }.into_any()
}

/// The problem, a folder or a project, and the start.
#[component]
fn NewQuestBody() -> impl IntoView {
    let problem = RwSignal::new(String::new());
    let folder = RwSignal::new(String::new());
    let project = RwSignal::new(String::new());
    let live = use_live();
    let linked = Memo::new(move |_| {
        live.docs.with(|d| {
            crate::domain::projects::projects(d)
                .into_iter()
                .filter(|p| p.is_linked())
                .map(|p| (p.project_id.clone(), p.name.clone()))
                .collect::<Vec<_>>()
        })
    });
    // Said before it starts: how many Claude sessions it may begin (each costs); a memo, so
    // it is written again when the team's wakefulness changes, not at every event.
    let sessions = Memo::new(move |_| live.docs.with(crate::domain::buttons::quest_sessions));
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let start = move |_| {
        let body = NewQuest {
            problem: problem.get_untracked(),
            folder: Some(folder.get_untracked()).filter(|f| !f.trim().is_empty()),
            project: Some(project.get_untracked()).filter(|p| !p.is_empty()),
        };
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let started: Result<Created, String> =
                crate::api::call::<e::StartQuest>(&(), &body).await;
            match started {
                Ok(_) => problem.set(String::new()),
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <label for="quest-problem">"The problem"</label>
        <textarea id="quest-problem" rows="3" placeholder="What should the team work on?"
            prop:value=move || problem.get() on:input=move |ev| problem.set(event_target_value(&ev))></textarea>
        <label for="quest-folder">"A folder the agents may read (optional)"</label>
        <input id="quest-folder" type="text" placeholder="/path/allowed/by/--allow-dir"
            prop:value=move || folder.get() on:input=move |ev| folder.set(event_target_value(&ev))/>
        {move || (!linked.with(Vec::is_empty)).then(|| view! {
            <label for="quest-project">"Or a project (each agent reads it in its own worktree)"</label>
            <select id="quest-project" on:change=move |ev| project.set(event_target_value(&ev))>
                <option value="" selected=move || project.get().is_empty()>"No project"</option>
                {linked.get().into_iter().map(|(id, name)| {
                    let chosen = id.clone();
                    view! { <option value=id selected=move || project.get() == chosen>{name}</option> }
                }).collect_view()}
            </select>
        })}
        <button type="button" class="agent-action" disabled=move || busy.get() || problem.get().trim().is_empty()
            on:click=start>"Start the quest"</button>
        <p class="hint quest-sessions">{move || sessions.get().said()}</p>
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}

/// The quests so far, newest first: a click shows one on the board.
#[component]
pub fn QuestList() -> impl IntoView {
    let live = use_live();
    let shown = expect_context::<ShownQuest>();
    let list = Memo::new(move |_| {
        live.docs.with(|d| {
            quests(d)
                .into_iter()
                .map(|q| {
                    (
                        q.quest_id.clone(),
                        q.problem.chars().take(60).collect::<String>(),
                        status_text(q),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    move || {
        let list = list.get();
        (list.len() > 1).then(|| {
            view! {
                <details class="quest-list">
                    <summary>{format!("Quests ({})", list.len())}</summary>
                    <ul>
                        {list.into_iter().map(|(id, problem, status)| {
                            let pick = id.clone();
                            view! {
                                <li data-quest=id>
                                    <button type="button" class="link" on:click=move |_| shown.0.set(Some(pick.clone()))>
                                        {problem}
                                    </button>
                                    <span class="muted">" · " {status}</span>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </details>
            }
        })
    }
}
