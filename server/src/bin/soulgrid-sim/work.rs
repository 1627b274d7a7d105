//! The simulated agent at work on the user's code, deterministic. With `SOULGRID_SIM_WORK=1`
//! (`make run` sets it; tests that drive the work themselves do not): waking with a worktree
//! (`--add-dir`), it leaves its mark once in each worktree's `README.md` and commits it (so two
//! agents put to work on one project overlap there, and the second merge conflicts); asked for
//! changes, it appends a line per comment to the file commented on, commits, and asks for a
//! review again. `SIM_EDIT: <path> <text>` writes a file in its (first) worktree (`\n` in
//! the text is a new line); `SIM_WORK_COMMIT: <message>` commits everything there.

use std::path::Path;

use serde_json::json;

use super::Sim;

use super::files::git_in as git;

fn commit_all(dir: &Path, name: &str, message: &str) -> Result<(), String> {
    git(dir, name, &["add", "-A"])?;
    git(dir, name, &["commit", "-q", "-m", message])
}

fn append(path: &Path, line: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(f, "{line}")
}

/// Whether it works on its own (`SOULGRID_SIM_WORK=1`).
fn works_by_itself() -> bool {
    std::env::var("SOULGRID_SIM_WORK").is_ok_and(|v| v == "1")
}

impl Sim {
    /// Waking with worktrees: its mark in each one's README, once, committed. What it says.
    pub(crate) fn leave_marks(&self) -> Option<String> {
        if !works_by_itself() {
            return None;
        }
        let name = self.name.clone()?;
        let mark = format!("{name} was here.");
        let mut left = 0;
        for dir in &self.worktrees {
            let readme = dir.join("README.md");
            let had = std::fs::read_to_string(&readme).unwrap_or_default();
            if had.contains(&mark) {
                continue;
            }
            if append(&readme, &format!("\n{mark}")).is_ok()
                && commit_all(dir, &name, &format!("README: {mark}")).is_ok()
            {
                left += 1;
            }
        }
        (left > 0).then(|| {
            format!(" I left my mark in the README of {left} worktree(s) and committed it.")
        })
    }

    /// Work asked for in a message, if any: its answer.
    pub(crate) fn work_reply(&mut self, input: &str) -> Option<String> {
        let name = self.name.clone().unwrap_or_else(|| "someone".into());
        let dir = self.worktrees.first()?.clone();
        let arg = |knob: &str| {
            input
                .split(knob)
                .nth(1)
                .and_then(|r| r.lines().next())
                .map(|r| r.trim().to_string())
        };
        if let Some(edit) = arg("SIM_EDIT:") {
            let (path, text) = edit.split_once(' ').unwrap_or((edit.as_str(), ""));
            let file = dir.join(path);
            if let Some(parent) = file.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            return Some(match std::fs::write(&file, text.replace("\\n", "\n")) {
                Ok(()) => format!("I wrote {path} in my worktree."),
                Err(e) => format!("I could not write {path}: {e}"),
            });
        }
        if let Some(message) = arg("SIM_WORK_COMMIT:") {
            return Some(match commit_all(&dir, &name, &message) {
                Ok(()) => format!("I committed my work: {message}"),
                Err(e) => format!("My commit failed: {e}"),
            });
        }
        if works_by_itself() && input.contains("asks for changes") {
            let asked: Vec<(String, String)> = input
                .lines()
                .filter_map(|l| {
                    let (file, rest) = l.split_once(':')?;
                    let (line, text) = rest.split_once(": ")?;
                    line.parse::<u32>().ok()?;
                    Some((file.trim().to_string(), text.trim().to_string()))
                })
                .collect();
            for (file, text) in &asked {
                let _ = append(&dir.join(file), &format!("{name}: done as asked ({text})"));
            }
            let done = commit_all(&dir, &name, "As asked in review");
            let review = json!({"action": "review", "note": "I made the changes you asked for."});
            return Some(match done {
                Ok(()) => format!(
                    "I made the {} change(s) you asked for and committed them.\n[ACTION] {review}",
                    asked.len()
                ),
                Err(e) => format!("I tried to make the changes, but my commit failed: {e}"),
            });
        }
        None
    }
}
