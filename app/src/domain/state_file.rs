//! `_state.md`: what the server knows of an agent, written into the agent's own folder after
//! every change so the agent can read its objective state (DESIGN §5): context tokens from the
//! last `result`, timestamps, session ids, unread mail. The agent reads it; the server owns it.

use super::docs::AgentIdentity;
use super::time;

/// The file's name in the agent's working directory.
pub const FILE_NAME: &str = "_state.md";

/// What the server knows of an agent besides its identity document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Around {
    /// Messages waiting unread in its inbox.
    pub unread_mail: usize,
    /// The newest message it has read: who sent it, and when (the inbox's timestamp).
    pub last_read: Option<(String, String)>,
    /// Permission requests it waits on.
    pub pending_permissions: usize,
    /// The model's context window, in tokens: the context used is shown against it.
    pub context_window: u64,
    /// Where it works on the user's code: each project's name, worktree and branch.
    pub worktrees: Vec<(String, String, String)>,
}

/// The file's text for `d` and what is `around` it. Deterministic: the same inputs give the
/// same bytes (the server writes only when they change).
pub fn render(d: &AgentIdentity, around: &Around) -> String {
    let Around {
        unread_mail,
        last_read,
        pending_permissions,
        context_window,
        worktrees,
    } = around;
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "—".into());
    let name = d.name.clone().unwrap_or_else(|| "(no name yet)".into());
    let process = d.process_state.map(|p| match &d.process_reason {
        Some(r) => format!("{} ({r})", p.as_str()),
        None => p.as_str().to_string(),
    });
    let rows = [
        ("status", Some(d.status().as_str().to_string())),
        ("process", process),
        ("work cycle", d.work_state.map(|w| w.as_str().to_string())),
        ("context tokens", d.context_tokens.map(|t| t.to_string())),
        (
            "context used",
            d.context_tokens
                .filter(|_| *context_window > 0)
                .map(|t| format!("{}% of {context_window}", t * 100 / context_window)),
        ),
        (
            "cost of this process",
            d.cost_usd.map(|c| format!("${c:.4}")),
        ),
        ("unread mail", Some(unread_mail.to_string())),
        (
            "last read mail",
            last_read
                .as_ref()
                .map(|(from, at)| format!("from {from}, {at}")),
        ),
        (
            "permission requests waiting",
            Some(pending_permissions.to_string()),
        ),
        (
            "worktrees",
            (!worktrees.is_empty()).then(|| {
                worktrees
                    .iter()
                    .map(|(project, path, branch)| {
                        format!("{project} at {path} on branch {branch}")
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }),
        ),
        ("claude session", d.claude_session_id.clone()),
        ("server session", d.last_session_id.clone()),
        ("created", d.created_at.map(time::iso)),
        ("last alive", d.last_alive_at.map(time::iso)),
        (
            "soul version",
            (d.soul_version > 0).then(|| d.soul_version.to_string()),
        ),
        (
            "knowledge vault version",
            (d.vault_version > 0).then(|| d.vault_version.to_string()),
        ),
        (
            "last problem",
            d.last_problem
                .as_ref()
                .map(|p| format!("{} ({})", p.message, time::iso(p.at))),
        ),
    ];
    let mut s = format!(
        "# State of {name} (seat {})\n\n\
         Written by the Soulgrid server after every change; it is read-only and what you write\n\
         here is overwritten. Times are UTC.\n\n",
        d.grid_position
    );
    for (label, value) in rows {
        s += &format!("- {label}: {}\n", or_dash(value));
    }
    s
}
