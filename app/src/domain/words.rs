//! The words the console uses for an agent's state, one small set for one idea each: an agent is
//! **awake** (its process runs, between turns), **working** (on a turn), **asleep** (no process)
//! or **crashed** (its process ended badly); a newcomer is **hatching**. And what went wrong, told
//! as a sentence about the agent, never a parser's message.

use super::process::ProcessState;
use super::status::AgentStatus;
use super::work_cycle::WorkState;

/// An agent's state in the console's words.
pub fn status_word(
    status: AgentStatus,
    process: Option<ProcessState>,
    reason: Option<&str>,
) -> &'static str {
    use ProcessState::*;
    match (status, process) {
        (AgentStatus::Expired, _) => "gone",
        (AgentStatus::Hatching, Some(Stopped)) => "did not hatch",
        (AgentStatus::Hatching, _) => "hatching",
        (_, Some(Starting)) => "waking",
        (_, Some(Running)) => "working",
        (_, Some(Idle)) => "awake",
        (_, Some(Stopped)) if reason.is_some_and(crashed) => "crashed",
        (AgentStatus::Alive, None) => "awake",
        _ => "asleep",
    }
}

/// An agent's state as its face, its thread, its panel and its page all say it: what its
/// process does ([`activity`]), or **over budget** while the limit its budget reached gives it
/// no turn (its process may still be up: "awake" said it could work). `None` for an empty seat.
pub fn state_of(doc: &super::docs::AgentIdentity) -> Option<String> {
    let over_budget = doc.last_problem.as_ref().is_some_and(|p| {
        p.message
            .starts_with(&format!("{}reached", super::budget::BUDGET_PROBLEM))
    });
    let working = doc.process_state == Some(ProcessState::Running);
    match activity(
        doc.status(),
        doc.process_state,
        doc.process_reason.as_deref(),
    ) {
        Some(_) if over_budget && !working => Some("over budget".into()),
        other => other,
    }
}

/// The one word of [`state_of`] (its first: "working", "awake", "over budget", "asleep").
pub fn state_word(doc: &super::docs::AgentIdentity) -> String {
    let over_budget = state_of(doc).is_some_and(|s| s == "over budget");
    match over_budget {
        true => "over budget".into(),
        false => status_word(
            doc.status(),
            doc.process_state,
            doc.process_reason.as_deref(),
        )
        .into(),
    }
}

/// The reason a process starts with when its agent goes on after a pause (put to work while
/// awake): it is not waking up.
pub const GOING_ON: &str = "going on with new work";

/// Whether a process's stop reason is a crash (not a sleep, a dismissal or a session's end).
pub fn crashed(reason: &str) -> bool {
    reason.starts_with("crashed") || reason.starts_with("could not start")
}

/// What a seat's process is doing, for its cell and its thread: the state's word, with what it
/// is doing when it works ("using Bash") and why it crashed. `None` for an empty seat.
pub fn activity(
    status: AgentStatus,
    process: Option<ProcessState>,
    reason: Option<&str>,
) -> Option<String> {
    let word = status_word(status, process, reason);
    Some(match (word, reason) {
        ("gone", _) => return None,
        ("working", Some(doing)) => doing.to_string(),
        ("working", None) => "thinking…".to_string(),
        ("hatching", _) => "hatching…".to_string(),
        ("waking", _) => "waking…".to_string(),
        ("awake", Some(why)) if process == Some(ProcessState::Idle) => format!("awake ({why})"),
        ("crashed", Some(why)) if why.starts_with("crashed") => why.to_string(),
        ("crashed" | "did not hatch", Some(why)) => format!("{word}: {why}"),
        _ => word.to_string(),
    })
}

/// A step of the work cycle as a verb phrase.
fn doing(state: WorkState) -> &'static str {
    match state {
        WorkState::Bootstrap => "begin its session",
        WorkState::Inbox => "read its inbox",
        WorkState::Distill => "distil what it read",
        WorkState::DeepWork => "start deep work",
        WorkState::Idle => "go idle",
        WorkState::Logout => "log out",
    }
}

/// Where in the work cycle an agent was, as a phrase after the verb.
fn from_where(state: Option<WorkState>) -> &'static str {
    match state {
        None => "before beginning its session",
        Some(WorkState::Bootstrap) => {
            "straight after beginning its session, without reading its inbox"
        }
        Some(WorkState::Inbox) => "while reading its inbox, without distilling it first",
        Some(WorkState::Distill) => "while distilling",
        Some(WorkState::DeepWork) => "in the middle of deep work, without going back to its inbox",
        Some(WorkState::Idle) => "while idle, without going back to its inbox",
        Some(WorkState::Logout) => "after logging out",
    }
}

/// A marker of `who`'s that was not carried out, as a sentence about it. A refused step of the
/// work cycle says what it tried and from where; anything else says that the request was not
/// carried out and why, without the marker's raw text.
pub fn refused(who: &str, error: &str) -> String {
    if let Some((from, to)) = error
        .strip_prefix("invalid work-cycle transition ")
        .and_then(|t| t.split_once(" -> "))
    {
        if let Some(to) = WorkState::parse(to) {
            let from = WorkState::parse(from);
            return format!(
                "{who} tried to {} {}: not recorded.",
                doing(to),
                from_where(from)
            );
        }
    }
    let why = error.trim_end_matches('.');
    format!("{who} asked for something that was not done: {why}.")
}
