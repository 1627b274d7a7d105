//! Rules per agent: "always allow `Bash(cargo test:*)` for Lyra". A rule is written as Claude
//! Code writes its own (`Tool`, or `Tool(pattern)`), kept as a versioned part of the identity
//! (who added it and when, exported in its `.soul`), and applied by the server before anyone is
//! asked: a call a rule covers is allowed, and the rule is recorded as the reason.
//!
//! Rules only allow, and they are read narrowly: a Bash rule never covers a chained command
//! (`;`, `&&`, `|`, a redirection, a substitution), a path rule never covers a path with `..`,
//! and a relative path pattern is read inside the agent's own folder and worktrees only.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Millis;

/// The longest rule, in characters.
pub const MAX_RULE_CHARS: usize = 500;

/// The most rules one identity keeps.
pub const MAX_RULES: usize = 100;

/// Tools whose pattern is a path (glob: `*` within a folder, `**` across folders, `?`).
pub const PATH_TOOLS: [&str; 7] = [
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
];

/// One rule an identity keeps, as the human wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptRule {
    /// Its number: the rules' version it was added at. It never changes and is never reused,
    /// so `DELETE …/rules/{n}` removes this rule and no other.
    pub n: u32,
    pub rule: String,
    /// Who added it (`human`).
    pub added_by: String,
    pub added_at: Millis,
}

/// A rule read from its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub tool: String,
    pub pattern: Option<Pattern>,
}

/// What a rule's parentheses hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `Bash(cargo test)`: this command exactly.
    Command(String),
    /// `Bash(cargo test:*)`: this command, with any arguments after it.
    CommandPrefix(String),
    /// `Edit(src/**)`: a path glob, absolute or inside the agent's folder and worktrees.
    Path(String),
    /// `WebFetch(domain:docs.rs)`: this host and its subdomains.
    Domain(String),
}

/// Why a rule's text is not a rule, and where (the character, counted from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at character {at}: {why}")]
pub struct RuleError {
    pub at: usize,
    pub why: String,
}

fn error(at: usize, why: impl Into<String>) -> RuleError {
    RuleError {
        at,
        why: why.into(),
    }
}

/// Reads a rule: `Tool` or `Tool(pattern)`.
pub fn parse(text: &str) -> Result<Rule, RuleError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(error(1, "a rule names a tool, e.g. Bash(cargo test:*)"));
    }
    let chars = text.chars().count();
    if chars > MAX_RULE_CHARS {
        return Err(error(
            MAX_RULE_CHARS + 1,
            format!("a rule is at most {MAX_RULE_CHARS} characters"),
        ));
    }
    let open = text.find('(');
    let tool = &text[..open.unwrap_or(text.len())];
    if let Some((i, c)) = tool
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_alphanumeric() || *c == '_' || (*c == '-' && *i > 0)))
    {
        return Err(error(
            i + 1,
            format!("{c:?} cannot be part of a tool's name (letters, digits, _ and -)"),
        ));
    }
    if tool.is_empty() {
        return Err(error(1, "a rule starts with a tool's name"));
    }
    if !tool.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(error(1, "a tool's name starts with a letter"));
    }
    let Some(open) = open else {
        return Ok(Rule {
            tool: tool.to_string(),
            pattern: None,
        });
    };
    let Some(inner) = text[open + 1..].strip_suffix(')') else {
        let at = match text[open..].find(')') {
            Some(close) => text[..open + close + 1].chars().count() + 1,
            None => chars + 1,
        };
        return Err(match text[open..].contains(')') {
            true => error(at, "nothing may follow the closing )"),
            false => error(at, "missing the closing )"),
        });
    };
    let at = text[..open + 1].chars().count() + 1;
    if inner.trim().is_empty() {
        return Err(error(
            at,
            format!("empty (): write {tool} alone to allow every call of it"),
        ));
    }
    let pattern = pattern(tool, inner, at)?;
    Ok(Rule {
        tool: tool.to_string(),
        pattern: Some(pattern),
    })
}

fn pattern(tool: &str, inner: &str, at: usize) -> Result<Pattern, RuleError> {
    if tool == "Bash" {
        let (command, prefix) = match inner.strip_suffix(":*") {
            Some(p) => (p, true),
            None => (inner, false),
        };
        if let Some(i) = command.find('*') {
            return Err(error(
                at + command[..i].chars().count(),
                "a Bash rule takes * only as :* at its end (the command and any arguments)",
            ));
        }
        if command.trim().is_empty() {
            return Err(error(at, "a Bash rule names a command before :*"));
        }
        if let Some(i) = command.find(|c| CHAINING.contains(&c)) {
            return Err(error(
                at + command[..i].chars().count(),
                "a Bash rule is one command: no ; & | < > ` $ or line breaks",
            ));
        }
        let command = command.trim().to_string();
        return Ok(match prefix {
            true => Pattern::CommandPrefix(command),
            false => Pattern::Command(command),
        });
    }
    if PATH_TOOLS.contains(&tool) {
        if let Some(i) = inner.find("..") {
            return Err(error(
                at + inner[..i].chars().count(),
                "a path rule cannot climb out with ..",
            ));
        }
        return Ok(Pattern::Path(inner.trim().to_string()));
    }
    if tool == "WebFetch" {
        let Some(host) = inner.strip_prefix("domain:") else {
            return Err(error(at, "a WebFetch rule is WebFetch(domain:example.com)"));
        };
        let host = host.trim().to_ascii_lowercase();
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        {
            return Err(error(at + 7, "a domain is letters, digits, dots and -"));
        }
        return Ok(Pattern::Domain(host));
    }
    Err(error(
        at - 1,
        format!(
            "only Bash, WebFetch and the file tools take a pattern: write {tool} alone to allow \
             every call of it"
        ),
    ))
}

/// Characters that chain, redirect or substitute in a shell: a command holding one is never
/// covered by a Bash rule (`cargo test; rm -rf ~` is not `cargo test`).
const CHAINING: [char; 9] = [';', '&', '|', '<', '>', '`', '$', '\n', '\r'];

impl Rule {
    /// Whether this rule covers a call of `tool` with `input`, made by an agent whose own
    /// folder and worktrees are `roots` (absolute paths; the first is where it runs).
    pub fn covers(&self, tool: &str, input: &Value, roots: &[String]) -> bool {
        if tool != self.tool {
            return false;
        }
        match &self.pattern {
            None => true,
            Some(Pattern::Command(c)) => {
                command_of(input).is_some_and(|command| command == c.as_str())
            }
            Some(Pattern::CommandPrefix(p)) => command_of(input).is_some_and(|command| {
                command == p.as_str()
                    || command
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with(' '))
            }),
            Some(Pattern::Path(glob)) => {
                path_of(tool, input, roots).is_some_and(|path| path_covered(glob, &path, roots))
            }
            Some(Pattern::Domain(host)) => input["url"]
                .as_str()
                .and_then(host_of)
                .is_some_and(|h| h == *host || h.ends_with(&format!(".{host}"))),
        }
    }
}

/// The first of `rules` that covers the call, as its text.
pub fn covering<'a>(
    rules: &'a [KeptRule],
    tool: &str,
    input: &Value,
    roots: &[String],
) -> Option<&'a KeptRule> {
    rules.iter().find(|k| {
        parse(&k.rule)
            .map(|r| r.covers(tool, input, roots))
            .unwrap_or(false)
    })
}

/// A Bash call's command, when it is one plain command.
fn command_of(input: &Value) -> Option<&str> {
    let command = input["command"].as_str()?.trim();
    (!command.contains(CHAINING)).then_some(command)
}

/// The path a file tool touches, absolute: relative ones are read from where the agent runs;
/// none for a path with `..`.
fn path_of(tool: &str, input: &Value, roots: &[String]) -> Option<String> {
    let given = ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input[*k].as_str());
    let cwd = roots.first()?;
    let path = match given {
        Some(p) if p.starts_with('/') => p.to_string(),
        Some(p) => format!("{}/{p}", cwd.trim_end_matches('/')),
        // Glob and Grep search where the agent runs when given no path.
        None if matches!(tool, "Glob" | "Grep") => cwd.clone(),
        None => return None,
    };
    (!path.split('/').any(|part| part == "..")).then_some(path)
}

fn path_covered(glob: &str, path: &str, roots: &[String]) -> bool {
    if glob.starts_with('/') {
        return glob_matches(glob, path);
    }
    let glob = glob.trim_start_matches("./");
    roots.iter().any(|root| {
        path.strip_prefix(root.trim_end_matches('/'))
            .and_then(|rest| match rest {
                "" => Some(""),
                rest => rest.strip_prefix('/'),
            })
            .is_some_and(|rest| glob_matches(glob, rest))
    })
}

/// `*` within one folder, `**` across folders (`**/` also none), `?` one character (not `/`).
pub fn glob_matches(glob: &str, path: &str) -> bool {
    let g: Vec<char> = glob.chars().collect();
    let p: Vec<char> = path.chars().collect();
    // Each (glob position, path position) is tried once: no pattern takes exponential time.
    let mut seen = vec![false; (g.len() + 1) * (p.len() + 1)];
    glob_from(&g, 0, &p, 0, &mut seen)
}

fn glob_from(g: &[char], gi: usize, p: &[char], pi: usize, seen: &mut [bool]) -> bool {
    let cell = gi * (p.len() + 1) + pi;
    if seen[cell] {
        return false;
    }
    seen[cell] = true;
    let rest = &p[pi..];
    match &g[gi..] {
        [] => rest.is_empty(),
        ['*', '*', '/', ..] => {
            glob_from(g, gi + 3, p, pi, seen)
                || (0..rest.len())
                    .filter(|k| rest[*k] == '/')
                    .any(|k| glob_from(g, gi + 3, p, pi + k + 1, seen))
        }
        ['*', '*', ..] => (0..=rest.len()).any(|k| glob_from(g, gi + 2, p, pi + k, seen)),
        ['*', ..] => {
            let within = rest.iter().position(|c| *c == '/').unwrap_or(rest.len());
            (0..=within).any(|k| glob_from(g, gi + 1, p, pi + k, seen))
        }
        ['?', ..] => {
            rest.first().is_some_and(|c| *c != '/') && glob_from(g, gi + 1, p, pi + 1, seen)
        }
        [c, ..] => rest.first() == Some(c) && glob_from(g, gi + 1, p, pi + 1, seen),
    }
}

/// The host of an `http(s)` URL, lower-cased.
///
/// Read narrowly: an authority with anything but letters, digits, `.`, `-` and a `:port` (a
/// `\`, which a browser-grade parser reads as `/`; an `@`; `%`; a control character) is no
/// host here, so no rule covers it (`https://evil.com\.docs.rs` goes to evil.com).
fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
    let plain = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && port.chars().all(|c| c.is_ascii_digit());
    plain.then(|| host.to_ascii_lowercase())
}
