//! A conversation thread: the messages of one seat, oldest first.

use leptos::prelude::*;

use crate::domain::docs::{thread, SpeakerType};
use crate::domain::Seat;
use crate::live::use_live;

#[component]
pub fn Thread(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let messages = move || {
        live.docs.with(|docs| {
            thread(docs, seat.get())
                .into_iter()
                .map(|m| {
                    (
                        m.id.clone(),
                        m.speaker_name.clone(),
                        m.speaker_type,
                        m.text.clone(),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let title = move || {
        let s = seat.get();
        live.docs
            .with(|d| crate::domain::docs::identity(d, s).and_then(|i| i.name.clone()))
            .unwrap_or_else(|| live.lead_name.get_value())
    };
    view! {
        <section class="thread-panel" aria-label="Conversation">
            <h2 class="thread-title">{title}</h2>
            <ol class="thread" aria-live="polite">
                <For
                    each=messages
                    key=|(id, ..)| id.clone()
                    children=|(id, who, kind, text)| {
                        let kind = match kind {
                            SpeakerType::Human => "human",
                            SpeakerType::Lead => "lead",
                            SpeakerType::Agent => "agent",
                        };
                        view! {
                            <li class="msg" data-speaker-type=kind data-message-id=id>
                                <span class="who">{who}</span>
                                <span class="text">{text}</span>
                            </li>
                        }
                    }
                />
            </ol>
        </section>
    }
}
