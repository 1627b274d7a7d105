//! Fake CLIs and what tests look at of processes (`/proc`).

use std::path::Path;

use soulgrid::runtime::contain::proc_stat;

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
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| {
            proc_stat(*pid).is_some_and(|(state, _, group)| state != 'Z' && group == pgid)
        })
        .collect()
}

/// Whether `pid` is a live (not zombie) process.
pub fn alive(pid: u32) -> bool {
    proc_stat(pid).is_some_and(|(state, _, _)| state != 'Z')
}
