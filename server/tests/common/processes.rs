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

/// What a child process gets for `method` on `url` (with a JSON body for a POST) with the
/// tests' login (as an agent that read it would send it): its status and body, as an agent's
/// Bash would see them.
pub async fn from_a_child(method: &str, url: &str) -> (u16, String) {
    let script = "import sys, urllib.request, urllib.error\n\
        m, u = sys.argv[1], sys.argv[2]\n\
        body = b'{\"perDayUsd\": 5}' if m == 'POST' else None\n\
        r = urllib.request.Request(u, data=body, method=m, headers={'content-type': 'application/json', 'authorization': 'Bearer ' + sys.argv[3]})\n\
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))\n\
        try:\n    res = direct.open(r, timeout=60)\n    print(res.status, res.read().decode())\n\
        except urllib.error.HTTPError as e:\n    print(e.code, e.read().decode())\n";
    let out = tokio::process::Command::new("python3")
        .args(["-c", script, method, url, super::TOKEN])
        .output()
        .await
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let (code, body) = text.split_once(' ').unwrap_or((&text, ""));
    (
        code.parse()
            .unwrap_or_else(|_| panic!("{text} {}", String::from_utf8_lossy(&out.stderr))),
        body.to_string(),
    )
}
