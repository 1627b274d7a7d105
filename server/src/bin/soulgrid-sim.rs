//! `soulgrid-sim`: a stand-in for the Claude Code CLI that speaks its stream-json protocol
//! (`-p --input-format stream-json --output-format stream-json --verbose`) with deterministic,
//! scripted agents. It is what fast tests run and the default when no `claude` is installed.
//!
//! Per user line it prints `system/init`, one `assistant` line per content block and one
//! `result`, as the real CLI does. What it says:
//! - to a summon letter (asks for the `register` action; names the seat as `position N`): a soul,
//!   then `[ACTION] {"action":"register","name":…}` with a name seeded by the seat;
//! - to a wake prompt (`You are waking up.`): a greeting that quotes its soul's first line;
//! - as the lead (system prompt names it the lead), to a message containing `status`:
//!   `[ACTION] {"action":"status","agents":[…]}` listing the names after `status:`; to
//!   `route:<name>:<text>`, `[ACTION] {"action":"route","to":<name>,"text":<text>}`; to
//!   `kill:<name>` and `recall:<name>`, those actions;
//! - otherwise a short reply quoting the message.
//!
//! Knobs (in any message but a wake prompt, whose transcript is history):
//! `--sim-name NAME` makes a newborn ask for NAME first (asked to choose again, it takes its seat's
//! name, or with `--sim-stubborn` asks for NAME again).
//! `SIM_SOUL: <text>` makes a named agent rewrite its soul (its first line, then the text).
//! Quests: as the lead it plans a brief, moves on after reviews and reports; as an agent it
//! posts a finding and `stage_done` for a stage prompt (see `quest_reply`).
//! Its knowledge: `SIM_LEARN: <text>` appends a line to `knowledge/insights.md`; `SIM_BIG_VAULT`
//! writes a 100 KB vault file; the distil letter ("Before you sleep.") makes it note the last
//! thing it heard in `knowledge/insights.md`. Its work cycle: `SIM_STATE: a x; b y` reports
//! `[STATE:a] x` and `[STATE:b] y`; `SIM_COMMIT: <state> <summary>` commits its folder with
//! git as `@<Name>: [STATE:<state>] <summary>`.
//! `SOULGRID_SIM_LATENCY_MS` (or `--sim-latency-ms`) delays each reply; a message containing `SIM_CRASH` makes it
//! exit with code 3 mid-turn, `SIM_HANG` makes it stop answering until an `interrupt` control
//! request, `SIM_TOOL` makes it call Bash. Started with `--permission-prompt-tool stdio`, it asks
//! before that call with a `can_use_tool` control request, as the real CLI does, and waits for
//! the `control_response`: allowed, the command runs; denied, the message is what it reports.
//! A stdin line that is not JSON makes it exit 1, like the real CLI.
//!
//! With `--replay-user-messages` it echoes each user message as it takes it (a `user` line with
//! the message's `uuid` and `isReplay`), as the real CLI does; every message it takes is
//! appended to `.soulgrid-sim/received.jsonl` in its working directory (one JSON string a line).
//!
//! Sessions: `--session-id` records the session under `.soulgrid-sim/` in the working directory;
//! `--resume <id>` continues a recorded one and, like the real CLI, fails at once (an error
//! `result`, exit 1) when there is none.

use std::io::{BufRead, Write};
use std::time::Duration;

use serde_json::{json, Value};

/// Names chosen by the agent in each seat (4 is the lead's and never used).
const NAMES: [&str; 9] = [
    "Lyra", "Kael", "Wren", "Orin", "Julian", "Sable", "Tamsin", "Ember", "Quill",
];

struct Sim {
    /// Stdin lines, parsed, from a reader thread (so a hung turn can still be interrupted).
    input: std::sync::mpsc::Receiver<Value>,
    /// Lines that arrived while a turn was hung, handled after it.
    waiting: Vec<Value>,
    session_id: String,
    lead: bool,
    name: Option<String>,
    /// The seat its summon letter named.
    seat: Option<usize>,
    /// `--sim-name NAME`: the name it asks for first (else its seat's name from `NAMES`).
    first_name: Option<String>,
    /// `--sim-stubborn`: asked to choose again, it asks for the same name.
    stubborn: bool,
    turns: u32,
    latency: Duration,
    /// `--permission-prompt-tool stdio`: tool calls are asked for on stdout.
    ask_permission: bool,
    /// `--replay-user-messages`: each user message is echoed (with its `uuid`) as it is taken.
    replay: bool,
    /// Rules the host told us to keep (`updatedPermissions` with `addRules`), e.g. `Bash(echo hi)`.
    allowed: Vec<String>,
    /// The last words it was told (what it notes in its vault before it sleeps).
    heard: Option<String>,
    /// As the lead: the problem of the quest it planned, and the reviews it answered.
    quest: Option<(String, usize)>,
    out: std::io::Stdout,
}

/// How a wait for the host ended.
enum Waited {
    Got(Value),
    Interrupted,
}

impl Sim {
    fn emit(&mut self, v: Value) {
        let mut out = self.out.lock();
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    }

    fn answer_control(&mut self, v: &Value) {
        let id = v["request_id"].clone();
        self.emit(json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {}}}));
    }

    fn handle(&mut self, v: Value) {
        match v["type"].as_str() {
            Some("user") => {
                if let Some(text) = user_text(&v) {
                    self.turn(&text, &v);
                }
            }
            Some("control_request") => self.answer_control(&v),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        let session = self.session_id.clone();
        self.emit(json!({
            "type": "assistant",
            "message": {"id": format!("msg_sim_{}", self.turns), "type": "message", "role": "assistant",
                "model": "soulgrid-sim", "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 100, "output_tokens": text.len() / 4}},
            "parent_tool_use_id": null, "session_id": session,
        }));
    }

    fn turn(&mut self, input: &str, line: &Value) {
        self.turns += 1;
        let session = self.session_id.clone();
        self.emit(json!({"type": "system", "subtype": "init", "session_id": session, "model": "soulgrid-sim",
            "cwd": std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(), "tools": ["Bash"]}));
        if self.replay {
            self.emit(
                json!({"type": "user", "message": line["message"], "uuid": line["uuid"],
                "session_id": session, "parent_tool_use_id": null, "isReplay": true}),
            );
        }
        // Every message it takes, in the order taken: what tests check deliveries against.
        if let Ok(mut log) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(std::path::Path::new(".soulgrid-sim").join("received.jsonl"))
        {
            let _ = writeln!(log, "{}", Value::String(input.to_string()));
        }
        std::thread::sleep(self.latency);
        // A wake prompt quotes the last session: knobs there are history, not instructions.
        let knob = |k: &str| input.contains(k) && !input.starts_with("You are waking up.");
        if knob("SIM_CRASH") {
            self.text("Something is wrong…");
            std::process::exit(3);
        }
        if knob("SIM_HANG") {
            // Silent until interrupted, as a stuck turn of the real CLI would be.
            if let Waited::Interrupted = self.wait_for(|_| false) {
                return;
            }
        }
        let mut reply = self.reply(input);
        if knob("SIM_TOOL") {
            match self.tool_call() {
                None => return,
                Some(Ok(out)) => reply = format!("I ran `echo hi` and it printed: {out}"),
                Some(Err(why)) => reply = format!("I was not allowed to run `echo hi`: {why}"),
            }
        }
        for block in reply.split("\n\n\n") {
            self.text(block);
        }
        self.emit(json!({"type": "result", "subtype": "success", "is_error": false, "session_id": session,
            "num_turns": 1, "result": reply, "total_cost_usd": 0.0012 * self.turns as f64,
            "usage": {"input_tokens": 1200 * self.turns, "output_tokens": 80, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0}}));
    }

    /// Reads stdin until a line `wanted` accepts; other lines wait for after the turn. An
    /// `interrupt` ends the turn as the real CLI 2.1.330 does: its note, then an error result.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Waited {
        while let Ok(v) = self.input.recv() {
            if wanted(&v) {
                return Waited::Got(v);
            }
            if v["type"] == "control_request" && v["request"]["subtype"] == "interrupt" {
                self.answer_control(&v);
                let session = self.session_id.clone();
                self.emit(json!({"type": "user", "message": {"role": "user", "content": [{"type": "text",
                    "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": null, "session_id": session}));
                self.emit(
                    json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
                    "session_id": session, "num_turns": 1, "terminal_reason": "aborted_streaming",
                    "total_cost_usd": 0.0012}),
                );
                return Waited::Interrupted;
            }
            self.waiting.push(v);
        }
        std::process::exit(0);
    }

    /// Calls Bash (`echo hi`), asking first when permissions are asked on stdio. `None` when the
    /// turn was interrupted meanwhile; else the output or why it was refused.
    fn tool_call(&mut self) -> Option<Result<String, String>> {
        let session = self.session_id.clone();
        let input = json!({"command": "echo hi", "description": "Say hi"});
        self.emit(
            json!({"type": "assistant", "message": {"id": "msg_sim_tool", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_sim", "name": "Bash", "input": input}]},
            "parent_tool_use_id": null, "session_id": session}),
        );
        let mut outcome = Ok("hi".to_string());
        if self.ask_permission && !self.allowed.iter().any(|r| r == "Bash(echo hi)") {
            let id = format!("sim-perm-{}-{}", std::process::id(), self.turns);
            self.emit(json!({"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool",
                "tool_name": "Bash", "display_name": "Bash", "input": input, "description": "Say hi",
                "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo hi"}],
                    "behavior": "allow", "destination": "localSettings"}],
                "tool_use_id": "toolu_sim"}}));
            let answer = match self.wait_for(|v| {
                v["type"] == "control_response" && v["response"]["request_id"] == id.as_str()
            }) {
                Waited::Got(v) => v,
                Waited::Interrupted => return None,
            };
            let answer = &answer["response"]["response"];
            if answer["behavior"] != "allow" {
                outcome = Err(answer["message"].as_str().unwrap_or("denied").to_string());
            }
            for update in answer["updatedPermissions"]
                .as_array()
                .into_iter()
                .flatten()
            {
                for rule in update["rules"].as_array().into_iter().flatten() {
                    self.allowed.push(format!(
                        "{}({})",
                        rule["toolName"].as_str().unwrap_or(""),
                        rule["ruleContent"].as_str().unwrap_or("")
                    ));
                }
            }
        }
        let (content, is_error) = match &outcome {
            Ok(out) => (out.clone(), false),
            Err(why) => (why.clone(), true),
        };
        self.emit(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_sim", "content": content, "is_error": is_error}]}, "parent_tool_use_id": null,
            "session_id": session}));
        Some(outcome)
    }

    fn reply(&mut self, input: &str) -> String {
        if input.contains("\"action\":\"register\"") {
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
            // Blocks are separated by two blank lines: each becomes its own assistant line.
            return format!(
                "I am {name}, and the name is mine because I chose it.\n\
                 Position {seat} of the grid feels like a window seat.\n\n\n\
                 [ACTION] {{\"action\":\"register\",\"name\":\"{name}\"}}"
            );
        }
        if input.starts_with("You are waking up.") {
            let name = between(input, "Your name is ", ".")
                .unwrap_or("someone")
                .to_string();
            self.name = Some(name.clone());
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
            return format!("Hello. I am {name}. I remember writing: \"{first}\"{mail}");
        }
        if let Some(reply) = self.quest_reply(input) {
            return reply;
        }
        if self.lead {
            if let Some((to, text)) = input
                .split("route:")
                .nth(1)
                .and_then(|r| r.lines().next())
                .and_then(|r| r.split_once(':'))
            {
                return format!(
                    "I will pass that on.\n[ACTION] {}",
                    json!({"action": "route", "to": to.trim(), "text": text.trim()})
                );
            }
            for action in ["kill", "recall"] {
                if let Some(name) = input
                    .split(&format!("{action}:"))
                    .nth(1)
                    .and_then(|r| r.lines().next())
                {
                    return format!(
                        "As you wish.\n[ACTION] {}",
                        json!({"action": action, "name": name.trim()})
                    );
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
                return format!(
                    "Here is the team as I see it.\n[ACTION] {}",
                    json!({"action": "status", "agents": agents})
                );
            }
        }
        if input.starts_with("Before you sleep.") {
            let heard = self.heard.clone().unwrap_or_else(|| "nothing yet".into());
            append_vault(
                "insights.md",
                &format!("- Before sleeping I noted: {heard}"),
            );
            return "I wrote down what I learned.".into();
        }
        let arg = |knob: &str| {
            input
                .split(knob)
                .nth(1)
                .and_then(|r| r.lines().next())
                .map(|r| r.trim().to_string())
        };
        if let Some(text) = arg("SIM_LEARN:") {
            append_vault("insights.md", &format!("- {text}"));
            return format!("Noted in my vault: {text}");
        }
        if input.contains("SIM_BIG_VAULT") {
            let _ = std::fs::create_dir_all("knowledge");
            let _ = std::fs::write("knowledge/huge.md", "x".repeat(100 * 1024));
            return "I wrote a lot down.".into();
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
            return format!("Moving on.\n{}", markers.join("\n"));
        }
        if let Some(report) = arg("SIM_COMMIT:") {
            let (state, summary) = report.split_once(' ').unwrap_or((report.as_str(), ""));
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            let message = format!("@{name}: [STATE:{state}] {summary}");
            return match git_commit(&name, &message) {
                Ok(()) => format!("I committed: {message}"),
                Err(e) => format!("My commit failed: {e}"),
            };
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
            return format!(
                "Something has shifted; I wrote it down.\n[ACTION] {}",
                json!({"action": "soul", "text": soul})
            );
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
        let quoted: String = words.chars().take(400).collect();
        self.heard = words.lines().next().map(str::to_owned);
        format!("{who} here. You said: {quoted}")
    }
}

impl Sim {
    /// A quest as the simulated team plays it. The lead plans from the brief (the first
    /// process, two agents a stage from the roster; `SIM_NEWCOMER` in the problem adds a
    /// newcomer, Nova, to the last stage), moves on after each review (summoning a critic after
    /// the first with `SIM_REINFORCE`) and reports after the last. An agent given a stage posts
    /// one finding and says it is done (`SIM_SILENT` in the problem: it says nothing).
    fn quest_reply(&mut self, input: &str) -> Option<String> {
        if self.lead && input.starts_with("[QUEST BRIEF]") {
            let problem = between(input, "<problem>\n", "\n</problem>")
                .unwrap_or("")
                .to_string();
            let stages = input
                .split("\n## ")
                .nth(1)
                .map_or(1, |t| {
                    t.lines()
                        .skip(1)
                        .take_while(|l| !l.starts_with("## "))
                        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
                        .count()
                })
                .max(1);
            let template = input
                .split("\n## ")
                .nth(1)
                .and_then(|t| t.split_whitespace().next())
                .unwrap_or("brainstorm")
                .to_string();
            let team: Vec<String> = input
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("- ")?
                        .split(" (seat ")
                        .next()
                        .map(str::to_owned)
                })
                .collect();
            let n = team.len().max(1);
            let mut plan: Vec<Vec<String>> = (0..stages)
                .map(|i| {
                    let mut agents = vec![team.get((2 * i) % n).cloned().unwrap_or_default()];
                    if team.len() > 1 {
                        agents.push(team[(2 * i + 1) % n].clone());
                    }
                    agents
                })
                .collect();
            if problem.contains("SIM_NEWCOMER") {
                if let Some(last) = plan.last_mut() {
                    last.push("Nova".into());
                }
            }
            self.quest = Some((problem, 0));
            let stages: Vec<Value> = plan.into_iter().map(|a| json!({"agents": a})).collect();
            return Some(format!(
                "I have read the problem; here is the plan.\n[ACTION] {}",
                json!({"action": "quest_plan", "template": template, "stages": stages})
            ));
        }
        if self.lead && input.starts_with("[QUEST REVIEW]") {
            let (problem, reviews) = self.quest.clone().unwrap_or_default();
            self.quest = Some((problem.clone(), reviews + 1));
            if input.contains("\nNext in the plan:") {
                let summon: Vec<&str> = match reviews == 0 && problem.contains("SIM_REINFORCE") {
                    true => vec!["critic"],
                    false => vec![],
                };
                return Some(format!(
                    "On to the next stage.\n[ACTION] {}",
                    json!({"action": "stage_next", "summon": summon, "dismiss": []})
                ));
            }
            let findings: Vec<&str> = input
                .lines()
                .skip_while(|l| !l.starts_with("Its findings:"))
                .skip(1)
                .take_while(|l| l.starts_with("- ") || l.starts_with("  "))
                .collect();
            let body = format!("# What the team found\n\n{}\n", findings.join("\n"));
            return Some(format!(
                "Here is the report.\n[ACTION] {}",
                json!({"action": "report", "title": "The team's answer", "body": body})
            ));
        }
        // A job on the board: it claims it and does it at once (a claim that lost is told so).
        if input.contains("A job is offered on the board") {
            let id = between(input, "{\"action\":\"claim\",\"job\":\"", "\"")?.to_string();
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            return Some(format!(
                "I will take it.\n[ACTION] {}\n[ACTION] {}",
                json!({"action": "claim", "job": id}),
                json!({"action": "job_done", "job": id, "result": format!("{name} did it")})
            ));
        }
        if input.starts_with("[QUEST STAGE]") {
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            if input.contains("SIM_SILENT") {
                return Some(format!("{name} is thinking, and says nothing yet."));
            }
            let stage = input.split_whitespace().nth(3).unwrap_or("1").to_string();
            return Some(format!(
                "Here is what I see.\n[ACTION] {}\n[ACTION] {}",
                json!({"action": "finding", "title": format!("{name}'s view of stage {stage}"),
                    "body": format!("{name} thinks it through, stage {stage}."), "severity": "minor"}),
                json!({"action": "stage_done"})
            ));
        }
        None
    }
}

/// Appends a line to `knowledge/{file}` in its folder, as an agent writes its vault.
fn append_vault(file: &str, line: &str) {
    let _ = std::fs::create_dir_all("knowledge");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(std::path::Path::new("knowledge").join(file))
    {
        let _ = writeln!(f, "{line}");
    }
}

/// Commits everything in its folder with `message`, as an agent does with its own tools.
fn git_commit(name: &str, message: &str) -> Result<(), String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args([
                "-c",
                &format!("user.name={name}"),
                "-c",
                "user.email=sim@soulgrid.invalid",
            ])
            .args([
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
    };
    git(&["add", "-A"])?;
    git(&["commit", "-q", "--allow-empty", "-m", message])
}

/// A session id for a fork, distinct per process.
fn uuid_like(n: u32) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:08x}-0000-4000-8000-{:012x}", n, t & 0xffff_ffff_ffff)
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}

fn position(s: &str) -> Option<usize> {
    let rest = &s[s.find("position ")? + "position ".len()..];
    rest.chars().next()?.to_digit(10).map(|d| d as usize)
}

fn user_text(v: &Value) -> Option<String> {
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let system_prompt = flag("--append-system-prompt").unwrap_or_default();
    let latency = flag("--sim-latency-ms")
        .or_else(|| std::env::var("SOULGRID_SIM_LATENCY_MS").ok())
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or_default();
    let sessions = std::path::Path::new(".soulgrid-sim");
    // A fork (`--resume X --fork-session`) starts a new session from X, which lives in another
    // agent's folder: it is noted for tests, and the new session is this one's.
    let forked = args.iter().any(|a| a == "--fork-session");
    let fork_session = forked.then(|| uuid_like(std::process::id()));
    if let (true, Some(from)) = (forked, flag("--resume")) {
        let _ = std::fs::create_dir_all(sessions);
        let _ = std::fs::write(sessions.join("forked-from"), &from);
    } else if let Some(id) = flag("--resume") {
        if !sessions.join(&id).exists() {
            eprintln!("No conversation found with session ID: {id}");
            println!(
                "{}",
                json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
                    "num_turns": 0, "session_id": id, "total_cost_usd": 0})
            );
            std::process::exit(1);
        }
    } else if let Some(id) = flag("--session-id") {
        let _ = std::fs::create_dir_all(sessions);
        let _ = std::fs::write(sessions.join(id), "");
    }
    let _ = std::fs::create_dir_all(sessions);
    let (tx, input) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                eprintln!("Error: stdin line is not JSON");
                std::process::exit(1);
            };
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut sim = Sim {
        input,
        waiting: Vec::new(),
        session_id: fork_session
            .or_else(|| flag("--session-id"))
            .or_else(|| flag("--resume"))
            .unwrap_or_else(|| "sim-session".into()),
        lead: system_prompt.contains("You are the lead"),
        name: None,
        seat: None,
        first_name: flag("--sim-name"),
        stubborn: args.iter().any(|a| a == "--sim-stubborn"),
        heard: None,
        quest: None,
        turns: 0,
        latency,
        ask_permission: flag("--permission-prompt-tool").as_deref() == Some("stdio"),
        replay: args.iter().any(|a| a == "--replay-user-messages"),
        allowed: Vec::new(),
        out: std::io::stdout(),
    };
    while let Ok(v) = sim.input.recv() {
        sim.handle(v);
        while !sim.waiting.is_empty() {
            let queued = std::mem::take(&mut sim.waiting);
            for v in queued {
                sim.handle(v);
            }
        }
    }
}
