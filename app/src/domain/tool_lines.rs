//! A tool call as a line of its agent's thread: the tool, a short summary of its input (the
//! command; the file and its line range; the pattern) and of its result (lines and size, or
//! the error's first line), opened to the whole input and output. What is kept of a long input
//! or output is cut, with its full length said.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much of a tool's output, and of each text in its input, a line keeps.
pub const KEPT_BYTES: usize = 16 * 1024;

/// A tool call and what came of it, as its thread keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolLine {
    pub name: String,
    /// Its input, each text cut to [`KEPT_BYTES`].
    pub input: Value,
    /// Its output, cut to [`KEPT_BYTES`].
    pub output: String,
    /// The output's whole length.
    pub output_bytes: usize,
    pub is_error: bool,
}

/// A tool's name as the console shows it: Soulgrid's own without the CLI's `mcp__soulgrid__`.
pub fn shown(name: &str) -> &str {
    name.strip_prefix("mcp__soulgrid__").unwrap_or(name)
}

impl ToolLine {
    /// The call, its input and output kept within bounds.
    pub fn new(name: &str, input: &Value, output: &str, is_error: bool) -> Self {
        ToolLine {
            name: name.to_string(),
            input: capped(input),
            output: cut_to(output, KEPT_BYTES).to_string(),
            output_bytes: output.len(),
            is_error,
        }
    }

    /// The tool's name as a person reads it: ours without their prefix.
    pub fn tool(&self) -> &str {
        shown(&self.name)
    }

    /// One line: the tool, its input in short, and its result in short.
    pub fn summary(&self) -> String {
        match input_summary(&self.name, &self.input) {
            input if input.is_empty() => format!("{} → {}", self.tool(), self.result()),
            input => format!("{} {input} → {}", self.tool(), self.result()),
        }
    }

    /// The result in short: the error's first line, else its lines and size.
    pub fn result(&self) -> String {
        let first = self
            .output
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        match self.is_error {
            true => format!("error: {}", short(first, 80)),
            false if self.output.is_empty() => "done".to_string(),
            false => {
                let lines = self.output.lines().count();
                let cut = match self.output_bytes > self.output.len() {
                    true => ", cut",
                    false => "",
                };
                format!(
                    "{lines} line{}, {}{cut}",
                    if lines == 1 { "" } else { "s" },
                    size(self.output_bytes)
                )
            }
        }
    }

    /// Whether what is kept of the output is less than it was.
    pub fn output_cut(&self) -> bool {
        self.output_bytes > self.output.len()
    }
}

/// A tool's input in short: what a person would want to see first.
pub fn input_summary(name: &str, input: &Value) -> String {
    let s = |k: &str| input[k].as_str().unwrap_or_default();
    match name {
        "Bash" => short(s("command").lines().next().unwrap_or_default(), 80),
        "Read" => match (input["offset"].as_u64(), input["limit"].as_u64()) {
            (Some(from), Some(n)) => format!("{} (lines {from}–{})", s("file_path"), from + n),
            (Some(from), None) => format!("{} (from line {from})", s("file_path")),
            _ => s("file_path").to_string(),
        },
        "Edit" | "Write" | "NotebookEdit" => s("file_path").to_string(),
        "Grep" | "Glob" => match s("path") {
            "" => short(s("pattern"), 60),
            path => format!("{} in {path}", short(s("pattern"), 60)),
        },
        _ => match input {
            Value::Object(m) if m.is_empty() => String::new(),
            other => short(&other.to_string(), 80),
        },
    }
}

/// `text` cut to `max` characters, with an ellipsis when it was longer.
fn short(text: &str, max: usize) -> String {
    match text.chars().count() > max {
        true => format!("{}…", text.chars().take(max).collect::<String>()),
        false => text.to_string(),
    }
}

/// A size as a person reads it.
fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        _ => format!("{:.1} KB", bytes as f64 / 1024.0),
    }
}

/// `text` cut to at most `max` bytes, at a character's boundary.
fn cut_to(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `input` with each text cut to [`KEPT_BYTES`].
fn capped(input: &Value) -> Value {
    match input {
        Value::String(s) if s.len() > KEPT_BYTES => Value::String(format!(
            "{}… ({} bytes in all)",
            cut_to(s, KEPT_BYTES),
            s.len()
        )),
        Value::Array(a) => Value::Array(a.iter().map(capped).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), capped(v))).collect()),
        other => other.clone(),
    }
}
