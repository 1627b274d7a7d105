//! `_state.md`: the agent's objective state, as text.

use super::super::process::ProcessState;
use super::super::state_file::{render, Around};
use super::super::status::AgentStatus;
use super::super::work_cycle::WorkState;
use super::*;

#[test]
fn the_state_file_says_what_the_server_knows() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[1])),
            ev(2, 1_000, register(1, "Kael", "I am Kael.")),
            ev(2, 1_000, process(1, ProcessState::Starting)),
            ev(
                3,
                2_000,
                EventKind::AgentProcess {
                    seat: 1,
                    state: ProcessState::Idle,
                    reason: None,
                    claude_session_id: Some("c-1".into()),
                    context_tokens: Some(2400),
                    cost_usd: Some(0.0125),
                    tool: None,
                    usage: None,
                },
            ),
            ev(
                4,
                3_000,
                EventKind::WorkState {
                    seat: 1,
                    state: WorkState::Bootstrap,
                },
            ),
        ],
    );
    let around = Around {
        unread_mail: 2,
        last_read: Some(("Orin".into(), "2026-11-23T07:00:00.000Z".into())),
        pending_permissions: 1,
        context_window: 200_000,
        worktrees: vec![(
            "web".into(),
            "/data/worktrees/k/p".into(),
            "soulgrid/kael".into(),
        )],
    };
    let text = render(seat(&docs, 1), &around);
    assert!(text.starts_with("# State of Kael (seat 1)\n"), "{text}");
    for line in [
        "- status: alive\n",
        "- process: idle\n",
        "- work cycle: bootstrap\n",
        "- context tokens: 2400\n",
        "- context used: 1% of 200000\n",
        "- last read mail: from Orin, 2026-11-23T07:00:00.000Z\n",
        "- cost of this process: $0.0125\n",
        "- unread mail: 2\n",
        "- permission requests waiting: 1\n",
        "- worktrees: web at /data/worktrees/k/p on branch soulgrid/kael\n",
        "- claude session: c-1\n",
        "- server session: session-1\n",
        "- created: 1970-01-01T00:00:00.000Z\n",
        "- last alive: 1970-01-01T00:00:02.000Z\n",
        "- soul version: 1\n",
        "- last problem: —\n",
    ] {
        assert!(text.contains(line), "{line:?} missing in:\n{text}");
    }
    assert_eq!(render(seat(&docs, 1), &around), text, "deterministic");
    run(
        &mut docs,
        &[ev(5, 4_000, EventKind::SessionEnd { reason: None })],
    );
    assert_eq!(seat(&docs, 1).status(), AgentStatus::Sleeping);
    assert!(render(seat(&docs, 1), &Around::default()).contains("- status: sleeping\n"));
}
