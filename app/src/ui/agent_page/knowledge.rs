//! The Knowledge tab of an agent's page: its vault as it is now (each file editable by the
//! human: the edit is a new version, and the agent is told), every version with a diff between
//! any two, and its work cycle as the commits it made or the server made for it.

use crate::contract::endpoints as e;
use crate::ui::when::When;
use leptos::prelude::*;

use super::super::diff::DiffLines;
use crate::contract::{
    commits_view, knowledge_view, KnowledgeCaptured, KnowledgeEdit, KnowledgeSaved, KnowledgeView,
};
use crate::domain::docs::{identity_by_id, Author};
use crate::domain::knowledge::{knowledge_at, valid_path, KnowledgeError};
use crate::domain::Millis;
use crate::live::use_live;

#[component]
pub fn Knowledge(id: String) -> impl IntoView {
    let live = use_live();
    let view_of = {
        let id = id.clone();
        Memo::new(move |_| live.docs.with(|d| knowledge_view(d, &id, None)))
    };
    let commits = {
        let id = id.clone();
        Memo::new(move |_| live.docs.with(|d| commits_view(d, &id)).unwrap_or_default())
    };
    let said = RwSignal::new(None::<Result<String, String>>);
    view! {
        <section class="knowledge" aria-label="Knowledge">
            <h2>"Knowledge vault"</h2>
            <Captured id=id.clone() view=view_of said=said/>
            <Files id=id.clone() view=view_of said=said/>
            <h2>"Versions"</h2>
            <Versions id=id view=view_of/>
            <h2>"Work cycle"</h2>
            {move || {
                let commits = commits.get();
                if commits.is_empty() {
                    return view! { <p class="muted">"No work-cycle commit yet."</p> }.into_any();
                }
                let rows = commits
                    .into_iter()
                    .rev()
                    .map(|c| {
                        let short: String = c.sha.chars().take(8).collect();
                        let by = if c.by_agent { "agent" } else { "server" };
                        view! {
                            <tr data-sha=c.sha.clone()>
                                <td><When at=c.time/></td>
                                <td class="state">{c.state.clone().unwrap_or_else(|| "—".into())}</td>
                                <td>{c.summary.clone()}</td>
                                <td>{c.files.join(", ")}</td>
                                <td>{by}</td>
                                <td><code>{short}</code></td>
                            </tr>
                        }
                    })
                    .collect_view();
                view! {
                    <div class="table-scroll">
                        <table class="commits">
                            <thead>
                                <tr>
                                    <th scope="col">"When"</th>
                                    <th scope="col">"State"</th>
                                    <th scope="col">"Summary"</th>
                                    <th scope="col">"Files changed"</th>
                                    <th scope="col">"By"</th>
                                    <th scope="col">"Commit"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                }
                .into_any()
            }}
        </section>
    }
}

/// When the vault was last taken from the agent's folder, and **Capture now** while it is awake:
/// between two work-state changes the folder can hold what the vault does not yet.
#[component]
fn Captured(
    id: String,
    view: Memo<Option<KnowledgeView>>,
    said: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let live = use_live();
    let who = {
        let id = id.clone();
        Memo::new(move |_| {
            live.docs.with(|d| {
                identity_by_id(d, &id).map(|w| {
                    let name = w.name.clone().unwrap_or_else(|| "The agent".into());
                    let awake =
                        w.retired_at.is_none() && w.process_state.is_some_and(|p| p.is_live());
                    (name, awake)
                })
            })
        })
    };
    // The newest version the agent's folder gave, and a capture asked for here that found
    // nothing new (no version records it).
    let asked = RwSignal::new(None::<Millis>);
    let last = Memo::new(move |_| {
        let taken = view.with(|v| {
            v.as_ref().and_then(|v| {
                v.versions
                    .iter()
                    .rev()
                    .find(|x| x.author == Author::Agent)
                    .map(|x| x.created_at)
            })
        });
        taken.max(asked.get())
    });
    let busy = RwSignal::new(false);
    let capture = move |_| {
        let id = id.clone();
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = crate::api::call::<e::CaptureKnowledge>(&id, &e::Empty {}).await;
            if let Ok(c) = &answer {
                asked.set(Some(c.at));
            }
            said.set(Some(answer.map(|c| captured_words(&c))));
            busy.set(false);
        });
    };
    view! {
        <p class="captured">
            {move || {
                let (name, awake) = who.get().unwrap_or_else(|| ("The agent".into(), false));
                let when = match last.get() {
                    Some(at) => view! { "Last captured " <When at=at/> ". " }.into_any(),
                    None => view! { "Not captured yet. " }.into_any(),
                };
                let how = match awake {
                    true => format!(
                        "Soulgrid takes knowledge/ from {name}'s folder when {name} changes its work state or goes to sleep, or now:"
                    ),
                    false => format!("{name} is asleep: its vault was captured when it went to sleep."),
                };
                view! { {when} {how} }
            }}
            " "
            <button type="button" class="agent-action" on:click=capture
                disabled=move || busy.get() || !who.with(|w| w.as_ref().is_some_and(|w| w.1))>
                "Capture now"
            </button>
        </p>
    }
}

/// What a capture asked for here came to, in words.
fn captured_words(c: &KnowledgeCaptured) -> String {
    let mut said = match c.changed.is_empty() {
        true => format!("Nothing new since version {}.", c.version),
        false => format!("Captured version {} ({}).", c.version, c.changed.join(", ")),
    };
    if !c.problems.is_empty() {
        said += &format!(" Left out: {}.", c.problems.join("; "));
    }
    said
}

/// Why a new file's name cannot be a vault file, in a sentence (`None`: it can).
fn bad_name(path: &str) -> Option<String> {
    match path.trim() {
        "" => Some("Give the file a name ending in .md or .txt, like insights.md.".into()),
        p if !valid_path(p) => Some(format!("{}.", KnowledgeError::BadPath(p.to_string()))),
        _ => None,
    }
}

/// The files as they are now, each with Edit; and a new file.
#[component]
fn Files(
    id: String,
    view: Memo<Option<KnowledgeView>>,
    said: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    // The file being edited (its path), and the text in the editor.
    let editing = RwSignal::new(None::<String>);
    let text = RwSignal::new(String::new());
    let new_path = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let save = {
        let id = id.clone();
        move |path: String, body: String| {
            let at = (id.clone(), e::FilePath(path));
            busy.set(true);
            leptos::task::spawn_local(async move {
                let saved: Result<KnowledgeSaved, String> =
                    crate::api::call::<e::EditKnowledge>(&at, &KnowledgeEdit { text: body }).await;
                said.set(Some(saved.map(|s| {
                    format!("Saved as version {}; the agent is told.", s.version)
                })));
                if said.get_untracked().is_some_and(|r| r.is_ok()) {
                    editing.set(None);
                    new_path.set(String::new());
                }
                busy.set(false);
            });
        }
    };
    let save_new = save.clone();
    let files = move || {
        let save = save.clone();
        let files = view.with(|v| v.as_ref().map(|v| v.files.clone()).unwrap_or_default());
        if files.is_empty() {
            return view! { <p class="muted">"Nothing in the vault yet."</p> }.into_any();
        }
        files
            .into_iter()
            .map(|f| {
                let save = save.clone();
                let path = f.path.clone();
                let (p1, p2, p3) = (path.clone(), path.clone(), path.clone());
                let original = f.text.clone();
                view! {
                    <article class="vault-file" data-path=path.clone()>
                        <h3><code>{format!("knowledge/{path}")}</code></h3>
                        {move || if editing.get().as_deref() == Some(p1.as_str()) {
                            let (save, p) = (save.clone(), p2.clone());
                            view! {
                                <label class="sr-only" for=format!("edit-{p}")>{format!("Text of {p}")}</label>
                                <textarea id=format!("edit-{p}") rows="10" prop:value=move || text.get()
                                    on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                                <button type="button" class="agent-action" disabled=move || busy.get()
                                    on:click=move |_| save(p.clone(), text.get_untracked())>"Save"</button>
                                <button type="button" class="agent-action" on:click=move |_| editing.set(None)>"Cancel"</button>
                            }.into_any()
                        } else {
                            let (p, t) = (p3.clone(), original.clone());
                            view! {
                                <pre class="vault-text">{original.clone()}</pre>
                                <button type="button" class="agent-action" on:click=move |_| {
                                    text.set(t.clone());
                                    editing.set(Some(p.clone()));
                                }>{format!("Edit {}", p3.clone())}</button>
                            }.into_any()
                        }}
                    </article>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        {files}
        <details class="vault-new">
            <summary>"New file…"</summary>
            <label for="vault-new-path">"Path (in knowledge/, ending in .md)"</label>
            <input id="vault-new-path" type="text" placeholder="insights.md"
                prop:value=move || new_path.get() on:input=move |ev| new_path.set(event_target_value(&ev))/>
            <label for="vault-new-text">"Text"</label>
            <textarea id="vault-new-text" rows="6" prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <button type="button" class="agent-action" disabled=move || busy.get()
                on:click=move |_| {
                    let path = new_path.get_untracked();
                    match bad_name(&path) {
                        Some(why) => said.set(Some(Err(why))),
                        None => save_new(path.trim().to_string(), text.get_untracked()),
                    }
                }>"Create"</button>
        </details>
        {move || said.get().map(|r| match r {
            Ok(t) => view! { <p class="muted" role="status">{t}</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        })}
    }
}

/// Every version (who, when, why, what changed), and the diff between any two of them.
#[component]
fn Versions(id: String, view: Memo<Option<KnowledgeView>>) -> impl IntoView {
    let live = use_live();
    let versions = Memo::new(move |_| {
        view.with(|v| v.as_ref().map(|v| v.versions.clone()).unwrap_or_default())
    });
    let from = RwSignal::new(None::<u32>);
    let to = RwSignal::new(None::<u32>);
    let pair = Memo::new(move |_| {
        versions.with(|v| {
            let newest = v.last()?.version;
            let before = v.iter().rev().nth(1).map_or(0, |x| x.version);
            Some((from.get().unwrap_or(before), to.get().unwrap_or(newest)))
        })
    });
    let list = move || {
        versions
            .get()
            .into_iter()
            .rev()
            .map(|v| {
                let who = match (v.author, &v.author_name) {
                    (Author::Human, Some(name)) => name.clone(),
                    (Author::Human, None) => "the human".into(),
                    (Author::Agent, _) => "the agent".into(),
                };
                view! {
                    <li data-version=v.version data-author=match v.author { Author::Human => "human", Author::Agent => "agent" }>
                        "Version " {v.version} " · " <When at=v.created_at/> {format!(" · by {who}")}
                        {v.reason.map(|r| format!(" · {r}"))}
                        <span class="muted">{format!(" · changed {}", v.files.join(", "))}</span>
                    </li>
                }
            })
            .collect_view()
    };
    let compare = move || {
        let (a, b) = pair.get()?;
        let files = |v: u32| {
            live.docs.with(|d| {
                knowledge_at(d, &id, v)
                    .map(|x| x.files.clone())
                    .unwrap_or_default()
            })
        };
        let (old, new) = (files(a), files(b));
        let mut paths: Vec<String> = old.keys().chain(new.keys()).cloned().collect();
        paths.sort();
        paths.dedup();
        let diffs = paths
            .into_iter()
            .filter(|p| old.get(p) != new.get(p))
            .map(|p| {
                let (old, new) = (
                    old.get(&p).cloned().unwrap_or_default(),
                    new.get(&p).cloned().unwrap_or_default(),
                );
                view! {
                    <h4><code>{format!("knowledge/{p}")}</code></h4>
                    <div class="vault-file-diff" data-path=p.clone()>
                        <DiffLines old=old new=new class="vault-diff"/>
                    </div>
                }
            })
            .collect_view();
        let choice = move |label: &'static str, chosen: u32, set: RwSignal<Option<u32>>| {
            let mut options: Vec<u32> = versions.with(|v| v.iter().map(|x| x.version).collect());
            options.insert(0, 0);
            view! {
                <label>
                    {label}
                    <select on:change=move |ev| set.set(event_target_value(&ev).parse().ok())>
                        {options.into_iter().map(|v| view! {
                            <option value=v.to_string() selected=v == chosen>
                                {if v == 0 { "empty".to_string() } else { format!("version {v}") }}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
            }
        };
        Some(view! {
            <section class="soul-compare vault-compare" aria-label="Compare two vault versions" data-from=a data-to=b>
                {choice("From ", a, from)}
                {choice(" to ", b, to)}
                {diffs}
            </section>
        })
    };
    view! {
        {compare}
        <ul class="vault-versions">{list}</ul>
    }
}
