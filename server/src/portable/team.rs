//! Team export and import (`soulgrid export|import`, `GET /api/export`): one file with the event
//! log up to one event id (a consistent cut, also while the server runs and agents write) and
//! the files of the data directory the store does not hold. Both stream: the parts are spooled
//! to temporary files while their checksums are computed, then the header and the parts are
//! written; an import reads the file once, checking every line, the order and the checksums
//! while it writes into a private folder, and moves what it wrote into the (empty) data
//! directory only when the whole file held.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use base64::Engine;

use super::check::Check;
use super::format::{event_line, exportable, FileLine, Header, PartHash, VERSION};
use super::PortableError;
use crate::store::restore::{restore, restore_postgres};
use crate::store::Database;

/// Events read from the store at a time.
const PAGE: usize = 2_000;

pub use super::Progress;

/// Writes the team in `data_dir` (its store in SQLite there) to `out`; returns the header
/// written.
pub fn export(
    data_dir: &Path,
    team: (&str, &crate::clock::Clock),
    out: &mut dyn Write,
    progress: Progress<'_>,
) -> Result<Header, PortableError> {
    export_from(data_dir, &Database::Sqlite, team, out, progress)
}

/// As [`export`], the team's store in `database`.
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn export_from(
    data_dir: &Path,
    database: &Database,
    (team, now): (&str, &crate::clock::Clock),
    out: &mut dyn Write,
    progress: Progress<'_>,
) -> Result<Header, PortableError> {
    let mut conn = crate::store::restore::reader(data_dir, database)?;
    let up_to = crate::store::restore::last_id(&mut conn)?;
    let spool = tempfile::tempdir()?;
    // The events up to the cut, as stored.
    let mut events = PartHash::default();
    {
        let mut w = BufWriter::new(File::create(spool.path().join("events"))?);
        let mut after = 0u64;
        loop {
            let page = crate::store::restore::page(&mut conn, after, up_to, PAGE)?;
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
        // The agents' branches, bundled now (a bundle still waiting from an import is carried
        // as it is, unless its project was bundled again).
        let bundled = super::carried::team_branches(data_dir, spool.path(), progress);
        let mut listed: Vec<(String, Option<PathBuf>)> = data_files(data_dir)
            .into_iter()
            .filter(|rel| !bundled.iter().any(|(b, _)| b == rel))
            .map(|rel| (rel, None))
            .collect();
        listed.extend(bundled.into_iter().map(|(rel, file)| (rel, Some(file))));
        listed.sort();
        // A carried bundle left out takes what it waits for with it (the `.json` sorts after).
        let mut without: Vec<String> = Vec::new();
        for (rel, spooled) in listed {
            if let Some(stem) = rel.strip_suffix(".json") {
                if without.iter().any(|w| w == stem) {
                    continue;
                }
            }
            // Read as listed, never through a link placed since, never waiting on a FIFO.
            let found = match spooled {
                Some(file) => crate::fsafe::read_in(
                    file.parent().unwrap_or(Path::new("/")),
                    Path::new(file.file_name().unwrap_or_default()),
                    MAX_EXPORTED_FILE,
                )?,
                None => crate::fsafe::read_in(data_dir, Path::new(&rel), MAX_EXPORTED_FILE)?,
            };
            let bytes = match found {
                crate::fsafe::Found::Bytes(b) => b,
                // Gone meanwhile (an agent's temp file).
                crate::fsafe::Found::Missing => continue,
                crate::fsafe::Found::Unfit(why) => {
                    if let Some(stem) = rel.strip_suffix(".bundle") {
                        without.push(stem.to_string());
                    }
                    progress(&format!("left out {rel}: {why}"));
                    tracing::warn!(file = %rel, why, "an export left a file out");
                    continue;
                }
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
        exported_at: now.now_iso(),
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

/// The largest file an export carries (a knowledge file may have 64 KB, an inbox 8 MB).
const MAX_EXPORTED_FILE: usize = 16 * 1024 * 1024;

/// The regular files under the folders an export carries, in order (no link is followed).
fn data_files(data_dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = ["agents", "teams", "prompts", "history", "carried"]
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

/// Restores the export `file` (`-`: standard input) into `data_dir`, which must be empty (or
/// not exist yet), in one reading: everything is written into a private folder inside
/// `data_dir` while every line, the order and the checksums are checked, and moved into place
/// only when the whole file held. A file that is truncated, corrupted, of another version, not
/// an export, or whose events contradict themselves leaves `data_dir` as it was. (It was read
/// twice, once to check and once to write: from a pipe the second reading found nothing, and a
/// file changed between the two wrote what was never checked.)
pub fn import(
    file: &Path,
    data_dir: &Path,
    progress: Progress<'_>,
) -> Result<Imported, PortableError> {
    import_to(file, data_dir, &Database::Sqlite, progress)
}

/// As [`import`], the store written into `database` (PostgreSQL: an empty one, in one
/// transaction committed only when the whole file held).
pub fn import_to(
    file: &Path,
    data_dir: &Path,
    database: &Database,
    progress: Progress<'_>,
) -> Result<Imported, PortableError> {
    if std::fs::read_dir(data_dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(PortableError::NotEmpty(data_dir.display().to_string()));
    }
    let made = !data_dir.exists();
    let imported = import_into(file, data_dir, database, progress);
    if imported.is_err() && made {
        // Nothing of it stays: the folder this import made goes too.
        let _ = std::fs::remove_dir_all(data_dir);
    }
    imported
}

fn import_into(
    file: &Path,
    data_dir: &Path,
    database: &Database,
    progress: Progress<'_>,
) -> Result<Imported, PortableError> {
    let mut reader = open_export(file)?;
    let header = read_header(&mut reader)?;
    std::fs::create_dir_all(data_dir)?;
    let private = tempfile::Builder::new()
        .prefix(".importing-")
        .tempdir_in(data_dir)?;
    let mut check = Check::new(&header);
    let mut lines = reader.lines();
    // The first fault met while the store is written: the restore stops at it.
    let mut fault: Option<PortableError> = None;
    let written = {
        let events = (1..=header.parts[0].lines).map(|expected| {
            let line = match lines.next() {
                Some(Ok(line)) => line,
                Some(Err(e)) => return Err(fault.insert(e.into()).to_string()),
                None => {
                    let e = truncated("events", expected - 1, header.parts[0].lines);
                    return Err(fault.insert(e).to_string());
                }
            };
            match check.event(expected, &line, progress) {
                Ok(raw) => Ok(raw.to_string()),
                Err(e) => Err(fault.insert(e).to_string()),
            }
        });
        match database {
            Database::Sqlite => restore(private.path(), events, |_| {}).map(|n| (n, None)),
            Database::Postgres(url) => {
                restore_postgres(url, events, |_| {}).map(|r| (r.written, Some(r)))
            }
        }
    };
    let (written, pending) = match (written, fault) {
        (_, Some(fault)) => return Err(fault),
        (Err(e), None) => return Err(e.into()),
        (Ok(done), None) => done,
    };
    progress(&format!("imported {written} events; reading the files"));
    let mut files = 0;
    for n in 0..header.parts[1].lines {
        let line = lines
            .next()
            .ok_or_else(|| truncated("files", n, header.parts[1].lines))??;
        let (path, bytes) = check.file(&line)?;
        write_new(private.path(), &path, &bytes)?;
        files += 1;
    }
    check.finish(&header, lines.next().is_some())?;
    // Everything held: the log kept, the files into place, part by part (the private folder
    // is on the same disk).
    if let Some(pending) = pending {
        pending.keep()?;
    }
    for entry in std::fs::read_dir(private.path())? {
        let entry = entry?;
        std::fs::rename(entry.path(), data_dir.join(entry.file_name()))?;
    }
    progress(&format!("imported {written} events and {files} files"));
    Ok(Imported {
        header,
        events: written,
        files,
    })
}

/// Reads the whole export (`-`: standard input), checking it; its header when everything
/// holds. Nothing is written.
pub fn verify(file: &Path, progress: Progress<'_>) -> Result<Header, PortableError> {
    let mut reader = open_export(file)?;
    let header = read_header(&mut reader)?;
    let mut check = Check::new(&header);
    let mut lines = reader.lines();
    for expected in 1..=header.parts[0].lines {
        let line = lines
            .next()
            .ok_or_else(|| truncated("events", expected - 1, header.parts[0].lines))??;
        check.event(expected, &line, progress)?;
    }
    for n in 0..header.parts[1].lines {
        let line = lines
            .next()
            .ok_or_else(|| truncated("files", n, header.parts[1].lines))??;
        check.file(&line)?;
    }
    check.finish(&header, lines.next().is_some())?;
    Ok(header)
}

fn open_export(file: &Path) -> Result<Box<dyn BufRead>, PortableError> {
    Ok(match file == Path::new("-") {
        true => Box::new(BufReader::new(std::io::stdin())),
        false => Box::new(BufReader::new(File::open(file)?)),
    })
}

fn read_header(reader: &mut dyn BufRead) -> Result<Header, PortableError> {
    let mut first = String::new();
    reader.take(1 << 20).read_line(&mut first)?;
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
    if header.up_to != header.parts[0].lines {
        return Err(PortableError::Bad(format!(
            "the header says up to event {} but carries {}",
            header.up_to, header.parts[0].lines
        )));
    }
    Ok(header)
}

fn truncated(part: &str, got: u64, of: u64) -> PortableError {
    PortableError::Bad(format!(
        "the file ends after {got} of {of} {part} (truncated?)"
    ))
}

/// Writes `bytes` as the new file `root/rel` (`rel` already checked to be a plain path an
/// export may hold), its folders made inside `root`.
fn write_new(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), PortableError> {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    f.write_all(bytes)?;
    Ok(())
}
