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
    view! {
        <section class="thread-panel" aria-label="Conversation">
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
