//! The checks of one reading of a team export, line by line: ids in order, times not going
//! back, file paths an export may hold in order, and each part's count and checksum against
//! the header.

use base64::Engine;

use super::format::{event_of_line, exportable, FileLine, Header, PartHash};
use super::PortableError;
use super::Progress;

/// The checks of one reading, line by line: ids in order, times not going back, file paths an
/// export may hold in order, and each part's count and checksum against the header.
pub(super) struct Check {
    events: PartHash,
    files: PartHash,
    last_ts: i64,
    previous: String,
    total: u64,
}

impl Check {
    pub(super) fn new(header: &Header) -> Self {
        Check {
            events: PartHash::default(),
            files: PartHash::default(),
            last_ts: i64::MIN,
            previous: String::new(),
            total: header.parts[0].lines,
        }
    }

    /// The stored JSON of event `expected`, checked.
    pub(super) fn event<'l>(
        &mut self,
        expected: u64,
        line: &'l str,
        progress: Progress<'_>,
    ) -> Result<&'l str, PortableError> {
        let raw = event_of_line(line)
            .ok_or_else(|| PortableError::Bad(format!("line {} is not an event", expected + 1)))?;
        let event: app::domain::events::Event = serde_json::from_str(raw)
            .map_err(|e| PortableError::Bad(format!("event {expected} cannot be read: {e}")))?;
        if event.id != expected {
            return Err(PortableError::Bad(format!(
                "event {expected} has the id {}: the log has a gap or is out of order",
                event.id
            )));
        }
        if event.ts < self.last_ts {
            return Err(PortableError::Bad(format!(
                "event {expected} is older than the one before it"
            )));
        }
        self.last_ts = event.ts;
        self.events.line(line);
        if expected.is_multiple_of(10_000) {
            progress(&format!("checked {expected} of {} events", self.total));
        }
        Ok(raw)
    }

    /// A file line's path and bytes, checked.
    pub(super) fn file(&mut self, line: &str) -> Result<(String, Vec<u8>), PortableError> {
        let f = file_of_line(line)?;
        if !exportable(&f.path) || f.path <= self.previous {
            return Err(PortableError::Bad(format!(
                "file {:?} is not a path an export may hold, or out of order",
                f.path
            )));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| {
                PortableError::Bad(format!("file {:?} is not valid base64: {e}", f.path))
            })?;
        self.files.line(line);
        self.previous = f.path.clone();
        Ok((f.path, bytes))
    }

    /// The counts and checksums against the header; nothing may follow the last part.
    pub(super) fn finish(self, header: &Header, more: bool) -> Result<(), PortableError> {
        if more {
            return Err(PortableError::Bad(
                "the file goes on after its last part".into(),
            ));
        }
        for (part, hash) in header.parts.iter().zip([self.events, self.files]) {
            let found = hash.finish(&part.name);
            if found.lines != part.lines {
                return Err(PortableError::Bad(format!(
                    "the {} part has {} lines, not {}",
                    part.name, found.lines, part.lines
                )));
            }
            if found.sha256 != part.sha256 {
                return Err(PortableError::Checksum {
                    part: part.name.clone(),
                    expected: part.sha256.clone(),
                    found: found.sha256,
                });
            }
        }
        Ok(())
    }
}

fn file_of_line(line: &str) -> Result<FileLine, PortableError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Wrapped {
        file: FileLine,
    }
    serde_json::from_str::<Wrapped>(line)
        .map(|w| w.file)
        .map_err(|e| PortableError::Bad(format!("a file line is not valid: {e}")))
}
