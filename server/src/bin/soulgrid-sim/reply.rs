//! What a simulated agent says to a message: its scripted replies (see the crate's docs).

use std::io::Write;

use serde_json::{json, Value};

use super::files::{append_knowledge, between, git_commit, position};
use super::{Sim, NAMES};

impl Sim {
    /// What it says to `input`: the first of its scripted answers that fits, else its voice.
    pub(crate) fn reply(&mut self, input: &str) -> String {
        if input.contains("\"action\":\"register\"") {
            return self.register(input);
        }
        if input.starts_with("You are waking up.") {
            return self.wake(input);
        }
        // A scripted tool call (`SIM_CALL: <tool> <json>` on a line of its own): its answer,
        // said.
        if let Some(call) = input.lines().find_map(|l| l.strip_prefix("SIM_CALL: ")) {
            let (tool, args) = call.split_once(' ').unwrap_or((call, "{}"));
            let args: serde_json::Value = serde_json::from_str(args).unwrap_or_default();
            let action = app::domain::tools::tool(tool)
                .and_then(|t| t.action())
                .unwrap_or("none");
            return match self.use_tool(tool, action, args) {
                Ok(text) => format!("Tool {tool} answered (ok): {text}"),
                Err(text) => format!("Tool {tool} answered (error): {text}"),
            };
        }
        // The lead told who woke: it greets them, as a lead would, never quoting the payload.
        if self.lead && input.starts_with("[WAKE AGENTS]") {
            return greeting(input);
        }
        if let Some(reply) = self.quest_reply(input) {
            return reply;
        }
        if let Some(reply) = self.lead.then(|| lead_action(input)).flatten() {
            return reply;
        }
        if let Some(reply) = self.work_reply(input) {
            return reply;
        }
        if let Some(reply) = self.knob_reply(input) {
            return reply;
        }
        let who = self.name.clone().unwrap_or_else(|| {
            if self.lead {
                "the lead".into()
            } else {
                "an agent".into()
            }
        });
        // The words, not the server's header line naming their sender (the first message's).
        let words = match input.split_once('\n') {
            Some((first, rest)) if first.starts_with("[message from ") && first.ends_with(']') => {
                rest
            }
            _ => input,
        };
        self.heard = words.lines().next().map(str::to_owned);
        super::voice::answer(&who, self.lead, words)
    }

    /// A newborn's answer to its summon letter: a name (its seat's, or the next free one), a
    /// soul, the `register` action.
    fn register(&mut self, input: &str) -> String {
        // The letter names the seat; a second chance (its name was refused) does not.
        let again = input.contains("cannot be yours");
        let seat = match again {
            true => self.seat.unwrap_or(0),
            false => position(input).unwrap_or(0),
        };
        self.seat = Some(seat);
        // The seat's folder remembers the newborns before: the next one is `Wren 2`, …
        let born = std::path::Path::new(".soulgrid-sim").join("registered");
        let before = std::fs::read_to_string(&born).map_or(0, |b| b.lines().count());
        let own = match (before, again) {
            (0, _) | (_, true) => NAMES[seat % NAMES.len()].to_string(),
            (n, false) => format!("{} {}", NAMES[seat % NAMES.len()], n + 1),
        };
        let name = match (&self.first_name, again && !self.stubborn) {
            (Some(first), false) => first.clone(),
            _ => own,
        };
        if !again {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&born)
            {
                let _ = writeln!(f, "{name}");
            }
        }
        self.name = Some(name.clone());
        self.remember_name();
        // Blocks are separated by two blank lines: each becomes its own assistant line.
        format!(
            "I am {name}, and the name is mine because I chose it.\n\
             Seat {} of the grid feels like a window seat.\n\n\n\
             [ACTION] {{\"action\":\"register\",\"name\":\"{name}\"}}",
            seat + 1
        )
    }

    /// Its first words on waking: who it is, the soul it remembers, the mail that waited.
    fn wake(&mut self, input: &str) -> String {
        let name = between(input, "Your name is ", ".")
            .unwrap_or("someone")
            .to_string();
        self.name = Some(name.clone());
        self.remember_name();
        let first = between(input, "<your-soul>\n", "\n").unwrap_or("(no soul was given)");
        let letters = between(input, "<mail-while-you-slept>\n", "</mail-while-you-slept>")
            .map_or(0, |m| m.lines().filter(|l| !l.trim().is_empty()).count());
        let mail = if letters > 0 {
            let last = between(input, "<mail-while-you-slept>\n", "</mail-while-you-slept>")
                .and_then(|m| m.lines().rfind(|l| !l.trim().is_empty()))
                .unwrap_or("");
            format!(" {letters} letters waited for me; the last: {last}")
        } else {
            String::new()
        };
        // What was asked meanwhile, done now that it is at work again.
        let waited = between(input, "<mail-while-you-slept>\n", "</mail-while-you-slept>")
            .and_then(|m| self.work_waiting_mail(m))
            .unwrap_or_default();
        format!("Hello. I am {name}. I remember writing: \"{first}\"{mail}{waited}")
    }

    /// The knobs tests turn (`SIM_LEARN:`, `SIM_STATE:`, `SIM_COMMIT:`, `SIM_SOUL:`, …) and its
    /// note before sleep.
    fn knob_reply(&mut self, input: &str) -> Option<String> {
        if input.starts_with("Before you sleep.") {
            let heard = self.heard.clone().unwrap_or_else(|| "nothing yet".into());
            append_knowledge(
                "insights.md",
                &format!("- Before sleeping I noted: {heard}"),
            );
            return Some("I wrote down what I learned.".into());
        }
        let arg = |knob: &str| {
            input
                .split(knob)
                .nth(1)
                .and_then(|r| r.lines().next())
                .map(|r| r.trim().to_string())
        };
        if let Some(text) = arg("SIM_LEARN:") {
            append_knowledge("insights.md", &format!("- {text}"));
            return Some(format!("Noted in my vault: {text}"));
        }
        if input.contains("SIM_BIG_VAULT") {
            let _ = std::fs::create_dir_all("knowledge");
            let _ = std::fs::write("knowledge/huge.md", "x".repeat(100 * 1024));
            return Some("I wrote a lot down.".into());
        }
        if let Some(list) = arg("SIM_STATE:") {
            let markers: Vec<String> = list
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|item| {
                    let (state, summary) = item.split_once(' ').unwrap_or((item, ""));
                    format!("[STATE:{state}] {summary}").trim_end().to_string()
                })
                .collect();
            return Some(format!("Moving on.\n{}", markers.join("\n")));
        }
        if let Some(report) = arg("SIM_COMMIT:") {
            let (state, summary) = report.split_once(' ').unwrap_or((report.as_str(), ""));
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            let message = format!("@{name}: [STATE:{state}] {summary}");
            return Some(match git_commit(&name, &message) {
                Ok(()) => format!("I committed: {message}"),
                Err(e) => format!("My commit failed: {e}"),
            });
        }
        // `SIM_SOUL: <text>`: the agent rewrites its soul (its first line, then the text).
        if let Some(text) = input
            .split("SIM_SOUL:")
            .nth(1)
            .and_then(|r| r.lines().next())
        {
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            let soul = format!(
                "I am {name}, and the name is mine because I chose it.\n{}",
                text.trim()
            );
            return Some(format!(
                "Something has shifted; I wrote it down.\n[ACTION] {}",
                json!({"action": "soul", "text": soul})
            ));
        }
        None
    }
}

/// The lead greets who woke, as a lead would, never quoting the payload.
fn greeting(input: &str) -> String {
    let names: Vec<&str> = input
        .split("<agent name=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .collect();
    match names.as_slice() {
        [] => "The team is back.".to_string(),
        [one] => format!("{one} is back with us. Welcome back."),
        [many @ .., last] => format!(
            "{} and {last} are back with us. Welcome back, all of you.",
            many.join(", ")
        ),
    }
}

/// The lead's scripted actions (`route:`, `kill-all:`, `kill:`, `recall:`, `status:`).
fn lead_action(input: &str) -> Option<String> {
    if let Some((to, text)) = input
        .split("route:")
        .nth(1)
        .and_then(|r| r.lines().next())
        .and_then(|r| r.split_once(':'))
    {
        return Some(format!(
            "I will pass that on.\n[ACTION] {}",
            json!({"action": "route", "to": to.trim(), "text": text.trim()})
        ));
    }
    if let Some(name) = input
        .split("kill-all:")
        .nth(1)
        .and_then(|r| r.lines().next())
    {
        return Some(format!(
            "As you wish, with all that came from them.\n[ACTION] {}",
            json!({"action": "kill", "name": name.trim(), "cascade": true})
        ));
    }
    for action in ["kill", "recall"] {
        if let Some(name) = input
            .split(&format!("{action}:"))
            .nth(1)
            .and_then(|r| r.lines().next())
        {
            return Some(format!(
                "As you wish.\n[ACTION] {}",
                json!({"action": action, "name": name.trim()})
            ));
        }
    }
    if let Some(list) = input.split("status:").nth(1) {
        let agents: Vec<Value> = list
            .lines()
            .next()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| json!({"name": n, "status": "alive"}))
            .collect();
        return Some(format!(
            "Here is the team as I see it.\n[ACTION] {}",
            json!({"action": "status", "agents": agents})
        ));
    }
    None
}
