//! Markers in an agent's text (DESIGN §6): one per line, parsed only from complete lines and
//! stripped from what is displayed.
//!
//! - `[ACTION] {json}` with `"action"`: `register`, `status`, `summon`, `dismiss`, `kill`,
//!   `recall`, `fork`, `route`, `state`, `soul`; for quests `quest_plan`, `stage_next`,
//!   `report` (the lead), `finding`, `stage_done`; for jobs `job` (the lead), `claim`,
//!   `job_done`
//! - legacy `[AGENT_REGISTERED] {json}` (a register) and `[AGENT_STATUS] {json}` (a status)
//! - `[STATE:name]`, optionally followed by a summary on the same line
//!
//! A line that starts like a marker but does not parse is an error and is stripped too: the
//! display never shows half a protocol line, and the parser never panics.
//!
//! Lines inside fenced code (```` ``` ```` or `~~~`, as CommonMark fences them) are text, never
//! markers: an agent showing a marker in a code block is quoting it, not acting.

use serde::Deserialize;
use serde_json::Value;

const ACTION: &str = "[ACTION]";
const LEGACY_REGISTERED: &str = "[AGENT_REGISTERED]";
const LEGACY_STATUS: &str = "[AGENT_STATUS]";
const STATE: &str = "[STATE:";

/// The prefixes that make a line a marker line.
pub const MARKER_PREFIXES: [&str; 4] = [ACTION, LEGACY_REGISTERED, LEGACY_STATUS, STATE];

/// One agent in a status report.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum StatusEntry {
    Name(String),
    Full {
        name: String,
        #[serde(default)]
        status: Option<String>,
        #[serde(default, rename = "gridPosition")]
        grid_position: Option<u8>,
    },
}

impl StatusEntry {
    pub fn name(&self) -> &str {
        match self {
            StatusEntry::Name(n) | StatusEntry::Full { name: n, .. } => n,
        }
    }

    /// An entry without a status counts as alive: listing an agent is reporting it alive.
    pub fn is_alive(&self) -> bool {
        match self {
            StatusEntry::Name(_) => true,
            StatusEntry::Full { status, .. } => status.as_deref().is_none_or(|s| s == "alive"),
        }
    }
}

/// A parsed marker.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum Marker {
    Register {
        name: String,
        #[serde(default, rename = "colorName")]
        color_name: Option<String>,
        #[serde(default, alias = "individuationArtifact")]
        soul: Option<String>,
        #[serde(default, rename = "gridPosition")]
        grid_position: Option<u8>,
    },
    Status {
        agents: Vec<StatusEntry>,
    },
    /// Newborns into the empty seats: those numbered in `seats` (1-9, as `team` numbers
    /// them), the first `count`, or every one.
    Summon {
        #[serde(default)]
        count: Option<u8>,
        #[serde(default)]
        seats: Option<Vec<u8>>,
    },
    /// Put the agent called `name` (or `agent`) to sleep.
    Dismiss {
        #[serde(alias = "agent")]
        name: String,
    },
    /// Retire the agent called `name` (or `agent`) to the Hall (`cascade`: its descendants
    /// too).
    Kill {
        #[serde(alias = "agent")]
        name: String,
        #[serde(default)]
        cascade: bool,
    },
    /// Seat the retired identity called `name` (or `agent`) again, in `seat` (1-9) or the
    /// first empty seat, and wake it.
    Recall {
        #[serde(alias = "agent")]
        name: String,
        #[serde(default)]
        seat: Option<u8>,
    },
    /// Fork an agent (the one that writes it; the lead may name another as `agent`) into
    /// `seat` (1-9) or the first empty seat, with an optional first message.
    Fork {
        #[serde(default)]
        prompt: Option<String>,
        #[serde(default)]
        agent: Option<String>,
        #[serde(default)]
        seat: Option<u8>,
    },
    Route {
        to: String,
        text: String,
    },
    /// `[STATE:name] summary`: a work-cycle state, with what the agent says of it.
    State {
        state: String,
        #[serde(default)]
        summary: String,
    },
    /// A named agent rewrites its soul: a new version, the old ones kept.
    Soul {
        text: String,
    },
    /// The lead's plan of a quest: a process and, per stage, the agents in it.
    #[serde(rename = "quest_plan")]
    QuestPlan {
        template: String,
        stages: Vec<PlanStage>,
    },
    /// The lead moves a quest to its next stage (summoning newcomers for roles, putting agents
    /// to sleep first).
    #[serde(rename = "stage_next")]
    StageNext {
        #[serde(default)]
        summon: Vec<String>,
        #[serde(default)]
        dismiss: Vec<String>,
    },
    /// The lead ends a quest with its report.
    Report {
        title: String,
        body: String,
    },
    /// An agent posts a finding on its quest's board.
    Finding {
        title: String,
        body: String,
        #[serde(default)]
        severity: Option<String>,
        /// The file of the quest's project it is about, and the line.
        #[serde(default)]
        file: Option<String>,
        #[serde(default, deserialize_with = "line_number")]
        line: Option<u32>,
    },
    /// An agent's part of its stage is done.
    #[serde(rename = "stage_done")]
    StageDone {},
    /// The lead offers a job on the board.
    Job {
        title: String,
        text: String,
    },
    /// An agent claims a job (the first claim wins).
    Claim {
        job: String,
    },
    /// The agent that claimed a job finishes it.
    #[serde(rename = "job_done")]
    JobDone {
        job: String,
        result: String,
    },
    /// An agent at work on a project asks the human to review its branch.
    Review {
        #[serde(default)]
        project: Option<String>,
        #[serde(default)]
        note: Option<String>,
    },
    /// An agent says which files (or folders) of a project it means to change, and why.
    #[serde(rename = "claim_files")]
    ClaimFiles {
        paths: Vec<String>,
        #[serde(default)]
        why: String,
        #[serde(default)]
        project: Option<String>,
    },
    /// The lead decides a permission request routed to it (`--approvals lead-first`).
    #[serde(rename = "decide_permission")]
    DecidePermission {
        request: String,
        /// `allow` or `deny`.
        decision: String,
        #[serde(default)]
        reason: Option<String>,
    },
    /// The lead puts an agent to work on a linked project (by their names).
    #[serde(rename = "put_to_work")]
    PutToWork {
        #[serde(alias = "name")]
        agent: String,
        project: String,
    },
}

/// One stage of the lead's plan: the agents in it, by name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PlanStage {
    #[serde(default)]
    pub agents: Vec<String>,
}

/// A marker line that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerError {
    pub line: String,
    pub error: String,
}

/// The result of parsing a block of text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The text with every marker line removed.
    pub display: String,
    pub markers: Vec<Marker>,
    pub errors: Vec<MarkerError>,
}

/// Whether `line` is a marker line (after leading whitespace).
pub fn is_marker_line(line: &str) -> bool {
    let t = line.trim_start();
    MARKER_PREFIXES.iter().any(|p| t.starts_with(p))
}

/// Parses one line. `None` if it is not a marker line.
pub fn parse_line(line: &str) -> Option<Result<Marker, MarkerError>> {
    let t = line.trim();
    let err = |error: String| MarkerError {
        line: t.to_string(),
        error,
    };
    if let Some(rest) = t.strip_prefix(ACTION) {
        return Some(parse_json::<Marker>(rest).map_err(err));
    }
    if let Some(rest) = t.strip_prefix(LEGACY_REGISTERED) {
        return Some(
            with_action(rest, "register")
                .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
                .map_err(err),
        );
    }
    if let Some(rest) = t.strip_prefix(LEGACY_STATUS) {
        return Some(
            with_action(rest, "status")
                .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
                .map_err(err),
        );
    }
    let rest = t.trim_start().strip_prefix(STATE)?;
    let result = match rest.split_once(']') {
        Some((name, summary)) if valid_state_name(name) => Ok(Marker::State {
            state: name.to_string(),
            summary: summary.trim().to_string(),
        }),
        Some(_) => Err(err(
            "a state name is 1-32 characters of a-z, 0-9 and _".into()
        )),
        None => Err(err("missing closing ]".into())),
    };
    Some(result)
}

fn valid_state_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn parse_json<T: for<'de> Deserialize<'de>>(rest: &str) -> Result<T, String> {
    serde_json::from_str(rest.trim()).map_err(|e| e.to_string())
}

/// Legacy markers carry the object without an `action` field: add it.
fn with_action(rest: &str, action: &str) -> Result<Value, String> {
    let mut v: Value = parse_json(rest)?;
    match v.as_object_mut() {
        Some(obj) => {
            obj.insert("action".into(), action.into());
            Ok(v)
        }
        None => Err("expected a JSON object".into()),
    }
}

/// Whether a line is inside fenced code, line by line (CommonMark: an opening fence is up to
/// three spaces, then three or more backticks or tildes; it closes with a line of at least as
/// many of the same character and nothing else; an unclosed fence runs to the end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fences {
    open: Option<(u8, usize)>,
}

impl Fences {
    /// Feeds one line; whether it is code (a fence line itself counts as code).
    pub fn code(&mut self, line: &str) -> bool {
        let line = line.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let fence = (indent <= 3).then(|| fence(&line[indent..])).flatten();
        match (self.open, fence) {
            (None, Some((c, n, _))) => {
                self.open = Some((c, n));
                true
            }
            (Some((c, n)), Some((c2, n2, rest)))
                if c == c2 && n2 >= n && rest.trim().is_empty() =>
            {
                self.open = None;
                true
            }
            (open, _) => open.is_some(),
        }
    }
}

/// A fence at the start of `s`: its character, its length and what follows it.
fn fence(s: &str) -> Option<(u8, usize, &str)> {
    let c = *s.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = s.bytes().take_while(|&b| b == c).count();
    let rest = &s[n..];
    // A backtick fence's info string has no backticks.
    (n >= 3 && !(c == b'`' && rest.contains('`'))).then_some((c, n, rest))
}

/// Parses a complete block of text (a Claude `assistant` text block is always complete).
pub fn parse_block(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut kept: Vec<&str> = Vec::new();
    let mut fences = Fences::default();
    for line in text.split('\n') {
        if fences.code(line) {
            kept.push(line);
            continue;
        }
        match parse_line(line) {
            Some(Ok(m)) => parsed.markers.push(m),
            Some(Err(e)) => parsed.errors.push(e),
            None => kept.push(line),
        }
    }
    parsed.display = kept.join("\n").trim().to_string();
    parsed
}

/// Parses streamed text: only complete lines are parsed; the unfinished tail waits for more.
#[derive(Clone, Debug, Default)]
pub struct LineBuffer {
    pending: String,
    fences: Fences,
}

impl LineBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk and parses every line it completed. Display lines keep their newlines.
    pub fn push(&mut self, chunk: &str) -> Parsed {
        self.pending.push_str(chunk);
        let Some(end) = self.pending.rfind('\n') else {
            return Parsed::default();
        };
        let complete: String = self.pending.drain(..=end).collect();
        let mut parsed = Parsed::default();
        for line in complete.split_inclusive('\n') {
            if self.fences.code(line) {
                parsed.display.push_str(line);
                continue;
            }
            match parse_line(line) {
                Some(Ok(m)) => parsed.markers.push(m),
                Some(Err(e)) => parsed.errors.push(e),
                None => parsed.display.push_str(line),
            }
        }
        parsed
    }

    /// Ends the stream: the unfinished tail is treated as a complete last line.
    pub fn finish(&mut self) -> Parsed {
        let tail = std::mem::take(&mut self.pending);
        if tail.is_empty() {
            return Parsed::default();
        }
        let mut parsed = self.push(&(tail + "\n"));
        if parsed.display.ends_with('\n') {
            parsed.display.pop();
        }
        parsed
    }
}

/// A line number as an agent writes it: a number, or a number in a string (`"42"`); anything
/// else is no line.
fn line_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Ok(
        match <Option<serde_json::Value> as serde::Deserialize>::deserialize(d)? {
            Some(serde_json::Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        }
        .filter(|n| *n > 0),
    )
}
