//! The browser replica: starts from the server-rendered snapshot, follows `GET /api/events`
//! and applies every event with the same reducer the server's store uses, so every tab shows
//! what the server holds.
//!
//! Every message is applied as it arrives (no "latest value" signal that could swallow one);
//! an event already applied is skipped; a gap or a `reset` reloads the snapshot.

use leptos::prelude::*;

use crate::domain::docs::Docs;
use crate::functions::Snapshot;

/// The replica's state, shared through context.
#[derive(Clone, Copy)]
pub struct Live {
    pub docs: RwSignal<Docs>,
    pub last_event_id: RwSignal<u64>,
    /// Whether the event stream is open right now.
    pub connected: RwSignal<bool>,
    pub lead_name: StoredValue<String>,
    pub human_name: StoredValue<String>,
    pub team_label: StoredValue<String>,
    pub simulated: bool,
}

impl Live {
    fn new(s: Snapshot) -> Self {
        Live {
            docs: RwSignal::new(s.docs),
            last_event_id: RwSignal::new(s.last_event_id),
            connected: RwSignal::new(false),
            lead_name: StoredValue::new(s.lead_name),
            human_name: StoredValue::new(s.human_name),
            team_label: StoredValue::new(s.team_label),
            simulated: s.simulated,
        }
    }

    /// Replaces everything with a fresh snapshot (after a `reset`).
    pub fn reload(&self, s: Snapshot) {
        self.docs.set(s.docs);
        self.last_event_id.set(s.last_event_id);
    }
}

/// Creates the replica from `snapshot`, provides it as context and, in the browser, connects it
/// to the event stream.
pub fn provide_live(snapshot: Snapshot) -> Live {
    let live = Live::new(snapshot);
    provide_context(live);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| browser::connect(live));
    live
}

pub fn use_live() -> Live {
    expect_context::<Live>()
}

#[cfg(feature = "hydrate")]
mod browser {
    //! The `EventSource` side, only in the browser.

    use std::cell::RefCell;

    use leptos::prelude::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{EventSource, MessageEvent};

    use super::Live;
    use crate::domain::docs::commit;
    use crate::domain::events::Event;
    use crate::domain::reducer::apply;

    thread_local! {
        static SOURCE: RefCell<Option<EventSource>> = const { RefCell::new(None) };
    }

    /// What to do after one message.
    enum Step {
        Applied,
        Duplicate,
        /// Events are missing: resume from the last applied id.
        Gap,
        Invalid,
    }

    fn on_event(live: Live, data: &str) -> Step {
        let Ok(event) = serde_json::from_str::<Event>(data) else {
            return Step::Invalid;
        };
        let last = live.last_event_id.get_untracked();
        if event.id <= last {
            return Step::Duplicate;
        }
        if event.id != last + 1 {
            return Step::Gap;
        }
        live.docs.update(|docs| {
            let writes = apply(docs, &event);
            commit(docs, writes);
        });
        live.last_event_id.set(event.id);
        Step::Applied
    }

    pub fn connect(live: Live) {
        let after = live.last_event_id.get_untracked();
        let url = format!("/api/events?after={after}");
        let Ok(source) = EventSource::new(&url) else {
            leptos::logging::warn!("cannot open the event stream at {url}");
            return;
        };

        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let Some(data) = e.data().as_string() else {
                return;
            };
            match on_event(live, &data) {
                Step::Applied | Step::Duplicate => {}
                Step::Invalid => leptos::logging::warn!("ignored an unreadable event: {data:.200}"),
                Step::Gap => reconnect(live),
            }
        });
        let on_reset = Closure::<dyn FnMut(MessageEvent)>::new(move |_e: MessageEvent| {
            close();
            reload(live);
        });
        let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| live.connected.set(true));
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            live.connected.set(false);
            // The browser retries by itself (sending Last-Event-ID) unless the stream is closed
            // for good; then reopen it from the last event applied.
            let closed = SOURCE.with(|s| {
                s.borrow()
                    .as_ref()
                    .is_some_and(|s| s.ready_state() == EventSource::CLOSED)
            });
            if closed {
                set_timeout(move || reconnect(live), std::time::Duration::from_secs(1));
            }
        });
        source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let _ = source.add_event_listener_with_callback("reset", on_reset.as_ref().unchecked_ref());
        // The handlers live as long as their EventSource, which may be the whole page.
        on_message.forget();
        on_reset.forget();
        on_open.forget();
        on_error.forget();
        close();
        SOURCE.with(|s| *s.borrow_mut() = Some(source));
    }

    /// Reloads the snapshot, then follows the log from it; a failed reload is tried again (the
    /// tab is disconnected until it succeeds, never for good).
    fn reload(live: Live) {
        leptos::task::spawn_local(async move {
            match crate::functions::get_snapshot().await {
                Ok(s) => {
                    live.reload(s);
                    connect(live);
                }
                Err(e) => {
                    leptos::logging::warn!("reloading the snapshot failed: {e}; trying again");
                    set_timeout(move || reload(live), std::time::Duration::from_secs(1));
                }
            }
        });
    }

    fn reconnect(live: Live) {
        close();
        connect(live);
    }

    fn close() {
        SOURCE.with(|s| {
            if let Some(old) = s.borrow_mut().take() {
                old.set_onmessage(None);
                old.set_onerror(None);
                old.set_onopen(None);
                old.close();
            }
        });
    }
}
