//! The simulated agent at work on the user's code, deterministic, with no setting to turn it
//! on: at work (a worktree, `--add-dir`), a message from a person (the human's, the lead's,
//! another agent's; never Soulgrid's notices) is a change to make: its first line is added to
//! the worktree's `README.md` as `Name: what was asked`, and committed with that line as its
//! subject (so two agents asked for something on one project overlap there, and the second
//! merge conflicts). Asked for changes in review, it appends a line per comment to the file
//! commented on, commits, and asks for a review again. `SIM_EDIT: <path> <text>` writes a file
//! in its (first) worktree (`\n` in the text is a new line), uncommitted;
//! `SIM_WORK_COMMIT: <message>` commits everything there.

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

/// What a person asked in `input` (its first line after a person's header, not Soulgrid's),
/// as one line of at most 100 characters.
fn asked(input: &str) -> Option<String> {
    let mut lines = input.lines();
    lines.find(|l| {
        l.strip_prefix(app::domain::provenance::MAIL_HEADER)
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|from| from != "Soulgrid")
    })?;
    let first = lines.map(str::trim).find(|l| !l.is_empty())?;
    let first = first.strip_prefix("(in #team) ").unwrap_or(first);
    Some(first.chars().take(100).collect())
}

impl Sim {
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
        if let Some(done) = self.changes_asked(input) {
            return Some(done);
        }
        // A person asked for something: done in the README, committed.
        let request = asked(input)?;
        Some(self.make_change(&request))
    }

    /// Changes asked in a review (`file:line: text` lines): a line per comment appended to its
    /// file, committed, and a review asked again. What it says.
    fn changes_asked(&self, input: &str) -> Option<String> {
        let name = self.name.clone().unwrap_or_else(|| "someone".into());
        let dir = self.worktrees.first()?.clone();
        if !input.contains("asks for changes") {
            return None;
        }
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
        Some(match done {
            Ok(()) => format!(
                "I made the {} change(s) you asked for and committed them.\n[ACTION] {review}",
                asked.len()
            ),
            Err(e) => format!("I tried to make the changes, but my commit failed: {e}"),
        })
    }

    /// Mail that waited while it slept (`[time] Name: text` lines of its wake prompt): what a
    /// person asked there is done as it would have been awake. What it says of it.
    pub(crate) fn work_waiting_mail(&self, mail: &str) -> Option<String> {
        self.worktrees.first()?;
        if let Some(done) = self.changes_asked(mail) {
            return Some(format!(" {done}"));
        }
        let done: Vec<String> = mail
            .lines()
            .filter_map(|l| l.trim().split_once("] ").map(|(_, rest)| rest))
            .filter_map(|l| l.split_once(": "))
            .filter(|(from, _)| *from != "Soulgrid")
            .map(|(_, text)| text.strip_prefix("(in #team) ").unwrap_or(text))
            .map(|text| self.make_change(&text.chars().take(100).collect::<String>()))
            .collect();
        (!done.is_empty()).then(|| format!(" {}", done.join(" ")))
    }

    /// `request` done in its (first) worktree: a line in the README, committed.
    fn make_change(&self, request: &str) -> String {
        let name = self.name.clone().unwrap_or_else(|| "someone".into());
        let Some(dir) = self.worktrees.first() else {
            return "I have no worktree to do it in.".into();
        };
        let line = format!("{name}: {request}");
        let done = append(&dir.join("README.md"), &format!("\n{line}"))
            .map_err(|e| e.to_string())
            .and_then(|()| commit_all(dir, &name, &line));
        match done {
            Ok(()) => format!("Done in my worktree and committed: README.md now says \"{line}\"."),
            Err(e) => format!("I tried to do it in my worktree, but it failed: {e}"),
        }
    }
}
