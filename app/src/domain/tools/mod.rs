//! Soulgrid's own tools, as an agent's `soulgrid` MCP server lists them (DESIGN §6).
//!
//! - `mod.rs`: the catalogue: each tool's name, description and input schema, and who has it
//! - `call.rs`: a call checked and turned into what it does: the marker it mirrors (so a tool
//!   and its marker are one rule in two syntaxes, validated by the same code), or an answer
//!   from the documents or the inbox
//! - `team.rs`: `team`'s answer, and seats as an agent numbers them (1-9)

use serde_json::{json, Map, Value};

mod call;
mod team;

pub use call::{to_call, Call, Refusal, MAX_ARGUMENT_BYTES};
pub use team::{seat_from_number, seat_number, team};

/// What a tool does when called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Does {
    /// What the marker with this `action` does.
    Marker(&'static str),
    /// Answers who is on the team (from the documents).
    Team,
    /// Answers what waits in the caller's inbox.
    CheckMail,
    /// Answers the caller's unread mail and marks what it returned read.
    ReadMail,
}

/// One tool: its name (the model sees `mcp__soulgrid__<name>`), what it is for, what it does,
/// and whether only the lead has it.
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub does: Does,
    pub lead_only: bool,
    /// The input's properties: (name, JSON type, description, required).
    pub params: &'static [(&'static str, &'static str, &'static str, bool)],
}

impl Tool {
    /// The marker's `action` it mirrors, if it is one.
    pub fn action(&self) -> Option<&'static str> {
        match self.does {
            Does::Marker(action) => Some(action),
            _ => None,
        }
    }
}

const AGENT: &str = "The agent's name, as `team` lists it.";
const SEAT: &str = "A seat's number, 1-9 as `team` numbers them (5 is the lead's).";

/// Every tool, in the order `tools/list` gives them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "team",
        description: "Who is on the team: each seat's agent (seats numbered 1-9), whether it is awake, working or asleep, its work state, and who is in the Hall. Call it before naming an agent or a seat.",
        does: Does::Team,
        lead_only: false,
        params: &[],
    },
    Tool {
        name: "check_mail",
        description: "What waits in your inbox: how many unread messages, from whom, and how many are already on their way to you as your next message.",
        does: Does::CheckMail,
        lead_only: false,
        params: &[],
    },
    Tool {
        name: "read_mail",
        description: "Read your unread mail now, oldest first, each under its sender's header; only what is returned is marked read (mail already on its way to you as your next message comes then).",
        does: Does::ReadMail,
        lead_only: false,
        params: &[("max", "integer", "At most this many messages (default 10).", false)],
    },
    Tool {
        name: "send_message",
        description: "Send a message to another agent by name, to the lead (`lead`), to the human (`human`), or to #team (`team`: the human sees every post there; each agent you name in it with `@Name` gets it in its inbox; only the lead may write `@all`). It is filed in their inbox and shown in the console; the result says whether it reaches them now or when they wake.",
        does: Does::Marker("route"),
        lead_only: false,
        params: &[
            ("to", "string", "An agent's name (as `team` lists it), `lead`, `human` or `team` (#team).", true),
            ("text", "string", "What to say.", true),
        ],
    },
    Tool {
        name: "set_work_state",
        description: "Move along your work cycle (bootstrap, inbox, deep_work, reflect, logout…), saying what you do now. A transition the cycle does not allow is refused.",
        does: Does::Marker("state"),
        lead_only: false,
        params: &[
            ("state", "string", "The work state to move to, e.g. deep_work.", true),
            ("summary", "string", "One line: what you do in it.", false),
        ],
    },
    Tool {
        name: "rewrite_soul",
        description: "Write a new version of your soul (who you are, in your own words); the old versions are kept.",
        does: Does::Marker("soul"),
        lead_only: false,
        params: &[("text", "string", "Your soul, whole.", true)],
    },
    Tool {
        name: "fork",
        description: "Fork an agent into an empty seat: a new agent that starts from its conversation (and inherits its work) and chooses its own name. Without `agent` you fork yourself; only the lead may fork another.",
        does: Does::Marker("fork"),
        lead_only: false,
        params: &[
            ("agent", "string", "The agent to fork (default: you). Only the lead may name another.", false),
            ("prompt", "string", "The first thing the fork is told.", false),
            ("seat", "integer", SEAT, false),
        ],
    },
    Tool {
        name: "post_finding",
        description: "Post a finding on your quest's board (during a quest stage you are in).",
        does: Does::Marker("finding"),
        lead_only: false,
        params: &[
            ("title", "string", "A short title.", true),
            ("body", "string", "The finding, in Markdown.", true),
            ("severity", "string", "info, minor, major or critical.", false),
            ("file", "string", "When the quest is on a project: the file it is about (its path in your worktree).", false),
            ("line", "integer", "The line of that file.", false),
        ],
    },
    Tool {
        name: "stage_done",
        description: "Say your part of the current quest stage is done.",
        does: Does::Marker("stage_done"),
        lead_only: false,
        params: &[],
    },
    Tool {
        name: "request_review",
        description: "Ask the human to review your branch of a project you are at work on (commit first: the review is of your commits). It goes into the human's review list.",
        does: Does::Marker("review"),
        lead_only: false,
        params: &[
            ("project", "string", "The project's name (needed only if you work on more than one).", false),
            ("note", "string", "What to look at, in a line or two.", false),
        ],
    },
    Tool {
        name: "claim_files",
        description: "Say which files or folders of a project you mean to change, and why, before you change them. If another agent changes or claims any of them, you are both told, each naming the other. A claim ends when your branch is merged, or after two hours.",
        does: Does::Marker("claim_files"),
        lead_only: false,
        params: &[
            ("paths", "array", "Paths inside the project (files or folders), e.g. [\"src/api.rs\", \"docs\"].", true),
            ("why", "string", "What you mean to do there, in a line.", true),
            ("project", "string", "The project's name (needed only if you work on more than one).", false),
        ],
    },
    Tool {
        name: "put_to_work",
        description: "Put an agent to work on a linked project: it gets a git worktree of its own on its own branch, and restarts with it if it is awake.",
        does: Does::Marker("put_to_work"),
        lead_only: true,
        params: &[
            ("agent", "string", AGENT, true),
            ("project", "string", "The project's name, as the human linked it.", true),
        ],
    },
    Tool {
        name: "decide_permission",
        description: "Decide a permission request Soulgrid sent you (with --approvals lead-first): allow or deny another agent's tool call, with a reason the agent reads. Calls the human keeps (outside the agent's folder and worktrees, the network, removing files) are not yours to decide.",
        does: Does::Marker("decide_permission"),
        lead_only: true,
        params: &[
            ("request", "string", "The request's id, as Soulgrid's message gives it.", true),
            ("decision", "string", "allow or deny.", true),
            ("reason", "string", "Why, in a line (the agent reads it when denied).", false),
        ],
    },
    Tool {
        name: "claim_job",
        description: "Claim a job offered on the board (the first claim wins; the result says whether it is yours).",
        does: Does::Marker("claim"),
        lead_only: false,
        params: &[("job", "string", "The job's id, as the offer gives it.", true)],
    },
    Tool {
        name: "job_done",
        description: "Finish a job you claimed, with its result.",
        does: Does::Marker("job_done"),
        lead_only: false,
        params: &[
            ("job", "string", "The job's id.", true),
            ("result", "string", "What came of it.", true),
        ],
    },
    Tool {
        name: "post_job",
        description: "Offer a job on the board for any awake agent to claim; the result gives its id.",
        does: Does::Marker("job"),
        lead_only: false,
        params: &[
            ("title", "string", "A short title.", true),
            ("text", "string", "What is to be done.", true),
        ],
    },
    Tool {
        name: "summon",
        description: "Summon newborn agents into empty seats (those in `seats`, or every empty one); the result names the seats. Each newborn chooses its own name.",
        does: Does::Marker("summon"),
        lead_only: true,
        params: &[("seats", "array", "Seat numbers to fill, 1-9 as `team` numbers them (default: every empty seat).", false)],
    },
    Tool {
        name: "dismiss",
        description: "Put an agent to sleep (it writes down what it learned first); WAKE or a message brings it back.",
        does: Does::Marker("dismiss"),
        lead_only: true,
        params: &[("agent", "string", AGENT, true)],
    },
    Tool {
        name: "retire",
        description: "Retire an agent to the Hall: its process stops and its seat empties; it can be recalled.",
        does: Does::Marker("kill"),
        lead_only: true,
        params: &[
            ("agent", "string", AGENT, true),
            ("cascade", "boolean", "Its forks too, deepest first.", false),
        ],
    },
    Tool {
        name: "recall",
        description: "Seat an agent from the Hall again (in `seat`, or the first empty one) and wake it.",
        does: Does::Marker("recall"),
        lead_only: true,
        params: &[
            ("agent", "string", "The retired agent's name, as `team` lists the Hall.", true),
            ("seat", "integer", SEAT, false),
        ],
    },
    Tool {
        name: "quest_plan",
        description: "Plan the running quest: a process template and, per stage, the agents in it.",
        does: Does::Marker("quest_plan"),
        lead_only: true,
        params: &[
            ("template", "string", "The process template's name, from the brief.", true),
            ("stages", "array", "One object per stage: {\"agents\": [names]}.", true),
        ],
    },
    Tool {
        name: "stage_next",
        description: "Move the running quest to its next stage, summoning newcomers for roles and putting agents to sleep first.",
        does: Does::Marker("stage_next"),
        lead_only: true,
        params: &[
            ("summon", "array", "Roles to summon newcomers for.", false),
            ("dismiss", "array", "Names of agents to put to sleep.", false),
        ],
    },
    Tool {
        name: "report",
        description: "End the running quest with its report.",
        does: Does::Marker("report"),
        lead_only: true,
        params: &[
            ("title", "string", "The report's title.", true),
            ("body", "string", "The report, in Markdown.", true),
        ],
    },
];

/// Where an agent stands, as far as its tools go: the lead or not, in a running quest stage,
/// a quest under way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    pub lead: bool,
    pub in_stage: bool,
    pub quest_running: bool,
}

impl Standing {
    /// Where the agent called `name` (in `seat`) stands in `docs`.
    pub fn of(
        docs: &crate::domain::docs::Docs,
        seat: crate::domain::Seat,
        name: Option<&str>,
    ) -> Self {
        use crate::domain::quest::{running_quest, stage_of};
        Standing {
            lead: seat == crate::domain::LEAD_SEAT,
            in_stage: name.is_some_and(|n| stage_of(docs, n).is_some()),
            quest_running: running_quest(docs).is_some(),
        }
    }
}

/// The tools an agent standing so has, as `tools/list` gives them: the lead's to the lead, a
/// stage's (`post_finding`, `stage_done`) to an agent in a running stage, the quest's moves
/// (`quest_plan`, `stage_next`, `report`) while a quest is under way. A call of one not listed
/// is still answered (refused with why).
pub fn tools_for(s: Standing) -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(move |t| {
        let stands = match t.name {
            "post_finding" | "stage_done" => s.in_stage,
            "quest_plan" | "stage_next" | "report" => s.quest_running,
            _ => true,
        };
        stands && (s.lead || !t.lead_only)
    })
}

/// The tool called `name`.
pub fn tool(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// `tools/list`'s entry for a tool: its name, description and input schema.
pub fn listed(t: &Tool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, kind, description, needed) in t.params {
        let mut p = json!({"type": kind, "description": description});
        if *kind == "array" {
            p["items"] = match (t.name, *name) {
                ("quest_plan", _) => {
                    json!({"type": "object", "properties": {"agents": {"type": "array", "items": {"type": "string"}}}, "required": ["agents"]})
                }
                ("summon", _) => json!({"type": "integer", "minimum": 1, "maximum": 9}),
                _ => json!({"type": "string"}),
            };
        }
        if *name == "seat" {
            p["minimum"] = json!(1);
            p["maximum"] = json!(9);
        }
        if *name == "max" {
            p["minimum"] = json!(1);
        }
        properties.insert((*name).to_string(), p);
        if *needed {
            required.push(*name);
        }
    }
    json!({
        "name": t.name,
        "description": t.description,
        "inputSchema": {"type": "object", "properties": properties, "required": required, "additionalProperties": false},
    })
}
