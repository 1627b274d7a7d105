//! Fake CLIs and what tests look at of processes (`/proc`).

use std::path::Path;

/// A tiny fake Claude CLI: a bash script with `body`, executable, in `dir`. For behaviour the
/// simulator does not have (bad output, ignoring signals, background jobs).
pub fn fake_cli(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The stdout lines of a turn in the CLI's stream-json, for fake CLIs: `init`, then `text`,
/// then `result`.
pub const FAKE_TURN: &str = r#"turn() {
  echo '{"type":"system","subtype":"init","session_id":"fake-session"}'
  printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$1"
  echo '{"type":"result","subtype":"success","is_error":false,"session_id":"fake-session"}'
}"#;

/// Live (not zombie) processes of process group `pgid`, from `/proc`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            out.push(pid);
        }
    }
    out
}

/// Whether `pid` is a live (not zombie) process.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with('Z')))
        .is_some_and(|zombie| !zombie)
}
