//! The browser replica: starts from the server-rendered snapshot, follows `GET /api/events`
//! and applies every event with the same reducer the server's store uses, so every tab shows
//! what the server holds.
//!
//! Every message is applied as it arrives (no "latest value" signal that could swallow one);
//! an event already applied is skipped; a gap or a `reset` reloads the snapshot.

use leptos::prelude::*;

use crate::domain::docs::page::{missing, oldest_held, Older};
use crate::domain::docs::{Doc, Docs};
use crate::functions::Snapshot;

/// The replica's state, shared through context.
#[derive(Clone, Copy)]
pub struct Live {
    pub docs: RwSignal<Docs>,
    /// How many older messages each thread's owner has that `docs` does not hold yet.
    pub older: RwSignal<Older>,
    pub last_event_id: RwSignal<u64>,
    /// Whether the event stream is open right now.
    pub connected: RwSignal<bool>,
    /// The server said it is shutting down (`event: closing`): it takes nothing new.
    pub closing: RwSignal<bool>,
    pub lead_name: StoredValue<String>,
    pub human_name: StoredValue<String>,
    pub team_label: StoredValue<String>,
    pub simulated: bool,
    /// Why agents run without a sandbox, if they do.
    pub unsandboxed: StoredValue<Option<String>>,
    /// Time travel: the event these documents are after (they do not follow the stream).
    pub at: Option<u64>,
    /// Time travel: when that was. What ran then is counted to this moment, never to now.
    pub at_ts: Option<crate::domain::Millis>,
    /// The identity whose whole history the documents hold (its page), asked for again on a
    /// reload.
    pub agent: StoredValue<Option<String>>,
    /// The log's line of time, extended by each event (time travel's slider).
    pub timeline: RwSignal<Option<crate::domain::moment::Timeline>>,
    /// A spectator's page: the watch token its stream is opened with.
    pub watch: StoredValue<Option<String>>,
    /// Who wrote to whom in the events that just arrived (the grid's lines), each under a key
    /// that only grows; the view takes each down when its time is up.
    pub talk: RwSignal<Vec<(u64, crate::domain::talk::Pair)>>,
    talk_next: StoredValue<u64>,
}

/// Lines lit at once, at most (a burst of posts lights the newest).
const MAX_LIT: usize = 32;

impl Live {
    /// A spectator's page (a watch link's): it shows the team and offers nothing to do.
    pub fn spectating(&self) -> bool {
        self.watch.with_value(Option::is_some)
    }

    fn new(s: Snapshot) -> Self {
        Live {
            docs: RwSignal::new(s.docs),
            older: RwSignal::new(s.older),
            last_event_id: RwSignal::new(s.last_event_id),
            connected: RwSignal::new(false),
            closing: RwSignal::new(false),
            lead_name: StoredValue::new(s.lead_name),
            human_name: StoredValue::new(s.human_name),
            team_label: StoredValue::new(s.team_label),
            simulated: s.simulated,
            unsandboxed: StoredValue::new(s.unsandboxed),
            at: s.at.as_ref().map(|m| m.event_id),
            at_ts: s.at.as_ref().map(|m| m.ts),
            agent: StoredValue::new(s.agent),
            timeline: RwSignal::new(s.timeline),
            watch: StoredValue::new(s.watch),
            talk: RwSignal::new(Vec::new()),
            talk_next: StoredValue::new(0),
        }
    }

    /// Lights the pairs `event` joins (writer → reader).
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn light(&self, event: &crate::domain::events::EventKind) {
        let pairs = crate::domain::talk::of_event(event);
        if pairs.is_empty() {
            return;
        }
        let next = self.talk_next;
        self.talk.update(|lit| {
            for p in pairs {
                next.update_value(|n| *n += 1);
                lit.push((next.get_value(), p));
            }
            let over = lit.len().saturating_sub(MAX_LIT);
            lit.drain(..over);
        });
    }

    /// Replaces everything with a fresh snapshot (after a `reset`).
    pub fn reload(&self, s: Snapshot) {
        self.docs.set(s.docs);
        self.older.set(s.older);
        self.last_event_id.set(s.last_event_id);
        self.timeline.set(s.timeline);
    }

    /// How many of the messages of `owners` the replica does not hold.
    pub fn older_of(&self, owners: &[String]) -> usize {
        self.older.with(|o| missing(o, owners))
    }

    /// Fetches the page before the oldest message held of each of `owners` that has older ones,
    /// and adds it to the documents.
    pub async fn load_older(self, owners: Vec<String>) -> Result<(), String> {
        for owner in owners {
            if self
                .older
                .with_untracked(|o| o.get(&owner).copied().unwrap_or(0))
                == 0
            {
                continue;
            }
            let before = self.docs.with_untracked(|d| oldest_held(d, &owner));
            let page = crate::functions::get_older(owner.clone(), before.0, before.1, self.at)
                .await
                .map_err(|e| e.to_string())?;
            self.docs.update(|d| {
                for m in page.messages {
                    d.entry(m.id.clone()).or_insert(Doc::Message(m));
                }
            });
            self.older.update(|o| {
                if page.left == 0 {
                    o.remove(&owner);
                } else {
                    o.insert(owner, page.left);
                }
            });
        }
        Ok(())
    }
}

/// Creates the replica from `snapshot`, provides it as context and, in the browser, connects it
/// to the event stream.
pub fn provide_live(snapshot: Snapshot) -> Live {
    // The past (time travel) stays as it was: it does not follow the stream.
    let past = snapshot.at.is_some();
    let live = Live::new(snapshot);
    provide_context(live);
    #[cfg(feature = "hydrate")]
    if !past {
        Effect::new(move |_| browser::connect(live));
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = past;
    live
}

pub fn use_live() -> Live {
    expect_context::<Live>()
}

#[cfg(feature = "hydrate")]
mod browser {
    //! The `EventSource` side, only in the browser (through `gloo-net`).

    use std::cell::RefCell;

    use futures::channel::oneshot;
    use futures::stream::{select_all, StreamExt};
    use gloo_net::eventsource::futures::EventSource;
    use leptos::prelude::*;

    use super::Live;
    use crate::domain::docs::commit;
    use crate::domain::events::Event;
    use crate::domain::reducer::apply;

    /// The open stream, and what stops the task that reads it.
    struct Open {
        source: EventSource,
        stop: oneshot::Sender<()>,
    }

    thread_local! {
        static SOURCE: RefCell<Option<Open>> = const { RefCell::new(None) };
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
        live.timeline
            .update(|line| crate::domain::moment::extend(line, &event));
        live.light(&event.kind);
        Step::Applied
    }

    pub fn connect(live: Live) {
        // A retry for a page that is gone meanwhile opens nothing.
        if live.last_event_id.is_disposed() {
            return;
        }
        let after = live.last_event_id.get_untracked();
        let mut url =
            <crate::contract::endpoints::Events as crate::contract::endpoints::Endpoint>::path(
                &crate::contract::endpoints::After { after: Some(after) },
            );
        // A spectator's stream is opened with its watch link.
        if let Some(token) = live.watch.get_value() {
            url.push_str(&format!("&watch={token}"));
        }
        let mut source = match EventSource::new(&url) {
            Ok(s) => s,
            Err(e) => {
                leptos::logging::warn!("cannot open the event stream at {url}: {e}");
                return;
            }
        };
        // Every kind of event the stream sends, as one stream of (type, event). `open` and
        // `error` are subscribed to by name, so each one arrives, also while the browser is
        // reconnecting by itself.
        let subscriptions: Result<Vec<_>, _> = ["message", "reset", "open", "error", "closing"]
            .into_iter()
            .map(|kind| source.subscribe(kind))
            .collect();
        let mut events = match subscriptions {
            Ok(s) => select_all(s),
            Err(e) => {
                leptos::logging::warn!("cannot follow the event stream: {e}");
                return;
            }
        };
        let (stop, mut stopped) = oneshot::channel::<()>();
        close();
        SOURCE.with(|s| *s.borrow_mut() = Some(Open { source, stop }));
        leptos::task::spawn_local(async move {
            loop {
                let next = futures::future::select(events.next(), &mut stopped).await;
                let item = match next {
                    futures::future::Either::Left((Some(item), _)) => item,
                    // Closed by us (a newer stream took over), or the stream ended.
                    _ => return,
                };
                // The page this stream fed is gone (navigated away before a newer stream took
                // over): its documents are disposed, and nothing is left to apply to.
                if live.last_event_id.is_disposed() {
                    return;
                }
                // gloo's own report of a closed stream (`Err`) is handled with the `error` event.
                let Ok((kind, e)) = item else { continue };
                match kind.as_str() {
                    "message" => {
                        let Some(data) = e.data().as_string() else {
                            continue;
                        };
                        match on_event(live, &data) {
                            Step::Applied | Step::Duplicate => {}
                            Step::Invalid => {
                                leptos::logging::warn!("ignored an unreadable event: {data:.200}")
                            }
                            Step::Gap => return reconnect(live),
                        }
                    }
                    "reset" => {
                        close();
                        return reload(live);
                    }
                    "open" => {
                        live.connected.set(true);
                        // A stream that opens is a server that takes work (a new one, after a
                        // restart).
                        live.closing.set(false);
                    }
                    "closing" => live.closing.set(true),
                    _ => {
                        live.connected.set(false);
                        // The browser retries by itself (sending Last-Event-ID) unless the
                        // stream is closed for good; then reopen it from the last event.
                        if is_closed() {
                            set_timeout(move || reconnect(live), std::time::Duration::from_secs(1));
                            return;
                        }
                    }
                }
            }
        });
    }

    fn is_closed() -> bool {
        use gloo_net::eventsource::State;
        SOURCE.with(|s| {
            s.borrow()
                .as_ref()
                .is_some_and(|o| matches!(o.source.state(), State::Closed))
        })
    }

    /// Reloads the snapshot, then follows the log from it; a failed reload is tried again (the
    /// tab is disconnected until it succeeds, never for good).
    fn reload(live: Live) {
        if live.docs.is_disposed() {
            return;
        }
        // Read now: the task below may run after the page is gone.
        let agent = live.agent.get_value();
        let watch = live.watch.get_value();
        leptos::task::spawn_local(async move {
            // A spectator's page reloads as a spectator (never the team's own documents).
            let snapshot = match watch {
                Some(token) => crate::functions::get_watch_snapshot(token).await,
                None => crate::functions::get_snapshot(agent).await,
            };
            match snapshot {
                Ok(s) if !live.docs.is_disposed() => {
                    live.reload(s);
                    connect(live);
                }
                Ok(_) => {}
                Err(e) => {
                    leptos::logging::warn!("reloading the snapshot failed: {e}; trying again");
                    set_timeout(move || reload(live), std::time::Duration::from_secs(1));
                }
            }
        });
    }

    fn reconnect(live: Live) {
        // Its page is gone: the open stream (a newer page's, if any) is not this one's to close.
        if live.last_event_id.is_disposed() {
            return;
        }
        close();
        connect(live);
    }

    /// Closes the open stream and ends the task reading it.
    fn close() {
        if let Some(open) = SOURCE.with(|s| s.borrow_mut().take()) {
            let _ = open.stop.send(());
            open.source.close();
        }
    }
}
