//! Who answers a permission request with `--approvals lead-first`: the lead, unless the call is
//! of a class the human keeps for itself (anything outside the agent's folder and worktrees,
//! the network, `rm`), or the lead asks itself. What the lead is told of a request.

use serde_json::Value;

pub use super::permissions::Approver;
use super::permissions::{input_preview, PermissionDoc};
use super::rules::KeptRule;

/// A class of calls only the human answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// A path outside the agent's folder and worktrees.
    Outside,
    /// The network: fetching, searching, pushing, installing.
    Network,
    /// Removing files.
    Remove,
}

impl Kept {
    /// Why, as the queue and the lead read it.
    pub fn why(self) -> &'static str {
        match self {
            Kept::Outside => "it reaches outside the agent's folder and worktrees",
            Kept::Network => "it uses the network",
            Kept::Remove => "it removes files",
        }
    }
}

/// Programs that reach the network.
const NETWORK: [&str; 14] = [
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp", "ping",
    "dig", "nslookup",
];

/// What the human keeps of a call of `tool` with `input` by an agent whose folder and
/// worktrees are `roots` (absolute; the first is where it runs), if anything.
pub fn kept_by_human(tool: &str, input: &Value, roots: &[String]) -> Option<Kept> {
    match tool {
        "WebFetch" | "WebSearch" => Some(Kept::Network),
        "Bash" => input["command"].as_str().and_then(|c| bash(c, roots)),
        _ => {
            let path = ["file_path", "notebook_path", "path"]
                .iter()
                .find_map(|k| input[*k].as_str())?;
            (!inside(path, roots)).then_some(Kept::Outside)
        }
    }
}

fn bash(command: &str, roots: &[String]) -> Option<Kept> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || ";&|()<>`$\"'".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let program = |w: &&str| w.rsplit('/').next().unwrap_or(w).to_string();
    if words
        .iter()
        .any(|w| matches!(program(w).as_str(), "rm" | "rmdir" | "shred" | "unlink"))
    {
        return Some(Kept::Remove);
    }
    let network = words.iter().any(|w| NETWORK.contains(&program(w).as_str()))
        || words
            .windows(2)
            .any(|p| p[0] == "git" && matches!(p[1], "push" | "pull" | "fetch" | "clone"))
        || words.windows(2).any(|p| {
            matches!(p[0], "npm" | "pip" | "pip3" | "cargo" | "apt" | "apt-get")
                && p[1] == "install"
        })
        || command.contains("://");
    if network {
        return Some(Kept::Network);
    }
    let outside = words.iter().any(|w| {
        let w = w.split_once('=').map_or(*w, |(_, v)| v);
        (w.starts_with('/') && !inside(w, roots))
            || w.starts_with('~')
            || w.split('/').any(|part| part == "..")
    });
    outside.then_some(Kept::Outside)
}

/// Whether `path` (absolute, or relative to where the agent runs) is inside one of `roots`.
fn inside(path: &str, roots: &[String]) -> bool {
    if path.split('/').any(|part| part == "..") {
        return false;
    }
    if !path.starts_with('/') {
        return !path.starts_with('~') && !roots.is_empty();
    }
    roots.iter().any(|root| {
        let root = root.trim_end_matches('/');
        path == root || path.strip_prefix(root).is_some_and(|r| r.starts_with('/'))
    })
}

/// What the lead is told of a request it is to decide: who asks, for what, the agent's rules,
/// and how to answer.
pub fn ask_lead(p: &PermissionDoc, who: &str, rules: &[KeptRule], wait: &str) -> String {
    let rules = match rules {
        [] => "none".to_string(),
        rules => rules
            .iter()
            .map(|k| k.rule.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    };
    let description = p
        .description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    format!(
        "[message from Soulgrid]\n{who} asks to use {tool}{description}:\n\n{input}\n\n\
         {who}'s rules (calls they cover never reach you): {rules}.\n\
         Decide with decide_permission {{\"request\": \"{id}\", \"decision\": \"allow\" or \
         \"deny\", \"reason\": \"…\"}}. Within {wait}, or it goes to the human.",
        tool = p.tool_name,
        input = input_preview(&p.tool_name, &p.input),
        id = p.request_id,
    )
}
