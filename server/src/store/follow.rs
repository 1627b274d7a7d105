//! One way to follow the log: [`Store::follow`](super::Store::follow) hands out every committed
//! event after a given id, in order, each once: read from the store while the follower is
//! behind (at first, and whenever it fell behind the live stream or saw a gap in it), then
//! live. Every follower of the log uses it: the event streams (SSE), the human's inbox, the
//! state files and the quest watch.

use std::sync::Arc;

use app::domain::events::Event;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::{Committed, Store, StoreError};

/// Events handed out together: as stored (their JSON, read back while catching up) or as they
/// were committed (live, shared with every other follower).
#[derive(Debug)]
pub enum Batch {
    Stored(Vec<(u64, String)>),
    Live(Vec<Arc<Committed>>),
}

impl Batch {
    pub fn len(&self) -> usize {
        match self {
            Batch::Stored(v) => v.len(),
            Batch::Live(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids, in order.
    pub fn ids(&self) -> Vec<u64> {
        match self {
            Batch::Stored(v) => v.iter().map(|(id, _)| *id).collect(),
            Batch::Live(v) => v.iter().map(|c| c.event.id).collect(),
        }
    }

    /// The events (those read back from the store parsed; one that does not parse, which the
    /// store never writes, is logged and left out).
    pub fn events(&self) -> Vec<Event> {
        match self {
            Batch::Live(v) => v.iter().map(|c| c.event.clone()).collect(),
            Batch::Stored(v) => v
                .iter()
                .filter_map(|(id, json)| match serde_json::from_str(json) {
                    Ok(e) => Some(e),
                    Err(e) => {
                        tracing::error!(id, error = %e, "a stored event does not parse");
                        None
                    }
                })
                .collect(),
        }
    }
}

impl Store {
    /// Runs `each` on every batch of events committed from now on, in order, on a task of its
    /// own, until `stop` (or the store closes); a batch that cannot be read is logged with
    /// `what` and skipped. For the watchers that act on what the log says (notifications, a
    /// watch link's revocation).
    pub fn on_each_batch(
        &self,
        (stop, tasks): (tokio_util::sync::CancellationToken, &crate::tasks::Tasks),
        what: &'static str,
        mut each: impl FnMut(&Batch) + Send + 'static,
    ) {
        let mut follow = self.follow(self.last_event_id());
        tasks.spawn(async move {
            loop {
                let batch = tokio::select! {
                    _ = stop.cancelled() => return,
                    b = follow.next(256) => b,
                };
                match batch {
                    Some(Ok(batch)) => each(&batch),
                    Some(Err(e)) => tracing::warn!(error = %e, "{what} could not read the log"),
                    None => return,
                }
            }
        });
    }
}

/// A follower's place in the log. Made by [`Store::follow`](super::Store::follow).
pub struct Follow {
    store: Store,
    live: broadcast::Receiver<Arc<Committed>>,
    /// The id of the last event handed out.
    after: u64,
    /// Read from the store until its tail before taking live events again.
    behind: bool,
    /// Times this follower fell behind the live stream (or saw a gap in it) and was caught up
    /// from the store.
    caught_up: u64,
    /// Most events one read of the store hands out.
    page: usize,
}

/// Most events one read of the store hands out, unless the follower asks otherwise.
pub const PAGE: usize = 1000;

impl Follow {
    /// Subscribes first, then reads the store from `after`: an event committed in between is
    /// in one or the other, and one in both is handed out once.
    pub(super) fn new(store: Store, after: u64) -> Self {
        Follow {
            live: store.live.subscribe(),
            store,
            after,
            behind: true,
            caught_up: 0,
            page: PAGE,
        }
    }

    /// Reads of the store hand out at most `page` events.
    pub fn with_page(mut self, page: usize) -> Self {
        self.page = page.max(1);
        self
    }

    /// The id of the last event handed out.
    pub fn after(&self) -> u64 {
        self.after
    }

    /// How many times this follower fell behind the live stream and was caught up from the
    /// store.
    pub fn caught_up(&self) -> u64 {
        self.caught_up
    }

    /// The next events: waits for one. Read from the store, a page of them; live, at most
    /// `max` (those ready at once). `None` once the store is closed.
    /// Cancel-safe: a call dropped while it waits hands nothing out and loses nothing.
    pub async fn next(&mut self, max: usize) -> Option<Result<Batch, StoreError>> {
        let max = max.max(1);
        loop {
            if self.behind {
                match self.read_stored().await {
                    Ok(b) if b.is_empty() => continue,
                    r => return Some(r),
                }
            }
            let first = match self.live.recv().await {
                Ok(c) => c,
                Err(RecvError::Lagged(_)) => {
                    self.fell_behind();
                    continue;
                }
                Err(RecvError::Closed) => return None,
            };
            let mut batch = Vec::new();
            if self.take_live(first, &mut batch) {
                self.more(&mut batch, max);
            }
            if !batch.is_empty() {
                return Some(Ok(Batch::Live(batch)));
            }
        }
    }

    /// The events ready now, without waiting for new ones: while behind, a page of those the
    /// store has; else at most `max` live ones. `None`: nothing is ready.
    pub async fn ready(&mut self, max: usize) -> Option<Result<Batch, StoreError>> {
        let max = max.max(1);
        if self.behind {
            return match self.read_stored().await {
                Ok(b) if b.is_empty() => None,
                r => Some(r),
            };
        }
        let mut batch = Vec::new();
        self.more(&mut batch, max);
        (!batch.is_empty()).then_some(Ok(Batch::Live(batch)))
    }

    /// Adds to `batch` the live events ready now that follow it, until it holds `max`; stops
    /// at a gap or a lag (the store fills it at the next call).
    pub fn more(&mut self, batch: &mut Vec<Arc<Committed>>, max: usize) {
        while batch.len() < max && !self.behind {
            match self.live.try_recv() {
                Ok(c) => {
                    self.take_live(c, batch);
                }
                Err(TryRecvError::Lagged(_)) => self.fell_behind(),
                Err(TryRecvError::Empty | TryRecvError::Closed) => return,
            }
        }
    }

    /// Takes `c` if it is the next event; skips one handed out already; a gap puts the
    /// follower behind. True if it was taken.
    fn take_live(&mut self, c: Arc<Committed>, batch: &mut Vec<Arc<Committed>>) -> bool {
        let id = c.event.id;
        if id <= self.after {
            return false;
        }
        if id != self.after + 1 {
            self.fell_behind();
            return false;
        }
        self.after = id;
        batch.push(c);
        true
    }

    fn fell_behind(&mut self) {
        self.behind = true;
        self.caught_up += 1;
    }

    /// A page of the stored events after `after`; a short page is the tail of the log when it
    /// was read, so what follows is live.
    async fn read_stored(&mut self) -> Result<Batch, StoreError> {
        let page = self.store.raw_events_after(self.after, self.page).await?;
        if page.len() < self.page {
            self.behind = false;
        }
        if let Some(&(last, _)) = page.last() {
            self.after = last;
        }
        Ok(Batch::Stored(page))
    }
}
