//! Tier 4: the real Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned; `make test` sets
//! `SOULGRID_REAL_CLAUDE`) against the fake Messages API. One test binary, a module per concern;
//! the tests run one at a time (`common::real_cli::setup` holds a lock for the whole test: the
//! CLI processes inherit the environment it sets). Without the CLI each test says so and passes.
//!
//! - `session`: summon, names, souls, sessions resumed.
//! - `tools`: a tool call asked of the human with `--permissions ui`.
//! - `governance`: a call allowed by the agent's rule without asking; one decided by the lead.
//! - `mcp`: the agent's `soulgrid` MCP tools, and the side door closed.
//! - `side_door`: a plain session's `SendMessage` to an agent is refused and reaches nothing.
//! - `fork`, `knowledge`, `quest`: the same lives as tier 2, on the real CLI.
//! - `stop`: a detached Bash shell stopped with its agent.
//! - `worktree`: at work on a project: writes and commits in its worktree, and nowhere else.

#[path = "../common/mod.rs"]
mod common;

mod fork;
mod governance;
mod knowledge;
mod mcp;
mod quest;
mod sandbox;
mod session;
mod side_door;
mod stop;
mod tools;
mod worktree;
