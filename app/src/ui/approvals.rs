//! The one approval queue: every agent's waiting permission requests in one panel, oldest
//! first, each with the agent's face, the tool, its input in a line and how long it has waited,
//! answered with the thread's own Approve / Approve and … / Deny, or from the keyboard: arrows
//! (or j, k) move, `a` approves, `d` denies, and the next request is focused at once. The
//! header counts them. Drawn from the live replica: nothing is fetched, nothing polls.

use std::collections::HashSet;

use leptos::prelude::*;

use super::face::Face;
use super::permission::PermissionCard;
use crate::contract::endpoints as e;
use crate::domain::docs::{identity, waiting};
use crate::domain::escalation::Approver;
use crate::domain::permissions::{input_summary, Decision, PermissionDoc};
use crate::domain::Millis;

/// A waiting request and the face that asks.
#[derive(Clone, Debug, PartialEq)]
struct Queued {
    p: PermissionDoc,
    name: String,
    color: String,
    eyes: String,
    mouth: String,
}

/// How many requests wait, in the header: a link to the queue.
#[component]
pub fn ApprovalCount() -> impl IntoView {
    let live = crate::live::use_live();
    let n = Memo::new(move |_| live.docs.with(|d| waiting(d).len()));
    view! {
        <a class="approvals-count" href="#approvals" class:none=move || n.get() == 0
            data-count=move || n.get().to_string()
            title="Permission requests waiting for your answer"
            on:click=|_| focus_queue()>
            "Approvals " <b>{move || n.get()}</b>
        </a>
    }
}

/// The queue.
#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn ApprovalQueue() -> impl IntoView {
    let live = crate::live::use_live();
    // Answered from here and not yet settled in the replica: out of the queue at once.
    let sent = RwSignal::new(HashSet::<String>::new());
    let error = RwSignal::new(None::<String>);
    let queue = Memo::new(move |_| {
        let sent = sent.get();
        live.docs.with(|d| {
            waiting(d)
                .into_iter()
                .filter(|p| !sent.contains(&p.request_id))
                .map(|p| {
                    let who = identity(d, p.seat).filter(|w| {
                        p.identity_id.is_none() || p.identity_id == Some(w.stable_id())
                    });
                    let face = who.and_then(|w| w.face_variant.clone()).unwrap_or_default();
                    Queued {
                        p: p.clone(),
                        name: who
                            .and_then(|w| w.name.clone())
                            .unwrap_or_else(|| format!("Seat {}", p.seat + 1)),
                        color: who.and_then(|w| w.color.clone()).unwrap_or_default(),
                        eyes: face.eyes,
                        mouth: face.mouth,
                    }
                })
                .collect::<Vec<_>>()
        })
    });
    // The focused request, by id: what the key answers is the request the human sees focused.
    // `at` remembers its place, so that when it leaves the queue its neighbour takes it.
    let chosen = RwSignal::new(None::<String>);
    let at = RwSignal::new(0usize);
    let focused = Memo::new(move |_| {
        queue.with(|q| {
            let id = chosen.get();
            match q.iter().position(|x| Some(&x.p.request_id) == id.as_ref()) {
                Some(_) => id,
                None => q
                    .get(at.get_untracked().min(q.len().saturating_sub(1)))
                    .map(|x| x.p.request_id.clone()),
            }
        })
    });
    // Focus follows only while the human works in the queue (it is never taken from elsewhere).
    let engaged = RwSignal::new(false);
    Effect::new(move |_| {
        if let Some(id) = focused.get() {
            if engaged.get_untracked() {
                focus_item(&id);
            }
        }
    });
    let choose = move |id: Option<String>| {
        let place = queue.with_untracked(|q| {
            id.as_ref()
                .and_then(|id| q.iter().position(|x| &x.p.request_id == id))
        });
        if let Some(i) = place {
            at.set(i);
        }
        chosen.set(id);
    };
    let now = clock(queue);
    let answer = move |decision: Decision| {
        let Some(id) = focused.get_untracked() else {
            return;
        };
        let Some(q) = queue.with_untracked(|q| q.iter().find(|x| x.p.request_id == id).cloned())
        else {
            return;
        };
        // Its neighbour takes the focus: the next one, or the one before at the end.
        let next = queue.with_untracked(|q| {
            let i = q.iter().position(|x| x.p.request_id == id)?;
            q.get(i + 1)
                .or_else(|| i.checked_sub(1).and_then(|j| q.get(j)))
                .map(|x| x.p.request_id.clone())
        });
        choose(next);
        sent.update(|s| {
            s.insert(id.clone());
        });
        error.set(None);
        leptos::task::spawn_local(async move {
            let body = crate::contract::PermissionAnswer {
                decision,
                message: None,
                suggestion: None,
            };
            if let Err(e) = crate::api::call::<e::AnswerPermission>(&id, &body).await {
                sent.update(|s| {
                    s.remove(&id);
                });
                error.set(Some(format!("{}: {e}", q.name)));
            }
        });
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if typing(&ev) || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let ids: Vec<String> =
            queue.with_untracked(|q| q.iter().map(|x| x.p.request_id.clone()).collect());
        let here = focused
            .get_untracked()
            .and_then(|id| ids.iter().position(|x| *x == id))
            .unwrap_or(0);
        let to = |i: usize| ids.get(i).cloned();
        match ev.key().as_str() {
            "ArrowDown" | "j" => choose(to((here + 1).min(ids.len().saturating_sub(1)))),
            "ArrowUp" | "k" => choose(to(here.saturating_sub(1))),
            "Home" => choose(to(0)),
            "End" => choose(to(ids.len().saturating_sub(1))),
            // A key held down answers once, not every request under it.
            "a" | "d" if ev.repeat() => {}
            "a" => answer(Decision::Allow),
            "d" => answer(Decision::Deny),
            _ => return,
        }
        engaged.set(true);
        ev.prevent_default();
    };
    view! {
        <section class="panel approvals" aria-labelledby="approvals-title">
            <h2 id="approvals-title">
                "Approvals "
                <span class="count">{move || queue.with(Vec::len)}</span>
            </h2>
            {move || queue.with(Vec::is_empty).then(|| view! {
                <p class="muted">"Nothing waits for your answer."</p>
            })}
            <p class="keys muted">"Keys: ↑ ↓ move · a approve · d deny"</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <ol id="approvals" class="approval-queue" aria-label="Waiting permission requests, oldest first"
                on:keydown=on_key
                on:focusin=move |_| engaged.set(true)
                on:focusout=move |ev| engaged.set(stays_inside(&ev))>
                // Keyed by who it is with too: a request handed to the human is drawn again.
                <For each=move || queue.get() key=|x| format!("{}|{:?}|{:?}", x.p.request_id, x.p.with, x.p.routed_why) children=move |x| {
                    let id = x.p.request_id.clone();
                    // Chosen by id (the list moves under it as others are answered).
                    let pick = {
                        let id = id.clone();
                        move |_| choose(Some(id.clone()))
                    };
                    let is_focused = {
                        let id = id.clone();
                        Memo::new(move |_| focused.with(|f| f.as_deref() == Some(id.as_str())))
                    };
                    let created = x.p.created_at;
                    let waited = move || now.get().map(|n| waited_for(n - created));
                    view! {
                        <li class="queued" class:focused=move || is_focused.get()
                            data-request-id=id.clone()
                            tabindex=move || if is_focused.get() { "0" } else { "-1" }
                            on:click=pick>
                            <div class="queued-head">
                                <span class="queued-face">
                                    <Face color=x.color.clone() eyes_kind=x.eyes.clone() mouth_kind=x.mouth.clone()/>
                                </span>
                                <span class="queued-who">{x.name.clone()}</span>
                                <strong class="queued-tool">{x.p.tool_name.clone()}</strong>
                                <code class="queued-summary">{input_summary(&x.p.input)}</code>
                                {(x.p.with == Some(Approver::Lead)).then(|| view! {
                                    <span class="queued-with" title="The lead decides it first; you may answer it now">"with the lead"</span>
                                })}
                                {x.p.routed_why.clone().map(|why| view! { <span class="queued-why">{why}</span> })}
                                <span class="queued-waited">
                                    {move || waited().map(|w| format!("waited {w}"))}
                                </span>
                            </div>
                            <ul class="queued-card">
                                <PermissionCard p=x.p.clone() who=x.name.clone()/>
                            </ul>
                        </li>
                    }
                }/>
            </ol>
        </section>
    }
}

/// "12 s", "3 min", "1 h 05 min".
fn waited_for(ms: Millis) -> String {
    let s = (ms / 1000).max(0);
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s / 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// The time now, each second while anything waits (`None` on the server and with nothing in
/// the queue: no timer runs then).
fn clock(queue: Memo<Vec<Queued>>) -> RwSignal<Option<Millis>> {
    let now = RwSignal::new(None::<Millis>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if queue.with(Vec::is_empty) {
            return;
        }
        let tick = move || now.set(Some(js_sys::Date::now() as Millis));
        tick();
        if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(1)) {
            on_cleanup(move || handle.clear());
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = queue;
    now
}

/// Whether the focus, leaving an element of the queue, goes to another of its elements.
fn stays_inside(ev: &leptos::ev::FocusEvent) -> bool {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let list = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok());
        let to = ev
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok());
        matches!((list, to), (Some(list), Some(to)) if list.contains(Some(&to)))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = ev;
        false
    }
}

/// Whether a key goes to a text field (a deny reason) rather than to the queue.
fn typing(ev: &leptos::ev::KeyboardEvent) -> bool {
    #[cfg(feature = "hydrate")]
    {
        ev.target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT"))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = ev;
        false
    }
}

fn focus_item(id: &str) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let item = document()
            .query_selector(&format!(
                ".approval-queue .queued[data-request-id=\"{}\"]",
                id.replace(['"', '\\'], "")
            ))
            .ok()
            .flatten()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = item {
            let _ = el.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
}

/// Puts the focus on the queue's focused request (from the header's count).
fn focus_queue() {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let item = document()
            .query_selector(".approval-queue .queued.focused")
            .ok()
            .flatten()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = item {
            let _ = el.focus();
        }
    }
}
