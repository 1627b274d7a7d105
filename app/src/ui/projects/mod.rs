//! Projects beside the grid: link a repository, and per project every agent's branch as the
//! radar last saw it (files changed, not committed, commits ahead, review), its diff to open,
//! the review's buttons (approve, request changes, merge with its strategy) and the merge as it
//! goes (queued, the check's output, merged or refused with why), and the files two agents
//! changed. All of it from the live documents; only the diff is fetched (`diff.rs`).

use leptos::prelude::*;

use crate::api::Call;
use crate::contract::endpoints as ep;
use crate::contract::{MergeRequest, NewProject};
use crate::domain::docs::{MergeState, Review, WorktreeDoc};
use crate::domain::projects;
use crate::live::use_live;

use super::action::Action;
use super::detail::PostButton;

mod diff;
pub mod put;

#[component]
pub fn Projects() -> impl IntoView {
    let live = use_live();
    let linked = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::projects(d)
                .into_iter()
                .filter(|p| p.is_linked())
                .map(|p| p.project_id.clone())
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="panel projects" aria-label="Projects">
            <h2>"Projects"</h2>
            <For each=move || linked.get() key=|id| id.clone() let:id>
                <ProjectCard id=id/>
            </For>
            <LinkForm/>
        </section>
    }
}

/// **Link a project…**: a repository's path (inside `--allow-dir`), and optionally its name,
/// base branch and check command; the form is fetched when first opened (`ui::lazy`).
#[component]
fn LinkForm() -> impl IntoView {
    view! {
        <super::lazy::LazyDetails class="link-project" load=link_form>"Link a project…"</super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn link_form() -> AnyView {
    view! { <LinkFormBody/> }.into_any()
}

#[component]
fn LinkFormBody() -> impl IntoView {
    let (path, name, base, check) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let action = Action::new();
    // Where a project may come from (`--allow-dir`), said beside the path.
    let folders = RwSignal::new(None::<Vec<String>>);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            if let Ok(f) = crate::api::call::<ep::ProjectFolders>(&(), &ep::Empty {}).await {
                folders.set(Some(f));
            }
        });
    });
    let opt = |s: RwSignal<String>| Some(s.get_untracked()).filter(|v| !v.trim().is_empty());
    let link = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = NewProject {
            path: path.get_untracked(),
            name: opt(name),
            base: opt(base),
            check: opt(check),
        };
        action.run(
            async move {
                crate::api::call::<ep::LinkProject>(&(), &body)
                    .await
                    .map(drop)
            },
            move || {
                if action.error.get_untracked().is_none() {
                    path.set(String::new());
                }
            },
        );
    };
    let field = move |label: &'static str,
                      class: &'static str,
                      value: RwSignal<String>,
                      hint: &'static str| {
        view! {
            <label class=class>
                {label}
                <input type="text" placeholder=hint prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))/>
            </label>
        }
    };
    view! {
        <form on:submit=link>
            {field("Repository", "link-path", path, "~/code/web")}
            <p class="muted link-folders">{move || match folders.get() {
                None => String::new(),
                Some(f) if f.is_empty() => "No folder is allowed: start the server with --allow-dir FOLDER.".into(),
                Some(f) => format!("A work tree inside {} (--allow-dir); ~ is the server's home folder.", f.join(", ")),
            }}</p>
            {field("Name", "link-name", name, "its folder's name")}
            {field("Base branch", "link-base", base, "the branch checked out")}
            {field("Check before a merge", "link-check", check, "cargo test")}
            <button type="submit" disabled=move || action.busy.get()>"Link"</button>
            {move || action.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

#[component]
fn ProjectCard(id: String) -> impl IntoView {
    let live = use_live();
    let pid = id.clone();
    let project = Memo::new(move |_| live.docs.with(|d| projects::project(d, &pid).cloned()));
    let pid = id.clone();
    let branches = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::worktrees_of_project(d, &pid)
                .into_iter()
                .map(|w| w.identity_id.clone())
                .collect::<Vec<_>>()
        })
    });
    let pid = id.clone();
    let overlaps = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::overlaps(d, &pid)
                .into_iter()
                .map(|(file, who)| {
                    let names: Vec<String> = who
                        .iter()
                        .filter_map(|i| projects::worktree(d, &pid, i).map(|w| w.agent.clone()))
                        .collect();
                    (file, names.join(", "))
                })
                .collect::<Vec<_>>()
        })
    });
    let unlink = Call::new::<ep::UnlinkProject>(&id, &ep::Empty {});
    let (card_id, put_id) = (id.clone(), id.clone());
    view! {
        <article class="project" data-project=card_id>
            {move || project.get().map(|p| view! {
                <h3>{p.name.clone()}</h3>
                <p class="muted project-path">{p.path.clone()} " · base " <code>{p.base.clone()}</code>
                    {p.check.clone().map(|c| view! { " · check " <code>{c}</code> })}
                </p>
            })}
            <ul class="branches">
                <For each=move || branches.get() key=|i| i.clone() let:identity>
                    <BranchRow project=id.clone() identity=identity/>
                </For>
            </ul>
            <put::PutAgentToWork project=put_id/>
            {move || {
                let o = overlaps.get();
                (!o.is_empty()).then(|| view! {
                    <div class="overlaps" role="status">
                        <h4>"Changed by more than one agent"</h4>
                        <ul>{o.into_iter().map(|(f, who)| view! { <li><code>{f}</code> " — " {who}</li> }).collect_view()}</ul>
                    </div>
                })
            }}
            <details class="unlink">
                <summary>"Unlink…"</summary>
                <p class="muted">"Soulgrid forgets the link; every branch and worktree stays until you remove them."</p>
                <PostButton label="Unlink".to_string() call=unlink/>
            </details>
        </article>
    }
}

/// How a review reads.
fn review_word(r: Review) -> &'static str {
    match r {
        Review::Working => "at work",
        Review::Requested => "asks for a review",
        Review::ChangesRequested => "changes requested",
        Review::Approved => "approved",
        Review::Merged => "merged",
    }
}

fn merge_word(s: MergeState) -> &'static str {
    match s {
        MergeState::Queued => "merge queued",
        MergeState::Checking => "checking…",
        MergeState::Merging => "merging…",
        MergeState::Merged => "merged",
        MergeState::Refused => "merge refused",
    }
}

#[component]
fn BranchRow(project: String, identity: String) -> impl IntoView {
    let live = use_live();
    let (p, i) = (project.clone(), identity.clone());
    let w = Memo::new(move |_| live.docs.with(|d| projects::worktree(d, &p, &i).cloned()));
    let open = RwSignal::new(false);
    let strategy = RwSignal::new("merge".to_string());
    let merge = Action::new();
    let key = (project.clone(), identity.clone());
    let changes = Call::new::<ep::RequestChanges>(&key, &ep::Empty {});
    let rebase = Call::new::<ep::AskRebase>(&key, &ep::Empty {});
    let do_merge = {
        let key = key.clone();
        move |_| {
            let body = MergeRequest {
                strategy: Some(strategy.get_untracked()),
            };
            let key = key.clone();
            merge.run(
                async move {
                    crate::api::call::<ep::MergeBranch>(&key, &body)
                        .await
                        .map(drop)
                },
                || {},
            );
        }
    };
    let summary = move || {
        w.get().map(|w: WorktreeDoc| {
            let n = w.changed_count.max(w.changed_files.len() as u32);
            let mut parts = vec![format!("{n} file{} changed", if n == 1 { "" } else { "s" })];
            if !w.uncommitted.is_empty() {
                parts.push(format!("{} not committed", w.uncommitted.len()));
            }
            parts.push(format!(
                "{} commit{} ahead",
                w.commits_ahead,
                if w.commits_ahead == 1 { "" } else { "s" }
            ));
            parts.join(" · ")
        })
    };
    let (dp, di) = (project.clone(), identity.clone());
    // One item of the project's list: the branch, what went wrong, its diff when open.
    view! {
        <li class="branch-row">
        {move || w.get().map(|w| {
            let open_comments = w.comments.iter().filter(|c| !c.sent).count();
            // What is approved is the head the radar showed, not whatever comes after it.
            let approve = Call::new::<ep::ApproveBranch>(
                &key,
                &crate::contract::ApproveRequest { head: w.head.clone() },
            );
            let review = w.review;
            let merge_note = w.merge.clone();
            view! {
                <div class="branch" data-identity=w.identity_id.clone() data-review=review.as_str()>
                    <strong>{w.agent.clone()}</strong> " " <code>{w.branch.clone()}</code>
                    " " <span class="review" data-review=review.as_str()>{review_word(review)}</span>
                    {w.claim.clone().map(|c| view! {
                        <p class="muted claim">"Means to change " {c.paths.join(", ")} " — " {c.why}</p>
                    })}
                    <p class="muted">{summary}</p>
                    {(!w.base_overlaps.is_empty()).then(|| view! {
                        <p class="base-overlap">
                            "May conflict: the base changed " {w.base_overlaps.join(", ")} " too"
                        </p>
                    })}
                    <button type="button" class="agent-action show-diff" on:click=move |_| open.update(|o| *o = !*o)>
                        {move || if open.get() { "Hide the diff" } else { "Diff" }}
                    </button>
                    {(open_comments > 0).then(|| view! {
                        <PostButton label=format!("Request changes ({open_comments})") call=changes.clone()/>
                    })}
                    {(review != Review::Approved && review != Review::Merged).then(|| {
                        // The approval names one commit: the one the human can see here.
                        let at = w.head.as_deref().map(|h| h.get(..8).unwrap_or(h).to_string());
                        let label = at.map_or("Approve".to_string(), |h| format!("Approve {h}"));
                        view! { <PostButton label=label call=approve.clone()/> }
                    })}
                    {(review == Review::Approved).then(|| view! {
                        <span class="merge-form">
                            <select aria-label="Merge strategy" on:change=move |ev| strategy.set(event_target_value(&ev))>
                                <option value="merge">"merge (fast-forward when it can)"</option>
                                <option value="ff">"fast-forward only"</option>
                                <option value="rebase">"rebase onto the base"</option>
                            </select>
                            <button type="button" class="agent-action merge" disabled=move || merge.busy.get() on:click=do_merge.clone()>"Merge"</button>
                        </span>
                    })}
                    {merge_note.map(|m| view! {
                        <div class="merge-note" data-merge=format!("{:?}", m.state).to_lowercase()>
                            // Merged: the review's word says it; the note says where.
                            <span>{match (m.state, &m.commit) {
                                (MergeState::Merged, Some(c)) => format!("as {}", c.get(..8).unwrap_or(c)),
                                (state, _) => merge_word(state).to_string(),
                            }}</span>
                            {m.why.clone().map(|why| view! { <p class="error">{why}</p> })}
                            {(!m.files.is_empty()).then(|| view! { <p class="muted">"Files: " {m.files.join(", ")}</p> })}
                            {(!m.output.is_empty()).then(|| view! { <pre class="check-output">{m.output.clone()}</pre> })}
                            // A refusal's next step, when the branch must move onto the base
                            // (a conflict, or a fast-forward the base's new commits forbid).
                            {(m.state == MergeState::Refused
                                && m.why.as_deref().is_some_and(|w| w.contains(" conflicts with ") || w.contains("fast-forward")))
                            .then(|| view! {
                                <PostButton label=format!("Ask {} to rebase", w.agent) call=rebase.clone()/>
                            })}
                        </div>
                    })}
                </div>
            }
        })}
        // A refused merge says why in its note; anything else (a network error) here.
        {move || {
            let refused = w.with(|w| {
                w.as_ref()
                    .and_then(|w| w.merge.as_ref())
                    .is_some_and(|m| m.state == MergeState::Refused)
            });
            merge.error.get().filter(|_| !refused).map(|e| view! { <p class="error" role="alert">{e}</p> })
        }}
        <Show when=move || open.get()>
            {
                let (p, i) = (dp.clone(), di.clone());
                let who = w.with_untracked(|w| {
                    w.as_ref().map(|w| format!("{}'s branch {}", w.agent, w.branch))
                });
                view! {
                    <DiffSheet title=who.unwrap_or_default() open=open>
                        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                            {Suspend::new(diff_view(p.clone(), i.clone()))}
                        </Suspense>
                    </DiffSheet>
                }
            }
        </Show>
        </li>
    }
}

/// An agent's diff, in its own part of the wasm, fetched when a diff is first opened (as the
/// agent page's is: `ui::agent_page`). Never drawn by the server (closed until clicked), so it is
/// built in the browser, never hydrated.
#[cfg_attr(lazy_parts, leptos::lazy)]
async fn diff_view(project: String, identity: String) -> AnyView {
    view! { <diff::Diff project=project identity=identity/> }.into_any()
}

/// An open diff: a sheet over the console as wide as the window (a phone's whole screen), so
/// code has the width it needs. Esc or **Close** closes it; `j` and `k` move between its files,
/// `c` comments on the first changed line of the file at hand.
#[component]
fn DiffSheet(title: String, open: RwSignal<bool>, children: Children) -> impl IntoView {
    let label = title.clone();
    let sheet = NodeRef::<leptos::html::Div>::new();
    // Opened, the keys are the sheet's.
    Effect::new(move |_| {
        if let Some(el) = sheet.get() {
            let _ = el.focus();
        }
    });
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            open.set(false);
        }
        #[cfg(feature = "hydrate")]
        if ev.key() != "Escape" {
            let typing = event_target::<leptos::web_sys::Element>(&ev)
                .tag_name()
                .eq_ignore_ascii_case("textarea");
            let plain = !ev.ctrl_key() && !ev.meta_key() && !ev.alt_key();
            let keys = ["j", "k", "c", "ArrowDown", "ArrowUp"];
            if !typing && plain && keys.contains(&ev.key().as_str()) {
                if let Some(el) = sheet.get_untracked() {
                    if diff::key(&el, &ev.key()) {
                        ev.prevent_default();
                    }
                }
            }
        }
    };
    view! {
        <div class="diff-sheet" role="dialog" aria-modal="false" aria-label=label
            tabindex="-1" node_ref=sheet on:keydown=on_key>
            <div class="diff-sheet-head">
                <h3>{title}</h3>
                <span class="muted keys">"j / k: next / previous file · ↓ / ↑: its lines · c: comment on the line · Esc: close"</span>
                <button type="button" class="agent-action" on:click=move |_| open.set(false)>"Close"</button>
            </div>
            {children()}
        </div>
    }
}
