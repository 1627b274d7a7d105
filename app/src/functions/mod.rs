//! Server functions: the typed calls the UI makes to the server.

mod snapshot;

#[cfg(feature = "ssr")]
pub use snapshot::SnapshotSource;
pub use snapshot::{
    get_older, get_snapshot, get_snapshot_at, get_watch_snapshot, said, Moment, OlderPage,
    PastError, Snapshot,
};
