//! Work per message stays bounded: 20,000 messages into one agent's inbox, and neither the
//! file nor the time to hand one over grows with the count.

use crate::common;

use std::time::{Duration, Instant};

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::mail::InboxMessage;
use common::external_append_batch;

const ROUNDS: usize = 200;
const PER_ROUND: usize = 100;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn twenty_thousand_messages_keep_the_inbox_and_the_delivery_time_bounded() {
    let (dir, state, _router) = common::team().await;
    let name = state
        .store
        .with_all_docs(|d| identity(d, 0).and_then(|i| i.name.clone()))
        .unwrap();
    let inbox = state.runtime.mailboxes().path(&name).unwrap();
    let human = state.runtime.mailboxes().path("Marcus").unwrap();
    let mut took = Vec::with_capacity(ROUNDS);
    let mut largest = (0usize, 0usize);
    for round in 0..ROUNDS {
        // Another program writes a round of messages at once: one file write, one delivery,
        // one answer (which quotes the round's first note).
        let first_note = format!("“note {round}-0\n");
        let mut events = state.store.subscribe();
        let t = Instant::now();
        external_append_batch(&inbox, "Orin", round, PER_ROUND);
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let c = events.recv().await.expect("the store runs");
                if matches!(&c.event.kind, EventKind::AgentMessage { seat: 0, speaker_name, text, .. }
                    if *speaker_name == name && text.contains(&first_note))
                {
                    return;
                }
            }
        })
        .await
        .unwrap_or_else(|_| {
            // What the inbox holds then tells a lost delivery (unread) from a lost answer.
            let kept: Vec<InboxMessage> =
                serde_json::from_str(&std::fs::read_to_string(&inbox).unwrap_or("[]".into()))
                    .unwrap_or_default();
            let unread = kept.iter().filter(|m| !m.read).count();
            // What the agent was given last, and what it said last.
            let given = std::fs::read_to_string(dir.path().join("agents/0/.soulgrid-sim/received.jsonl"))
                .unwrap_or_default();
            let given: Vec<String> = given.lines().rev().take(3).map(|l| l.chars().take(120).collect()).collect();
            let said: Vec<String> = state.store.with_all_docs(|d| {
                app::domain::docs::thread(d, 0)
                    .iter()
                    .rev()
                    .filter(|m| m.speaker_name == name)
                    .take(3)
                    .map(|m| m.text.chars().take(120).collect())
                    .collect()
            });
            panic!(
                "round {round} was not answered; its inbox holds {} messages, {unread} unread; \
                 given last: {given:?}; said last: {said:?}; the seat: {:?}",
                kept.len(),
                state
                    .store
                    .with_all_docs(|d| identity(d, 0).map(|i| (i.process_state, i.process_reason.clone(), i.last_problem.clone())))
            )
        });
        took.push(t.elapsed());
        for (file, most) in [(&inbox, &mut largest.0), (&human, &mut largest.1)] {
            let kept: Vec<InboxMessage> =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap_or("[]".into()))
                    .unwrap();
            *most = (*most).max(kept.len());
        }
    }
    let (first, last) = (
        median(took[..20].to_vec()),
        median(took[ROUNDS - 20..].to_vec()),
    );
    println!(
        "{} messages in {ROUNDS} rounds: a round handed over in {first:?} (median of the first \
         20) and {last:?} (median of the last 20); the agent's inbox held at most {} messages, \
         the human's at most {}",
        ROUNDS * PER_ROUND,
        largest.0,
        largest.1
    );
    // Unread mail and the newest read: a round is marked read once the agent has taken it,
    // which may come just after its answer, so the next round can find it still unread.
    let bound = soulgrid::mailbox::file::READ_TAIL + 2 * PER_ROUND;
    assert!(
        largest.0 <= bound,
        "the agent's inbox stays bounded: {}",
        largest.0
    );
    assert!(
        largest.1 <= bound,
        "the human's inbox stays bounded: {}",
        largest.1
    );
    assert!(
        last <= first * 3 + Duration::from_millis(50),
        "the time to hand over a round does not grow with the count: {first:?} then {last:?}"
    );
    // Each round reached the agent once: a delivery racing the marking of the one before
    // must not hand a round over twice.
    let given =
        std::fs::read_to_string(dir.path().join("agents/0/.soulgrid-sim/received.jsonl")).unwrap();
    let twice: Vec<usize> = (0..ROUNDS)
        .filter(|r| given.matches(&format!("note {r}-0\\n")).count() != 1)
        .collect();
    assert!(twice.is_empty(), "rounds not given exactly once: {twice:?}");
    soulgrid::shut_down(&state).await;
}
