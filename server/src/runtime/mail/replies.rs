//! Files what agents say in the human's inbox: a projection that follows the store (like the
//! `_state.md` writer), off every process's stdout loop. The store is the record; the inbox
//! holds the replies as read (the UI has them from their events), bounded like every inbox.

use app::domain::events::{Event, EventKind};

use crate::runtime::background;
use crate::runtime::Runtime;
use crate::store::{Batch, StoreError, PAGE};

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

impl Runtime {
    /// Starts the task that files agents' words in the human's inbox; it ends with the server.
    pub fn file_replies(&self) {
        let rt = self.clone();
        let mut follow = self.store().follow(self.store().last_event_id());
        let shutdown = self.shutdown_token();
        tokio::spawn(async move {
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
        let (mailboxes, human) = (self.mailboxes().clone(), self.human_inbox());
        let filed = self
            .inner
            .background
            .run(move || mailboxes.file_read(&human, &replies))
            .await;
        if let Some(Err(e)) = filed {
            tracing::warn!(error = %e, "could not file replies in the human's inbox");
        }
    }
}
