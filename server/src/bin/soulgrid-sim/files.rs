//! Small helpers of the simulated agent: its vault and git, ids, and reading messages.

use std::io::Write;

use serde_json::Value;

/// Appends a line to `knowledge/{file}` in its folder, as an agent writes its vault.
pub(crate) fn append_knowledge(file: &str, line: &str) {
    let _ = std::fs::create_dir_all("knowledge");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(std::path::Path::new("knowledge").join(file))
    {
        let _ = writeln!(f, "{line}");
    }
}

/// git as the agent runs it, in `dir` (its folder, or a worktree), as `name`, without the
/// machine's configuration.
pub(crate) fn git_in(dir: &std::path::Path, name: &str, args: &[&str]) -> Result<(), String> {
    std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            &format!("user.name={name}"),
            "-c",
            "user.email=sim@soulgrid.invalid",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgSign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .map_err(|e| e.to_string())
        .and_then(|o| match o.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        })
}

/// Commits everything in its folder with `message`, as an agent does with its own tools.
pub(crate) fn git_commit(name: &str, message: &str) -> Result<(), String> {
    let here = std::path::Path::new(".");
    git_in(here, name, &["add", "-A"])?;
    git_in(
        here,
        name,
        &["commit", "-q", "--allow-empty", "-m", message],
    )
}

/// A session id for a fork, distinct per process.
/// This process's own mark, for the ids it makes (its request ids): its pid and start time. The
/// pid alone is not one: in a sandbox every agent's is 2.
pub(crate) fn instance() -> &'static str {
    static MARK: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MARK.get_or_init(|| uuid_like(std::process::id()))
}

pub(crate) fn uuid_like(n: u32) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:08x}-0000-4000-8000-{:012x}", n, t & 0xffff_ffff_ffff)
}

pub(crate) fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}

pub(crate) fn position(s: &str) -> Option<usize> {
    let rest = &s[s.find("in seat ")? + "in seat ".len()..];
    let seat = rest.chars().next()?.to_digit(10)? as usize;
    seat.checked_sub(1)
}

pub(crate) fn user_text(v: &Value) -> Option<String> {
    match &v["message"]["content"] {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}
