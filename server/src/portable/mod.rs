//! History you can carry: the whole team as one file (export and import), one agent as one
//! file (a soul bundle), the agents' unmerged branches in both (`carried.rs`), and copies of
//! the store taken while it runs (backups).

pub mod backup;
pub mod bundle;
pub mod carried;
mod check;
pub mod cli;
pub mod format;
pub mod migrate;
pub mod team;

use crate::store::StoreError;

/// What the long work says as it goes (for the command line).
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Why an export, an import or a backup failed, in one line for the command line.
#[derive(Debug, thiserror::Error)]
pub enum PortableError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("refusing to import into {0}: it is not empty (an import restores into an empty data directory)")]
    NotEmpty(String),
    #[error("this file is format version {0}; this Soulgrid reads versions 1 to {1}")]
    Version(u32, u32),
    #[error("the {part} part's checksum does not match (the file is corrupted): expected {expected}, found {found}")]
    Checksum {
        part: String,
        expected: String,
        found: String,
    },
    #[error("not a valid file: {0}")]
    Bad(String),
    #[error("{0} already holds a store")]
    Exists(String),
    #[error("the copy failed its integrity check: {0}")]
    Integrity(String),
}
