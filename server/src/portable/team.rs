//! Team export and import (`soulgrid export|import`, `GET /api/export`): one file with the event
//! log up to one event id (a consistent cut, also while the server runs and agents write) and
//! the files of the data directory the store does not hold. Both stream: the parts are spooled
//! to temporary files while their checksums are computed, then the header and the parts are
//! written; an import checks the whole file (header, every line, order, checksums) before it
//! writes anything, into an empty data directory only.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use base64::Engine;

use super::format::{event_line, event_of_line, exportable, FileLine, Header, PartHash, VERSION};
use super::PortableError;
use crate::store::restore::{open_read_only, restore};

/// Events read from the store at a time.
const PAGE: i64 = 2_000;

/// What the long work says as it goes (for the command line).
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Writes the team in `data_dir` to `out`; returns the header written.
pub fn export(
    data_dir: &Path,
    team: &str,
    out: &mut dyn Write,
    progress: Progress<'_>,
) -> Result<Header, PortableError> {
    let conn = open_read_only(data_dir)?;
    let up_to: u64 = conn
        .query_row("SELECT COALESCE(MAX(id), 0) FROM events", [], |r| {
            r.get::<_, i64>(0)
        })
        .map_err(crate::store::StoreError::from)? as u64;
    let spool = tempfile::tempdir()?;
    // The events up to the cut, as stored.
    let mut events = PartHash::default();
    {
        let mut w = BufWriter::new(File::create(spool.path().join("events"))?);
        let mut stmt = conn
            .prepare("SELECT id, body FROM events WHERE id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3")
            .map_err(crate::store::StoreError::from)?;
        let mut after = 0i64;
        loop {
            let page: Vec<(i64, String)> = stmt
                .query_map(rusqlite::params![after, up_to as i64, PAGE], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .and_then(|rows| rows.collect())
                .map_err(crate::store::StoreError::from)?;
            let Some((last, _)) = page.last() else { break };
            after = *last;
            for (_, body) in page {
                let line = event_line(&body);
                events.line(&line);
                writeln!(w, "{line}")?;
            }
            progress(&format!("exported {after} of {up_to} events"));
        }
        w.flush()?;
    }
    // The files the store does not hold.
    let mut files = PartHash::default();
    {
        let mut w = BufWriter::new(File::create(spool.path().join("files"))?);
        for rel in data_files(data_dir) {
            let Ok(bytes) = std::fs::read(data_dir.join(&rel)) else {
                continue; // Gone meanwhile (an agent's temp file).
            };
            let line = serde_json::to_string(&serde_json::json!({"file": FileLine {
                path: rel,
                base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            }}))?;
            files.line(&line);
            writeln!(w, "{line}")?;
        }
        w.flush()?;
        progress(&format!("exported {} files", files.lines));
    }
    let header = Header {
        soulgrid_export: VERSION,
        soulgrid: env!("CARGO_PKG_VERSION").to_string(),
        team: team.to_string(),
        exported_at: app::domain::time::iso(crate::now_ms()),
        up_to,
        parts: vec![events.finish("events"), files.finish("files")],
    };
    writeln!(out, "{}", serde_json::to_string(&header)?)?;
    for part in ["events", "files"] {
        std::io::copy(&mut File::open(spool.path().join(part))?, out)?;
    }
    out.flush()?;
    Ok(header)
}

/// The regular files under the folders an export carries, in order (no link is followed).
fn data_files(data_dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = ["agents", "teams", "prompts"]
        .iter()
        .map(|r| (data_dir.join(r), r.to_string()))
        .collect();
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}/{name}");
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            // Locks and temp files are moments, not content.
            if name.ends_with(".lock") || name.contains(".tmp") {
                continue;
            }
            if kind.is_dir() {
                stack.push((entry.path(), path));
            } else if kind.is_file() && exportable(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What an import wrote.
#[derive(Debug)]
pub struct Imported {
    pub header: Header,
    pub events: u64,
    pub files: u64,
}

/// Restores the export `file` into `data_dir`, which must be empty (or not exist yet). The
/// whole file is checked first: nothing is written for a file that is truncated, corrupted,
/// of another version, not an export, or whose events contradict themselves.
pub fn import(
    file: &Path,
    data_dir: &Path,
    progress: Progress<'_>,
) -> Result<Imported, PortableError> {
    if std::fs::read_dir(data_dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(PortableError::NotEmpty(data_dir.display().to_string()));
    }
    let header = verify(file, progress)?;
    progress("the file checks out; writing");
    let mut lines = BufReader::new(File::open(file)?).lines().skip(1);
    let events = (&mut lines)
        .take(header.parts[0].lines as usize)
        .map(|l| l.map(|l| event_of_line(&l).unwrap_or_default().to_string()));
    let written = restore(data_dir, events, |n| {
        progress(&format!("imported {n} events"))
    })?;
    let mut files = 0;
    for line in lines {
        let f = file_of_line(&line?)?;
        let path = data_dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(
            &path,
            base64::engine::general_purpose::STANDARD
                .decode(f.base64)
                .map_err(|e| PortableError::Bad(e.to_string()))?,
        )?;
        files += 1;
    }
    progress(&format!("imported {written} events and {files} files"));
    Ok(Imported {
        header,
        events: written,
        files,
    })
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

/// Reads the whole export, checking it; its header when everything holds.
pub fn verify(file: &Path, progress: Progress<'_>) -> Result<Header, PortableError> {
    let mut reader = BufReader::new(File::open(file)?);
    let mut first = String::new();
    reader.by_ref().take(1 << 20).read_line(&mut first)?;
    let header: Header = serde_json::from_str(first.trim_end()).map_err(|e| {
        PortableError::Bad(format!(
            "the first line is not a Soulgrid export header ({e})"
        ))
    })?;
    if header.soulgrid_export == 0 || header.soulgrid_export > VERSION {
        return Err(PortableError::Version(header.soulgrid_export, VERSION));
    }
    let names: Vec<&str> = header.parts.iter().map(|p| p.name.as_str()).collect();
    if names != ["events", "files"] {
        return Err(PortableError::Bad(format!(
            "the parts are {names:?}, not events and files"
        )));
    }
    let mut lines = reader.lines();
    let mut events = PartHash::default();
    let mut last_ts = i64::MIN;
    for expected in 1..=header.parts[0].lines {
        let line = lines.next().ok_or_else(|| {
            PortableError::Bad(format!(
                "the file ends after {} of {} events (truncated?)",
                expected - 1,
                header.parts[0].lines
            ))
        })??;
        let raw = event_of_line(&line)
            .ok_or_else(|| PortableError::Bad(format!("line {} is not an event", expected + 1)))?;
        let event: app::domain::events::Event = serde_json::from_str(raw)
            .map_err(|e| PortableError::Bad(format!("event {expected} cannot be read: {e}")))?;
        if event.id != expected {
            return Err(PortableError::Bad(format!(
                "event {expected} has the id {}: the log has a gap or is out of order",
                event.id
            )));
        }
        if event.ts < last_ts {
            return Err(PortableError::Bad(format!(
                "event {expected} is older than the one before it"
            )));
        }
        last_ts = event.ts;
        events.line(&line);
        if expected % 10_000 == 0 {
            progress(&format!(
                "checked {expected} of {} events",
                header.parts[0].lines
            ));
        }
    }
    if header.up_to != header.parts[0].lines {
        return Err(PortableError::Bad(format!(
            "the header says up to event {} but carries {}",
            header.up_to, header.parts[0].lines
        )));
    }
    let mut files = PartHash::default();
    let mut previous = String::new();
    for n in 0..header.parts[1].lines {
        let line = lines.next().ok_or_else(|| {
            PortableError::Bad(format!(
                "the file ends after {n} of {} files (truncated?)",
                header.parts[1].lines
            ))
        })??;
        let f = file_of_line(&line)?;
        if !exportable(&f.path) || f.path <= previous {
            return Err(PortableError::Bad(format!(
                "file {:?} is not a path an export may hold, or out of order",
                f.path
            )));
        }
        base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| {
                PortableError::Bad(format!("file {:?} is not valid base64: {e}", f.path))
            })?;
        previous = f.path;
        files.line(&line);
    }
    if lines.next().is_some() {
        return Err(PortableError::Bad(
            "the file goes on after its last part".into(),
        ));
    }
    for (part, hash) in header.parts.iter().zip([events, files]) {
        let found = hash.finish(&part.name);
        if found.sha256 != part.sha256 {
            return Err(PortableError::Checksum {
                part: part.name.clone(),
                expected: part.sha256.clone(),
                found: found.sha256,
            });
        }
    }
    Ok(header)
}
