//! `soulgrid-sim`: a stand-in for the Claude Code CLI that speaks its stream-json protocol
//! (`-p --input-format stream-json --output-format stream-json --verbose`) with deterministic,
//! scripted agents. It is what fast tests run and the default when no `claude` is installed.
//!
//! Per user line it prints `system/init`, one `assistant` line per content block and one
//! `result`, as the real CLI does. It is instant: a turn's lines go out together, in one write,
//! as the real CLI's would if its model answered at once (what it wrote so far goes out before
//! anything it waits for: its latency, the host's answer, an interrupt). What it says:
//! - to a summon letter (asks for the `register` action; names the seat as `in seat N`, 1-9): a soul,
//!   then `[ACTION] {"action":"register","name":…}` with a name seeded by the seat;
//! - to a wake prompt (`You are waking up.`): a greeting that quotes its soul's first line;
//! - as the lead (system prompt names it the lead), to a message containing `status`:
//!   `[ACTION] {"action":"status","agents":[…]}` listing the names after `status:`; to
//!   `route:<name>:<text>`, `[ACTION] {"action":"route","to":<name>,"text":<text>}`; to
//!   `kill:<name>` and `recall:<name>`, those actions (`kill-all:<name>` with `cascade`);
//! - otherwise an answer in its own voice (`voice.rs`: a temper per name), quoting the message.
//!
//! Knobs (in any message but a wake prompt, whose transcript is history):
//! `--sim-name NAME` makes a newborn ask for NAME first (asked to choose again, it takes its seat's
//! name, or with `--sim-stubborn` asks for NAME again).
//! `SIM_SOUL: <text>` makes a named agent rewrite its soul (its first line, then the text).
//! Quests: as the lead it plans a brief, moves on after reviews and reports; as an agent it
//! posts a finding and `stage_done` for a stage prompt (see `quest_reply`), and claims and does
//! jobs: with Soulgrid's tools when the host serves them (`tools.rs`), else with markers.
//! `SIM_CALL: <tool> <json>` on a line of its own calls Soulgrid's tool and says its answer
//! ("Tool <tool> answered (ok|error): <text>").
//! Its knowledge: `SIM_LEARN: <text>` appends a line to `knowledge/insights.md`; `SIM_BIG_VAULT`
//! writes a 100 KB vault file; the distil letter ("Before you sleep.") makes it note the last
//! thing it heard in `knowledge/insights.md`. Its work cycle: `SIM_STATE: a x; b y` reports
//! `[STATE:a] x` and `[STATE:b] y`; `SIM_COMMIT: <state> <summary>` commits its folder with
//! git as `@<Name>: [STATE:<state>] <summary>`.
//! Its work on code (`work.rs`): waking with worktrees (`--add-dir`) it leaves its mark in each
//! one's README and commits; asked for changes, it makes and commits them and asks for a review;
//! `SIM_EDIT: <path> <text>` and `SIM_WORK_COMMIT: <message>` edit and commit there.
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

mod files;
mod permissions;
mod quest;
mod reply;
mod tools;
mod voice;
mod work;

use files::{user_text, uuid_like};

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
    /// Lines written and not yet sent ([`Sim::send`]).
    out: Vec<u8>,
    /// The host serves Soulgrid's tools (its `initialize` named the `soulgrid` MCP server).
    mcp: bool,
    /// Tool calls made, for their ids.
    calls: u32,
    /// Markers to write at the end of this turn's reply (tools, when there is no MCP server).
    marker_lines: Vec<String>,
    /// An interrupt came while a tool call waited: the turn is over.
    cut: bool,
    /// Its worktrees (`--add-dir`), where it works on the user's code (`work.rs`).
    worktrees: Vec<std::path::PathBuf>,
}

/// How a wait for the host ended.
enum Waited {
    Got(Value),
    Interrupted,
}

impl Sim {
    /// Writes a line; it goes out with the next [`Sim::send`].
    fn emit(&mut self, v: Value) {
        let _ = writeln!(self.out, "{v}");
    }

    /// Sends what was written, in one write.
    fn send(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&self.out);
        let _ = stdout.flush();
        self.out.clear();
    }

    fn answer_control(&mut self, v: &Value) {
        if v["request"]["subtype"] == "initialize" {
            self.initialized(&v["request"]);
        }
        let id = v["request_id"].clone();
        self.emit(json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {}}}));
    }

    /// Its name, kept with its session (for a `--resume`).
    fn remember_name(&self) {
        if let Some(name) = &self.name {
            let _ = std::fs::write(
                std::path::Path::new(".soulgrid-sim").join(&self.session_id),
                name,
            );
        }
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
        if !self.latency.is_zero() {
            self.send();
            std::thread::sleep(self.latency);
        }
        // A wake prompt quotes the last session: knobs there are history, not instructions.
        let knob = |k: &str| input.contains(k) && !input.starts_with("You are waking up.");
        if knob("SIM_CRASH") {
            self.text("Something is wrong…");
            self.send();
            std::process::exit(3);
        }
        if knob("SIM_HANG") {
            // Silent until interrupted, as a stuck turn of the real CLI would be.
            if let Waited::Interrupted = self.wait_for(|_| false) {
                return;
            }
        }
        let mut reply = self.reply(input);
        if std::mem::take(&mut self.cut) {
            return;
        }
        let markers = std::mem::take(&mut self.marker_lines);
        if !markers.is_empty() {
            reply = format!("{reply}\n{}", markers.join("\n"));
        }
        // `SIM_TOOLS:N`: N calls at once (as the CLI asks for parallel tool calls), each asked.
        if let Some(n) = input
            .split("SIM_TOOLS:")
            .nth(1)
            .and_then(|r| r.split_whitespace().next()?.parse::<usize>().ok())
        {
            let asked = self.ask_many(n.min(500));
            reply = format!("{asked} of my {n} calls were allowed");
        } else if knob("SIM_TOOL") {
            // `SIM_TOOL_RM`: a call the human keeps (removing files) instead of `echo hi`.
            let command = match knob("SIM_TOOL_RM") {
                true => "rm -rf build",
                false => "echo hi",
            };
            match self.tool_call(command) {
                None => return,
                Some(Ok(out)) => reply = format!("I ran `{command}` and it printed: {out}"),
                Some(Err(why)) => reply = format!("I was not allowed to run `{command}`: {why}"),
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
        self.send();
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
}

#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
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
        // A resumed session remembers who it is, as the real CLI's conversation does.
        name: flag("--resume")
            .filter(|_| !forked)
            .and_then(|id| std::fs::read_to_string(sessions.join(id)).ok())
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty()),
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
        out: Vec::new(),
        mcp: false,
        calls: 0,
        marker_lines: Vec::new(),
        cut: false,
        worktrees: args
            .windows(2)
            .filter(|w| w[0] == "--add-dir")
            .map(|w| std::path::PathBuf::from(&w[1]))
            .collect(),
    };
    while let Ok(v) = sim.input.recv() {
        sim.handle(v);
        sim.send();
        while !sim.waiting.is_empty() {
            let queued = std::mem::take(&mut sim.waiting);
            for v in queued {
                sim.handle(v);
                sim.send();
            }
        }
    }
}
