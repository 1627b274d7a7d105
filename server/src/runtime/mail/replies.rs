//! Files what agents say in the human's inbox: a projection that follows the store (like the
//! `_state.md` writer), off every process's stdout loop. The store is the record; the inbox
//! holds the replies as read (the UI has them from their events), bounded like every inbox.

use app::domain::events::{Event, EventKind};

use tokio_util::sync::CancellationToken;

use crate::mailbox::Mailboxes;
use crate::runtime::background::{self, Background};
use crate::store::{Batch, Store, StoreError, PAGE};

/// Who said what, if the event is an agent's (or the lead's) own words.
fn said(kind: &EventKind) -> Option<(&str, &str)> {
    match kind {
        EventKind::AgentMessage {
            speaker_name,
            text,
            target_agent: None,
            ..
        }
        | EventKind::LeadText {
            speaker_name, text, ..
        } => Some((speaker_name, text)),
        _ => None,
    }
}

/// The filer of replies: what it follows and where it files.
pub(in crate::runtime) struct Replies {
    pub store: Store,
    pub mailboxes: Mailboxes,
    /// The human's inbox.
    pub human: String,
    pub background: Background,
    pub shutdown: CancellationToken,
    /// Where its task is spawned, owned (`crate::tasks`).
    pub tasks: crate::tasks::Tasks,
}

impl Replies {
    pub fn new(ctx: &crate::runtime::context::Context, background: Background) -> Self {
        Replies {
            store: ctx.store().clone(),
            mailboxes: ctx.mailboxes().clone(),
            human: ctx.human_inbox(),
            background,
            shutdown: ctx.shutdown_token(),
            tasks: ctx.tasks().clone(),
        }
    }

    /// Starts the task that files agents' words in the human's inbox; it ends with the server.
    pub fn start(self) {
        let rt = self;
        let mut follow = rt.store.follow(rt.store.last_event_id());
        let shutdown = rt.shutdown.clone();
        rt.tasks.clone().spawn(async move {
            let mut written: Option<tokio::time::Instant> = None;
            loop {
                let first = tokio::select! {
                    _ = shutdown.cancelled() => return,
                    r = follow.next(PAGE) => r,
                };
                let Some(first) = first else { return };
                let mut events: Vec<Event> = Vec::new();
                let mut take = |r: Result<Batch, StoreError>| match r {
                    Ok(batch) => {
                        events.extend(batch.events());
                        true
                    }
                    // Read again at the next turn (after the interval).
                    Err(e) => {
                        tracing::warn!(error = %e, "reading events to file replies failed");
                        false
                    }
                };
                let mut more = take(first);
                // One write an interval at most: what is said meanwhile is filed with it.
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = background::after_interval(written) => {}
                }
                while more {
                    match follow.ready(PAGE).await {
                        Some(r) => more = take(r),
                        None => break,
                    }
                }
                let replies: Vec<(String, String)> = events
                    .iter()
                    .filter_map(|e| said(&e.kind))
                    .map(|(from, text)| (from.to_string(), text.to_string()))
                    .collect();
                rt.file(replies).await;
                written = Some(tokio::time::Instant::now());
            }
        });
    }

    async fn file(&self, replies: Vec<(String, String)>) {
        if replies.is_empty() {
            return;
        }
        let (mailboxes, human) = (self.mailboxes.clone(), self.human.clone());
        let filed = self
            .background
            .run(move || mailboxes.file_read(&human, &replies))
            .await;
        if let Some(Err(e)) = filed {
            tracing::warn!(error = %e, "could not file replies in the human's inbox");
        }
    }
}
