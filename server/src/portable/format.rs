//! The team export format, version 1: JSON Lines, so it is written and read as a stream.
//!
//! ```text
//! {"soulgridExport":1,"soulgrid":"0.1.0","team":"soulgrid","exportedAt":"…","upTo":N,
//!  "parts":[{"name":"events","lines":N,"sha256":"…"},{"name":"files","lines":M,"sha256":"…"}]}
//! {"event":{…the event exactly as stored…}}            N lines, ids 1..=N in order
//! {"file":{"path":"agents/0/logout.log","base64":"…"}}  M lines, paths in order
//! ```
//!
//! A part's checksum is the SHA-256 of its lines, each with its `\n`. The event log is the
//! truth (the documents are rebuilt from it); the files are what the agents' folders, the
//! inboxes and the prompt overrides hold that the store does not (knowledge vaults and
//! `_state.md` are restored from the store).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The version this build writes; it reads this one.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Header {
    pub soulgrid_export: u32,
    /// The Soulgrid version that wrote it.
    pub soulgrid: String,
    pub team: String,
    pub exported_at: String,
    /// The id of the last event: the consistent cut.
    pub up_to: u64,
    pub parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    pub name: String,
    pub lines: u64,
    pub sha256: String,
}

/// One file of the export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileLine {
    pub path: String,
    pub base64: String,
}

/// The hash of a part, line by line.
#[derive(Default)]
pub struct PartHash {
    hasher: Sha256,
    pub lines: u64,
}

impl PartHash {
    /// Adds one line (without its `\n`).
    pub fn line(&mut self, line: &str) {
        self.hasher.update(line.as_bytes());
        self.hasher.update(b"\n");
        self.lines += 1;
    }

    pub fn finish(self, name: &str) -> Part {
        Part {
            name: name.to_string(),
            lines: self.lines,
            sha256: hex(&self.hasher.finalize()),
        }
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The line of an event: `{"event":<its stored JSON>}`.
pub fn event_line(raw: &str) -> String {
    format!("{{\"event\":{raw}}}")
}

/// The stored JSON of an event line, as it was written (`None`: not an event line).
pub fn event_of_line(line: &str) -> Option<&str> {
    line.strip_prefix("{\"event\":")?.strip_suffix('}')
}

/// Whether `path` may be a file of an export: relative, plain parts, under the folders an
/// export carries, and not what the store restores itself.
pub fn exportable(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = parts.iter().all(|p| {
        !p.is_empty() && *p != "." && *p != ".." && !p.contains('\\') && !p.contains('\0')
    });
    let root = matches!(
        parts.first(),
        Some(&"agents" | &"teams" | &"prompts" | &"history")
    ) || (parts.first() == Some(&"carried")
        && parts.len() == 2
        && (parts[1].ends_with(".bundle") || parts[1].ends_with(".json")));
    let restored = parts
        .get(2)
        .is_some_and(|p| *p == "knowledge" || *p == "_state.md")
        && parts.first() == Some(&"agents");
    plain && root && parts.len() >= 2 && !restored
}
