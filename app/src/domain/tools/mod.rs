//! Soulgrid's own tools, as an agent's `soulgrid` MCP server lists them (DESIGN §6): each one
//! is a marker with a schema. A call becomes the marker it mirrors (`to_marker`) and goes the
//! marker's way from there, so a tool and its marker are one rule in two syntaxes, validated by
//! the same code. What a tool may do depends on who calls it: the lead's tools are listed to the
//! lead alone.

use serde_json::{json, Map, Value};

use super::markers::Marker;

/// One tool: its name (the model sees `mcp__soulgrid__<name>`), what it is for, its input's
/// JSON schema, the marker action it mirrors, and whether only the lead has it.
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// The marker's `action` (`None`: answered from the documents, no marker).
    pub action: Option<&'static str>,
    pub lead_only: bool,
    /// The input's properties: (name, JSON type, description, required).
    pub params: &'static [(&'static str, &'static str, &'static str, bool)],
}

/// Every tool, in the order `tools/list` gives them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "team",
        description: "Who is on the team: each seat's agent, whether it is awake, working or asleep, its work state, and who is in the Hall. Call it before naming an agent.",
        action: None,
        lead_only: false,
        params: &[],
    },
    Tool {
        name: "send_message",
        description: "Send a message to another agent by name (or to the lead). It is delivered to its inbox and shown in the console.",
        action: Some("route"),
        lead_only: false,
        params: &[
            ("to", "string", "The name of the agent (as `team` lists it), or the lead's name.", true),
            ("text", "string", "What to say.", true),
        ],
    },
    Tool {
        name: "set_work_state",
        description: "Move along your work cycle (bootstrap, inbox, deep_work, reflect, logout…), saying what you do now. A transition the cycle does not allow is refused.",
        action: Some("state"),
        lead_only: false,
        params: &[
            ("state", "string", "The work state to move to, e.g. deep_work.", true),
            ("summary", "string", "One line: what you do in it.", false),
        ],
    },
    Tool {
        name: "rewrite_soul",
        description: "Write a new version of your soul (who you are, in your own words); the old versions are kept.",
        action: Some("soul"),
        lead_only: false,
        params: &[("text", "string", "Your soul, whole.", true)],
    },
    Tool {
        name: "fork",
        description: "Fork yourself into an empty seat: a new agent that starts from your conversation and chooses its own name.",
        action: Some("fork"),
        lead_only: false,
        params: &[("prompt", "string", "The first thing your fork is told.", false)],
    },
    Tool {
        name: "post_finding",
        description: "Post a finding on your quest's board (during a quest stage you are in).",
        action: Some("finding"),
        lead_only: false,
        params: &[
            ("title", "string", "A short title.", true),
            ("body", "string", "The finding, in Markdown.", true),
            ("severity", "string", "minor, major or critical.", false),
        ],
    },
    Tool {
        name: "stage_done",
        description: "Say your part of the current quest stage is done.",
        action: Some("stage_done"),
        lead_only: false,
        params: &[],
    },
    Tool {
        name: "claim_job",
        description: "Claim a job offered on the board (the first claim wins).",
        action: Some("claim"),
        lead_only: false,
        params: &[("job", "string", "The job's id, as the offer gives it.", true)],
    },
    Tool {
        name: "job_done",
        description: "Finish a job you claimed, with its result.",
        action: Some("job_done"),
        lead_only: false,
        params: &[
            ("job", "string", "The job's id.", true),
            ("result", "string", "What came of it.", true),
        ],
    },
    Tool {
        name: "post_job",
        description: "Offer a job on the board for any agent to claim.",
        action: Some("job"),
        lead_only: true,
        params: &[
            ("title", "string", "A short title.", true),
            ("text", "string", "What is to be done.", true),
        ],
    },
    Tool {
        name: "summon",
        description: "Summon newborn agents into the empty seats (all of them, or `count`).",
        action: Some("summon"),
        lead_only: true,
        params: &[("count", "integer", "How many seats to fill (default: every empty seat).", false)],
    },
    Tool {
        name: "dismiss",
        description: "Put an agent to sleep (it writes down what it learned first); WAKE brings it back.",
        action: Some("dismiss"),
        lead_only: true,
        params: &[("name", "string", "The agent's name.", true)],
    },
    Tool {
        name: "retire",
        description: "Retire an agent to the Hall: its process stops and its seat empties; it can be recalled.",
        action: Some("kill"),
        lead_only: true,
        params: &[
            ("name", "string", "The agent's name.", true),
            ("cascade", "boolean", "Its forks too, deepest first.", false),
        ],
    },
    Tool {
        name: "recall",
        description: "Seat an agent from the Hall again, in the first empty seat, and wake it.",
        action: Some("recall"),
        lead_only: true,
        params: &[("name", "string", "The retired agent's name.", true)],
    },
    Tool {
        name: "quest_plan",
        description: "Plan the running quest: a process template and, per stage, the agents in it.",
        action: Some("quest_plan"),
        lead_only: true,
        params: &[
            ("template", "string", "The process template's name, from the brief.", true),
            ("stages", "array", "One object per stage: {\"agents\": [names]}.", true),
        ],
    },
    Tool {
        name: "stage_next",
        description: "Move the running quest to its next stage, summoning newcomers for roles and putting agents to sleep first.",
        action: Some("stage_next"),
        lead_only: true,
        params: &[
            ("summon", "array", "Roles to summon newcomers for.", false),
            ("dismiss", "array", "Names of agents to put to sleep.", false),
        ],
    },
    Tool {
        name: "report",
        description: "End the running quest with its report.",
        action: Some("report"),
        lead_only: true,
        params: &[
            ("title", "string", "The report's title.", true),
            ("body", "string", "The report, in Markdown.", true),
        ],
    },
];

/// The tools an agent has (the lead: all of them).
pub fn tools_for(lead: bool) -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(move |t| lead || !t.lead_only)
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
            p["items"] = match t.name {
                "quest_plan" => {
                    json!({"type": "object", "properties": {"agents": {"type": "array", "items": {"type": "string"}}}, "required": ["agents"]})
                }
                _ => json!({"type": "string"}),
            };
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

/// Why a tool call was refused, in one sentence that says what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("there is no tool {0:?}: call tools/list for the ones you have")]
    Unknown(String),
    #[error("only the lead may use {0}: ask the lead with send_message")]
    LeadOnly(&'static str),
    #[error("{tool} needs {what}")]
    BadInput { tool: &'static str, what: String },
}

/// The marker a call of `name` with `args` mirrors, or why it is refused. `team` has none.
pub fn to_marker(name: &str, args: &Value, lead: bool) -> Result<Option<Marker>, Refusal> {
    let t = tool(name).ok_or_else(|| Refusal::Unknown(name.to_string()))?;
    if t.lead_only && !lead {
        return Err(Refusal::LeadOnly(t.name));
    }
    let Some(action) = t.action else {
        return Ok(None);
    };
    let mut fields = match args {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        _ => {
            return Err(Refusal::BadInput {
                tool: t.name,
                what: "an object of arguments".into(),
            })
        }
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !t.params.iter().any(|p| p.0 == k.as_str()))
    {
        return Err(Refusal::BadInput {
            tool: t.name,
            what: format!("only {}; {unknown:?} is not one of its arguments", names(t)),
        });
    }
    fields.insert("action".into(), Value::String(action.into()));
    serde_json::from_value(Value::Object(fields))
        .map(Some)
        .map_err(|e| Refusal::BadInput {
            tool: t.name,
            what: format!("{} ({e})", names(t)),
        })
}

/// A tool's arguments in words: "to (required), text (required)".
fn names(t: &Tool) -> String {
    match t.params {
        [] => "no arguments".into(),
        params => params
            .iter()
            .map(|(n, kind, _, needed)| match needed {
                true => format!("{n} ({kind}, required)"),
                false => format!("{n} ({kind})"),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// `team`'s answer: each seat's agent and its state in the console's words, and the Hall.
pub fn team(docs: &super::docs::Docs) -> String {
    use super::docs::{hall, identities};
    use super::words::status_word;
    let mut lines: Vec<String> = identities(docs)
        .filter(|i| i.status().is_visible())
        .map(|i| {
            let name = i.name.clone().unwrap_or_else(|| "(choosing a name)".into());
            let role = match i.grid_position == super::LEAD_SEAT {
                true => ", the lead",
                false => "",
            };
            let word = status_word(i.status(), i.process_state, i.process_reason.as_deref());
            let state = i
                .work_state
                .map(|w| format!(", work state {}", w.as_str()))
                .unwrap_or_default();
            format!(
                "- seat {}: {name}{role}: {word}{state}",
                i.grid_position + 1
            )
        })
        .collect();
    let retired: Vec<String> = hall(docs).filter_map(|i| i.name.clone()).collect();
    lines.push(match retired.is_empty() {
        true => "In the Hall: nobody.".to_string(),
        false => format!("In the Hall: {}.", retired.join(", ")),
    });
    lines.join("\n")
}
