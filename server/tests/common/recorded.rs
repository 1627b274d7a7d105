//! Recorded traffic of the real Claude Code CLI 2.1.330: `{dir, t, msg}` per line.

use serde_json::Value;
use soulgrid::runtime::protocol::{parse_line, CliLine};

/// Recorded for the project (see its README).
pub const CLI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude-cli-2.1.330"
);
/// Recorded by us from the same CLI version (see its README).
pub const OURS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/soulgrid-recorded"
);

/// (direction, protocol line) of a recorded session in `dir`.
pub fn lines(dir: &str, name: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{dir}/{name}"))
        .unwrap_or_else(|e| panic!("{dir}/{name}: {e}"));
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["dir"].as_str().unwrap().to_string(), v["msg"].to_string())
        })
        .collect()
}

/// What the CLI wrote on stdout, parsed.
pub fn out_lines(dir: &str, name: &str) -> Vec<CliLine> {
    lines(dir, name)
        .into_iter()
        .filter(|(d, _)| d == "out")
        .map(|(_, l)| parse_line(&l).unwrap_or_else(|e| panic!("{name}: {e}: {l:.300}")))
        .collect()
}

/// An assistant line with `text`, as the CLI prints one.
pub fn text_line(text: &str) -> CliLine {
    parse_line(
        &serde_json::json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null, "session_id": "s"})
        .to_string(),
    )
    .unwrap()
}
