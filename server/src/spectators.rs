//! Who watches through a watch link (the HTTP side is `http/spectators.rs`): whether a token is a
//! valid link's, the request a link made (an extension the handlers read), when each link was
//! last used, and what ends a link's streams when it is revoked. Below the state and the
//! router, so both name it and neither names the other through it.

use std::collections::HashMap;
use std::sync::Mutex;

use app::domain::docs::{watch_doc_id, Doc};
use tokio_util::sync::CancellationToken;

use crate::secret::digest;
use crate::store::Store;

/// Whether `token` is a watch link's that is not revoked.
pub fn valid(store: &Store, token: &str) -> bool {
    let hash = digest(token);
    store.with_docs(|d| {
        d.get(&watch_doc_id(&hash))
            .and_then(Doc::as_watch)
            .is_some_and(|w| w.token_hash == hash && !w.is_revoked())
    })
}

/// A request made with a valid watch link (its token's digest).
#[derive(Clone, Debug)]
pub struct Spectator {
    pub token_hash: String,
    /// Cancelled when the link is revoked.
    pub revoked: CancellationToken,
}

/// The watch links' state beside their documents: when each was last used, and what ends its
/// streams when it is revoked.
#[derive(Debug, Default)]
pub struct Spectators {
    last_used: Mutex<HashMap<String, i64>>,
    revoked: Mutex<HashMap<String, CancellationToken>>,
}

impl Spectators {
    pub fn used(&self, hash: &str, at: i64) {
        let mut m = self.last_used.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(hash.to_string(), at);
    }

    pub fn last_used(&self, hash: &str) -> Option<i64> {
        let m = self.last_used.lock().unwrap_or_else(|p| p.into_inner());
        m.get(hash).copied()
    }

    pub fn token(&self, hash: &str) -> CancellationToken {
        let mut m = self.revoked.lock().unwrap_or_else(|p| p.into_inner());
        m.entry(hash.to_string()).or_default().clone()
    }
}

impl Spectators {
    /// Ends a revoked link's streams on this server from the log, whoever revoked it: this
    /// server or another of the team (a follower reads the leader's `watch_revoked` from its
    /// replica). Runs until `shutdown`.
    pub fn end_revoked(
        self: &std::sync::Arc<Self>,
        store: &Store,
        (shutdown, tasks): (tokio_util::sync::CancellationToken, &crate::tasks::Tasks),
    ) {
        let me = self.clone();
        store.on_each_batch(
            (shutdown, tasks),
            "the watch links' revocations",
            move |batch| {
                for e in batch.events() {
                    if let app::domain::events::EventKind::WatchRevoked { token_hash } = &e.kind {
                        me.token(token_hash).cancel();
                    }
                }
            },
        );
    }
}
