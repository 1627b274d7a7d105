//! Files what agents say in the human's inbox: a projection that follows the store (like the
//! `_state.md` writer), off every process's stdout loop. The store is the record; the inbox
//! holds the replies as read (the UI has them from their events), bounded like every inbox.

use std::sync::Arc;

use app::domain::events::{Event, EventKind};
use tokio::sync::broadcast::error::RecvError;

use super::{background, Runtime};
use crate::store::Committed;

/// Most events read from the store at once when catching up.
const PAGE: usize = 10_000;

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
        let mut live = self.store().subscribe();
        let shutdown = self.shutdown_token();
        let mut after = self.store().last_event_id();
        tokio::spawn(async move {
            let mut written: Option<tokio::time::Instant> = None;
            loop {
                let first = tokio::select! {
                    _ = shutdown.cancelled() => return,
                    r = live.recv() => r,
                };
                let mut lagged = false;
                let mut burst: Vec<Arc<Committed>> = Vec::new();
                match first {
                    Ok(c) => burst.push(c),
                    Err(RecvError::Lagged(_)) => lagged = true,
                    Err(RecvError::Closed) => return,
                }
                // One write an interval at most: what is said meanwhile is filed with it.
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = background::after_interval(written) => {}
                }
                match background::drain(&mut live, |c| burst.push(c)) {
                    Some(fell_behind) => lagged |= fell_behind,
                    None => return,
                }
                let events: Vec<Event> = match lagged {
                    // Fell behind the live stream: what it missed is read from the store.
                    true => rt.events_since(after).await,
                    false => burst.iter().map(|c| c.event.clone()).collect(),
                };
                let new: Vec<&Event> = events.iter().filter(|e| e.id > after).collect();
                let Some(last) = new.last().map(|e| e.id) else {
                    continue;
                };
                after = last;
                let replies: Vec<(String, String)> = new
                    .iter()
                    .filter_map(|e| said(&e.kind))
                    .map(|(from, text)| (from.to_string(), text.to_string()))
                    .collect();
                rt.file(replies).await;
                written = Some(tokio::time::Instant::now());
            }
        });
    }

    /// Every stored event after `after`, page by page.
    async fn events_since(&self, mut after: u64) -> Vec<Event> {
        let mut all = Vec::new();
        loop {
            match self.store().events_after(after, PAGE).await {
                Ok(page) => {
                    let full = page.len() == PAGE;
                    after = page.last().map_or(after, |e| e.id);
                    all.extend(page);
                    if !full {
                        return all;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "reading events to file replies failed");
                    return all;
                }
            }
        }
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
