//! One agent's work against the base, fetched a page of files at a time and fetched again when
//! the radar sees the worktree change. A click on a line opens a comment on it; the comments
//! made so far show under their lines.

use leptos::prelude::*;

use crate::contract::endpoints::{self as ep, DiffAt};
use crate::contract::{DiffFile, DiffLine, DiffView, LineComment, LineKind};
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
    // Unified, or the old and the new side by side.
    let split = RwSignal::new(false);
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
                        <p class="diff-layout" role="group" aria-label="Layout">
                            <button type="button" aria-pressed=move || (!split.get()).to_string() on:click=move |_| split.set(false)>"Unified"</button>
                            <button type="button" aria-pressed=move || split.get().to_string() on:click=move |_| split.set(true)>"Side by side"</button>
                        </p>
                        <ul class="commits">
                            {d.commits.iter().map(|c| view! {
                                <li><code>{c.sha.get(..8).unwrap_or(&c.sha).to_string()}</code> " " {c.subject.clone()}</li>
                            }).collect_view()}
                        </ul>
                        {d.files.into_iter().map(|f| view! { <FileDiff file=f comments=comments key=key.clone() split=split/> }).collect_view()}
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
                                {loose.into_iter().map(|f| view! { <FileDiff file=f comments=comments key=loose_key.clone() split=split/> }).collect_view()}
                            </section>
                        })}
                    }
                    .into_any()
                }
            }}
        </div>
    }
}

/// The lines of a hunk side by side: a kept line on both sides, a run of removed lines beside
/// the run of added lines that follows it (the longer run's rest beside nothing).
pub fn side_by_side(lines: &[DiffLine]) -> Vec<(Option<DiffLine>, Option<DiffLine>)> {
    let mut rows = Vec::new();
    let (mut removed, mut added): (Vec<DiffLine>, Vec<DiffLine>) = (Vec::new(), Vec::new());
    let flush = |rows: &mut Vec<_>, removed: &mut Vec<DiffLine>, added: &mut Vec<DiffLine>| {
        let n = removed.len().max(added.len());
        let (mut r, mut a) = (removed.drain(..), added.drain(..));
        for _ in 0..n {
            rows.push((r.next(), a.next()));
        }
    };
    for l in lines {
        match l.kind {
            LineKind::Removed => {
                if !added.is_empty() {
                    flush(&mut rows, &mut removed, &mut added);
                }
                removed.push(l.clone());
            }
            LineKind::Added => added.push(l.clone()),
            LineKind::Context => {
                flush(&mut rows, &mut removed, &mut added);
                rows.push((Some(l.clone()), Some(l.clone())));
            }
        }
    }
    flush(&mut rows, &mut removed, &mut added);
    rows
}

/// A line's code cell: coloured by the server (its HTML escaped there), else as it is.
fn code(l: Option<&DiffLine>) -> AnyView {
    match l {
        Some(DiffLine {
            html: Some(html), ..
        }) => view! { <td class="code"><pre inner_html=html.clone()></pre></td> }.into_any(),
        Some(l) => view! { <td class="code"><pre>{l.text.clone()}</pre></td> }.into_any(),
        None => view! { <td class="code empty"></td> }.into_any(),
    }
}

fn kind_of(l: Option<&DiffLine>) -> &'static str {
    match l.map(|l| l.kind) {
        Some(LineKind::Added) => "added",
        Some(LineKind::Removed) => "removed",
        Some(LineKind::Context) => "context",
        None => "none",
    }
}

/// One row of a file's table: a line (unified), or the two sides of one (`split`). A click on
/// a row with a line of the new file comments on that line.
fn line_row(
    (old, new): (Option<DiffLine>, Option<DiffLine>),
    split: bool,
    path: String,
    key: (String, String),
    comments: Memo<Vec<ReviewComment>>,
    commenting: RwSignal<Option<u32>>,
) -> AnyView {
    let line = new.as_ref().and_then(|l| l.new);
    let cols = if split { "4" } else { "3" };
    let path2 = path.clone();
    let here = Memo::new(move |_| {
        comments.with(|c| {
            c.iter()
                .filter(|c| Some(c.line) == line && c.file == path2)
                .map(|c| (c.text.clone(), c.sent))
                .collect::<Vec<_>>()
        })
    });
    let cells = match split {
        true => view! {
            <td class="num">{old.as_ref().and_then(|l| l.old)}</td>
            {code(old.as_ref())}
            <td class="num">{line}</td>
            <td class=format!("side {}", kind_of(new.as_ref()))>{code(new.as_ref())}</td>
        }
        .into_any(),
        false => {
            let l = new.as_ref().or(old.as_ref());
            view! {
                <td class="num">{l.and_then(|l| l.old)}</td>
                <td class="num">{l.and_then(|l| l.new)}</td>
                {code(l)}
            }
            .into_any()
        }
    };
    let kind = match split {
        true => format!("line split {}", kind_of(old.as_ref())),
        false => format!("line {}", kind_of(new.as_ref().or(old.as_ref()))),
    };
    view! {
        <tr class=kind data-line=line tabindex=line.map(|_| "-1")
            on:click=move |_| if let Some(n) = line { commenting.set(Some(n)) }>
            {cells}
        </tr>
        {move || here.get().into_iter().map(|(text, sent)| view! {
            <tr class="comment" data-sent=sent.to_string()><td colspan=cols>{text}</td></tr>
        }).collect_view()}
        <Show when=move || line.is_some() && commenting.get() == line>
            <tr class="comment-form"><td colspan=cols>
                <CommentForm key=key.clone() file=path.clone() line=line.unwrap_or(1) done=commenting/>
            </td></tr>
        </Show>
    }
    .into_any()
}

#[component]
fn FileDiff(
    file: DiffFile,
    comments: Memo<Vec<ReviewComment>>,
    key: (String, String),
    #[prop(into)] split: Signal<bool>,
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
    let hunks = StoredValue::new(file.hunks);
    let binary = file.binary;
    let body = move || {
        if binary {
            return view! { <p class="muted">"Binary or too large: named, not shown."</p> }
                .into_any();
        }
        let split = split.get();
        let cols = if split { "4" } else { "3" };
        let rows = hunks.with_value(|hunks| {
            hunks
                .iter()
                .flat_map(|h| {
                    let header =
                        view! { <tr class="hunk"><td colspan=cols>{h.header.clone()}</td></tr> }
                            .into_any();
                    let pairs: Vec<(Option<DiffLine>, Option<DiffLine>)> = match split {
                        true => side_by_side(&h.lines),
                        false => h.lines.iter().map(|l| (None, Some(l.clone()))).collect(),
                    };
                    let (path, key) = (path.clone(), key.clone());
                    std::iter::once(header).chain(pairs.into_iter().map(move |pair| {
                        line_row(pair, split, path.clone(), key.clone(), comments, commenting)
                    }))
                })
                .collect::<Vec<_>>()
        });
        view! { <table class="hunks" class:split=split><tbody>{rows}</tbody></table> }.into_any()
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
/// focused and scrolled to); `↓` / `↑` from a file's head or a line to the next / previous
/// line; `c` a comment on the line at hand (else the file's first changed line). Whether the
/// key was taken (an arrow elsewhere scrolls, as always).
#[cfg(feature = "hydrate")]
pub fn key(sheet: &leptos::web_sys::HtmlDivElement, key: &str) -> bool {
    use leptos::wasm_bindgen::JsCast;
    use leptos::web_sys::{Element, HtmlElement};
    let files = all::<Element>(sheet, ".file-diff");
    if files.is_empty() {
        return false;
    }
    let active = document().active_element();
    let at = active
        .as_ref()
        .and_then(|a| files.iter().position(|f| f.contains(Some(a))));
    let focus = |f: &Element, selector: &str| {
        if let Some(el) = f.query_selector(selector).ok().flatten() {
            if let Ok(el) = el.dyn_into::<HtmlElement>() {
                let _ = el.focus();
                el.scroll_into_view();
                el.click();
            }
        }
    };
    let on_line = active
        .clone()
        .filter(|a| a.matches("tr.line[data-line]").unwrap_or(false))
        .and_then(|a| a.dyn_into::<HtmlElement>().ok());
    match key {
        "j" => focus(
            &files[at.map_or(0, |i| (i + 1).min(files.len() - 1))],
            ".file-head",
        ),
        "k" => focus(&files[at.map_or(0, |i| i.saturating_sub(1))], ".file-head"),
        "ArrowDown" | "ArrowUp" => {
            let on_head = active
                .as_ref()
                .is_some_and(|a| a.matches(".file-head").unwrap_or(false));
            if on_line.is_none() && !on_head {
                return false;
            }
            step_line(sheet, on_line, at.map(|i| &files[i]), key == "ArrowDown");
        }
        _ => match on_line {
            Some(row) => row.click(),
            None => focus(
                &files[at.unwrap_or(0)],
                "tr.line.added[data-line], tr.line[data-line]",
            ),
        },
    }
    true
}

/// Focuses the line after (`down`) or before the one focused, or, from a file's head, that
/// file's first line.
#[cfg(feature = "hydrate")]
fn step_line(
    sheet: &leptos::web_sys::HtmlDivElement,
    now: Option<leptos::web_sys::HtmlElement>,
    file: Option<&leptos::web_sys::Element>,
    down: bool,
) {
    let rows = all::<leptos::web_sys::HtmlElement>(sheet, "tr.line[data-line]");
    let here = now.and_then(|n| rows.iter().position(|r| r.is_same_node(Some(&n))));
    let next = match here {
        Some(i) if down => (i + 1).min(rows.len().saturating_sub(1)),
        Some(i) => i.saturating_sub(1),
        None => match rows
            .iter()
            .position(|r| file.is_some_and(|f| f.contains(Some(r))))
        {
            Some(first) => first,
            None => return,
        },
    };
    if let Some(row) = rows.get(next) {
        let _ = row.focus();
        row.scroll_into_view_with_bool(false);
    }
}

/// The elements under `root` that match `selector`, in document order.
#[cfg(feature = "hydrate")]
fn all<T: leptos::wasm_bindgen::JsCast>(root: &leptos::web_sys::Element, selector: &str) -> Vec<T> {
    use leptos::wasm_bindgen::JsCast;
    let Ok(found) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|i| found.item(i)?.dyn_into::<T>().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(kind: LineKind, text: &str) -> DiffLine {
        DiffLine {
            kind,
            old: None,
            new: None,
            text: text.into(),
            html: None,
        }
    }

    /// Kept lines on both sides; a run of removed lines beside the added run after it, the
    /// longer run's rest beside nothing.
    #[test]
    fn removed_runs_sit_beside_the_added_runs_after_them() {
        use LineKind::*;
        let lines = [
            l(Context, "a"),
            l(Removed, "b"),
            l(Removed, "c"),
            l(Added, "B"),
            l(Context, "d"),
            l(Added, "e"),
        ];
        fn text(x: &Option<DiffLine>) -> Option<&str> {
            x.as_ref().map(|l| l.text.as_str())
        }
        let pairs = side_by_side(&lines);
        let rows: Vec<_> = pairs.iter().map(|(o, n)| (text(o), text(n))).collect();
        assert_eq!(
            rows,
            [
                (Some("a"), Some("a")),
                (Some("b"), Some("B")),
                (Some("c"), None),
                (Some("d"), Some("d")),
                (None, Some("e")),
            ]
        );
    }
}
