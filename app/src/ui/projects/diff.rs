//! One agent's work against the base, fetched a page of files at a time and fetched again when
//! the radar sees the worktree change. A click on a line opens a comment on it; the comments
//! made so far show under their lines.

use leptos::prelude::*;

use crate::contract::endpoints::{self as ep, DiffAt};
use crate::contract::{DiffFile, DiffView, LineComment, LineKind};
use crate::domain::docs::ReviewComment;
use crate::domain::projects;
use crate::live::use_live;

use crate::ui::action::Action;

#[component]
pub fn Diff(project: String, identity: String) -> impl IntoView {
    let live = use_live();
    let (p, i) = (project.clone(), identity.clone());
    // What the radar saw last: a new look fetches the diff again.
    let seen = Memo::new(move |_| {
        live.docs.with(|d| {
            projects::worktree(d, &p, &i)
                .map(|w| (w.head.clone(), w.changed_at, w.comments.clone()))
        })
    });
    let page = RwSignal::new(0usize);
    let got = RwSignal::new(None::<Result<DiffView, String>>);
    let (p, i) = (project.clone(), identity.clone());
    Effect::new(move |_| {
        let _ = seen.with(|s| s.as_ref().map(|s| (s.0.clone(), s.1)));
        let at = DiffAt {
            project: p.clone(),
            agent: i.clone(),
            page: Some(page.get()),
        };
        leptos::task::spawn_local(async move {
            got.set(Some(
                crate::api::call::<ep::ProjectDiff>(&at, &ep::Empty {}).await,
            ));
        });
    });
    let comments =
        Memo::new(move |_| seen.with(|s| s.as_ref().map(|s| s.2.clone()).unwrap_or_default()));
    let key = (project, identity);
    view! {
        <div class="diff-view" aria-label="The agent's changes">
            {move || match got.get() {
                None => view! { <p class="muted">"Looking…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Some(Ok(d)) => {
                    let pages = d.pages;
                    let head = d.head.get(..8).unwrap_or(&d.head).to_string();
                    let loose = d.uncommitted;
                    let loose_total = d.total_uncommitted;
                    let loose_key = key.clone();
                    view! {
                        <p class="muted">
                            {format!("{} file(s) differ from {} in {} commit(s), up to {head}: what an approval names and a merge brings", d.total_files, d.base, d.commits.len())}
                        </p>
                        <ul class="commits">
                            {d.commits.iter().map(|c| view! {
                                <li><code>{c.sha.get(..8).unwrap_or(&c.sha).to_string()}</code> " " {c.subject.clone()}</li>
                            }).collect_view()}
                        </ul>
                        {d.files.into_iter().map(|f| view! { <FileDiff file=f comments=comments key=key.clone()/> }).collect_view()}
                        {(pages > 1).then(|| view! {
                            <p class="pager">
                                <button type="button" disabled=move || page.get() == 0 on:click=move |_| page.update(|p| *p -= 1)>"← Earlier files"</button>
                                {move || format!(" page {} of {pages} ", page.get() + 1)}
                                <button type="button" disabled=move || page.get() + 1 >= pages on:click=move |_| page.update(|p| *p += 1)>"Later files →"</button>
                            </p>
                        })}
                        {(!loose.is_empty()).then(|| view! {
                            <section class="not-committed" aria-label="Not committed">
                                <h4>"Not committed yet"</h4>
                                <p class="muted">
                                    {format!("{loose_total} file(s) changed in the worktree since {head}: not part of a review until the agent commits them (an approval asks it to).")}
                                </p>
                                {loose.into_iter().map(|f| view! { <FileDiff file=f comments=comments key=loose_key.clone()/> }).collect_view()}
                            </section>
                        })}
                    }
                    .into_any()
                }
            }}
        </div>
    }
}

#[component]
fn FileDiff(
    file: DiffFile,
    comments: Memo<Vec<ReviewComment>>,
    key: (String, String),
) -> impl IntoView {
    let commenting = RwSignal::new(None::<u32>);
    let path = file.path.clone();
    let counts = match (file.added, file.removed) {
        (Some(a), Some(r)) => format!("+{a} −{r}"),
        _ => String::new(),
    };
    let head = view! {
        // Reached by `j` and `k` (`key`).
        <h4 class="file-head" tabindex="-1">
            <code>{file.path.clone()}</code> " " <span class="muted">{file.change.clone()} " " {counts}</span>
            {file.uncommitted.then(|| view! { " " <span class="uncommitted">"not committed"</span> })}
        </h4>
    };
    let body = match file.binary {
        true => view! { <p class="muted">"Binary or too large: named, not shown."</p> }.into_any(),
        false => {
            let rows = file.hunks.into_iter().flat_map(|h| {
                let header = view! { <tr class="hunk"><td colspan="3">{h.header}</td></tr> }.into_any();
                let path = path.clone();
                let key = key.clone();
                std::iter::once(header).chain(h.lines.into_iter().map(move |l| {
                    let kind = match l.kind {
                        LineKind::Added => "added",
                        LineKind::Removed => "removed",
                        LineKind::Context => "context",
                    };
                    let line = l.new;
                    let (path2, key2, path3) = (path.clone(), key.clone(), path.clone());
                    let here = Memo::new(move |_| {
                        comments.with(|c| {
                            c.iter()
                                .filter(|c| Some(c.line) == line && c.file == path2)
                                .map(|c| (c.text.clone(), c.sent))
                                .collect::<Vec<_>>()
                        })
                    });
                    view! {
                        <tr class=format!("line {kind}") data-line=line
                            on:click=move |_| if let Some(n) = line { commenting.set(Some(n)) }>
                            <td class="num">{l.old}</td>
                            <td class="num">{l.new}</td>
                            // Coloured by the server (its HTML escaped there), else as it is.
                            <td class="code">{match l.html {
                                Some(html) => view! { <pre inner_html=html></pre> }.into_any(),
                                None => view! { <pre>{l.text}</pre> }.into_any(),
                            }}</td>
                        </tr>
                        {move || here.get().into_iter().map(|(text, sent)| view! {
                            <tr class="comment" data-sent=sent.to_string()><td colspan="3">{text}</td></tr>
                        }).collect_view()}
                        <Show when=move || line.is_some() && commenting.get() == line>
                            <tr class="comment-form"><td colspan="3">
                                <CommentForm key=key2.clone() file=path3.clone() line=line.unwrap_or(1) done=commenting/>
                            </td></tr>
                        </Show>
                    }
                    .into_any()
                }))
            });
            view! { <table class="hunks"><tbody>{rows.collect_view()}</tbody></table> }.into_any()
        }
    };
    view! {
        <section class="file-diff" data-file=file.path>
            {head}
            {file.cut.then(|| view! { <p class="muted">"Cut: the change is too long to show whole."</p> })}
            {body}
        </section>
    }
}

#[component]
fn CommentForm(
    key: (String, String),
    file: String,
    line: u32,
    done: RwSignal<Option<u32>>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let action = Action::new();
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = LineComment {
            file: file.clone(),
            line,
            text: text.get_untracked(),
        };
        let key = key.clone();
        action.run(
            async move {
                crate::api::call::<ep::CommentLine>(&key, &body)
                    .await
                    .map(drop)
            },
            move || {
                if action.error.get_untracked().is_none() {
                    done.set(None);
                }
            },
        );
    };
    // Opened (a click on the line, or `c`), it takes the keys.
    let area = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if let Some(a) = area.get() {
            let _ = a.focus();
        }
    });
    view! {
        <form class="line-comment" on:submit=save>
            <textarea node_ref=area aria-label=format!("Comment on line {line}") prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <button type="submit" disabled=move || action.busy.get()>"Comment"</button>
            <button type="button" on:click=move |_| done.set(None)>"Cancel"</button>
            {move || action.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

/// A key of the open diff, in the browser: `j` / `k` to the next / previous file (its head
/// focused and scrolled to), `c` a comment on the first changed line of the file at hand.
#[cfg(feature = "hydrate")]
pub fn key(sheet: &leptos::web_sys::HtmlDivElement, key: &str) {
    use leptos::wasm_bindgen::JsCast;
    use leptos::web_sys::{Element, HtmlElement};
    let Ok(files) = sheet.query_selector_all(".file-diff") else {
        return;
    };
    let files: Vec<Element> = (0..files.length())
        .filter_map(|i| files.item(i)?.dyn_into::<Element>().ok())
        .collect();
    if files.is_empty() {
        return;
    }
    let active = document().active_element();
    let at = active
        .and_then(|a| files.iter().position(|f| f.contains(Some(&a))))
        .unwrap_or(usize::MAX);
    let focus = |f: &Element, selector: &str| {
        if let Some(el) = f.query_selector(selector).ok().flatten() {
            if let Ok(el) = el.dyn_into::<HtmlElement>() {
                let _ = el.focus();
                el.scroll_into_view();
                el.click();
            }
        }
    };
    match key {
        "j" => {
            let next = if at == usize::MAX {
                0
            } else {
                (at + 1).min(files.len() - 1)
            };
            focus(&files[next], ".file-head");
        }
        "k" => {
            let prev = if at == usize::MAX {
                0
            } else {
                at.saturating_sub(1)
            };
            focus(&files[prev], ".file-head");
        }
        _ => {
            let here = if at == usize::MAX { 0 } else { at };
            focus(&files[here], "tr.line.added[data-line], tr.line[data-line]");
        }
    }
}
