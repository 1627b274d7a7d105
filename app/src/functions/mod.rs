//! Server functions: the typed calls the UI makes to the server.

mod snapshot;

pub use snapshot::{get_snapshot, Snapshot};
#[cfg(feature = "ssr")]
pub use snapshot::SnapshotSource;
