//! The agents' processes: the Claude Code CLI (or `soulgrid-sim`), one per awake agent.

pub mod protocol;
pub mod turn;
