//! A conversation thread: the messages of one seat, oldest first. Agents' text is rendered as
//! sanitised Markdown; the human's is shown as typed. Mail that waits for a sleeping agent is
//! marked queued. The view stays at the bottom unless the human scrolled up.

use leptos::html::Section;
use leptos::prelude::*;

use crate::domain::docs::{identity, thread, SpeakerType};
use crate::domain::status::AgentStatus;
use crate::domain::{markdown, time, Seat};
use crate::live::use_live;

#[derive(Clone, PartialEq)]
struct Line {
    id: String,
    who: String,
    kind: SpeakerType,
    text: String,
    at: i64,
    queued: bool,
}

#[component]
pub fn Thread(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let lines = Memo::new(move |_| {
        let seat = seat.get();
        live.docs.with(|docs| {
            // Written after the agent was last alive, while it sleeps: not delivered yet.
            let asleep_since = identity(docs, seat)
                .filter(|d| d.status() == AgentStatus::Sleeping)
                .map(|d| d.last_alive_at.unwrap_or(0));
            thread(docs, seat)
                .into_iter()
                .map(|m| Line {
                    id: m.id.clone(),
                    who: m.speaker_name.clone(),
                    kind: m.speaker_type,
                    text: m.text.clone(),
                    at: m.created_at,
                    queued: m.speaker_type == SpeakerType::Human
                        && asleep_since.is_some_and(|since| m.created_at > since),
                })
                .collect::<Vec<_>>()
        })
    });
    let title = move || {
        let s = seat.get();
        live.docs
            .with(|d| identity(d, s).and_then(|i| i.name.clone()))
            .unwrap_or_else(|| live.lead_name.get_value())
    };
    let panel = NodeRef::<Section>::new();
    let stick = RwSignal::new(true);
    Effect::new(move |_| {
        let _ = lines.with(Vec::len);
        let _ = seat.get();
        if stick.get_untracked() {
            if let Some(el) = panel.get_untracked() {
                el.set_scroll_top(el.scroll_height());
            }
        }
    });
    view! {
        <section
            class="thread-panel"
            aria-label="Conversation"
            node_ref=panel
            on:scroll=move |_| {
                if let Some(el) = panel.get_untracked() {
                    stick.set(el.scroll_height() - el.scroll_top() - el.client_height() < 80);
                }
            }
        >
            <h2 class="thread-title">{title}</h2>
            <ol class="thread" aria-live="polite">
                <For
                    each=move || lines.get()
                    key=|line| line.id.clone()
                    children=|line| {
                        let kind = match line.kind {
                            SpeakerType::Human => "human",
                            SpeakerType::Lead => "lead",
                            SpeakerType::Agent => "agent",
                        };
                        let body = if line.kind == SpeakerType::Human {
                            view! { <div class="text plain">{line.text.clone()}</div> }.into_any()
                        } else {
                            view! { <div class="text md" inner_html=markdown::render(&line.text)></div> }.into_any()
                        };
                        view! {
                            <li class="msg" class:queued=line.queued data-speaker-type=kind data-message-id=line.id.clone()>
                                <div class="meta">
                                    <span class="who">{line.who.clone()}</span>
                                    <time datetime=time::iso(line.at)>{time::clock(line.at)}</time>
                                    {line.queued.then(|| view! { <span class="queued-note">"queued until wake"</span> })}
                                </div>
                                {body}
                            </li>
                        }
                    }
                />
            </ol>
        </section>
    }
}
