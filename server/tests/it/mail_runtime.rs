//! Mail through the running server: direct messages, mail for sleeping agents, mail others
//! append, and the lead's `route` action. Inbox files it meets: `inbox_files.rs`.

use crate::common;

use std::path::Path;

use app::domain::docs::thread;
use app::domain::mail::InboxMessage;
use axum::http::StatusCode;
use common::{call, external_append, post_json, wait_for};
use serde_json::json;

pub(crate) fn read(path: &Path) -> Vec<InboxMessage> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Waits (10 s at most) until the inbox file satisfies `check`: mail is marked read when the
/// agent takes it (its echo of the message), which its answer may outrun.
pub(crate) async fn read_eventually(
    path: &Path,
    what: &str,
    check: impl Fn(&[InboxMessage]) -> bool,
) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !check(&read(path)) {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn mail_flows_through_inboxes_both_ways() {
    let (_dir, state, router) = common::team().await;
    let boxes = state.runtime.mailboxes().clone();

    // Direct message: into Wren's inbox (read once delivered), her answer into Marcus's.
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "hello Wren", "targetAgent": "Wren"}),
        ),
    )
    .await;
    assert_eq!(r.json()["delivery"], "delivered");
    wait_for(&state, "Wren answers", |d| {
        thread(d, 2).iter().any(|m| m.text.contains("“hello Wren"))
    })
    .await;
    read_eventually(
        &boxes.path("wren").unwrap(),
        "Wren took the message",
        |all| {
            all.iter()
                .any(|m| m.from == "Marcus" && m.text == "hello Wren" && m.read)
        },
    )
    .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !boxes.path("marcus").unwrap().exists()
        || !read(&boxes.path("marcus").unwrap())
            .iter()
            .any(|m| m.from == "Wren" && m.text.contains("hello Wren"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "Wren's answer is in Marcus's inbox"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // Someone else appends to Kael's inbox: delivered once, recorded, marked read.
    external_append(&boxes.path("kael").unwrap(), "Orin", 7);
    wait_for(&state, "Kael hears Orin", |d| {
        thread(d, 1).iter().any(|m| m.text.contains("“Orin 7"))
    })
    .await;
    wait_for(&state, "Orin's mail recorded", |d| {
        thread(d, 1)
            .iter()
            .any(|m| m.speaker_name == "Orin" && m.text == "Orin 7")
    })
    .await;
    read_eventually(&boxes.path("kael").unwrap(), "Kael's mail is read", |all| {
        all.iter().all(|m| m.read)
    })
    .await;
    // A later letter, answered: deliveries to a seat come one after another, so a second
    // delivery of the first would have come before this answer.
    external_append(&boxes.path("kael").unwrap(), "Orin", 8);
    wait_for(&state, "Kael's answer to the later letter", |d| {
        thread(d, 1).iter().any(|m| m.text.contains("“Orin 8"))
    })
    .await;
    let heard = state.store.with_all_docs(|d| {
        thread(d, 1)
            .iter()
            .filter(|m| m.text.contains("“Orin 7"))
            .count()
    });
    assert_eq!(heard, 1, "delivered exactly once");

    // Someone writes into Marcus's inbox as Tamsin: it shows in Tamsin's thread, read.
    external_append(&boxes.path("marcus").unwrap(), "Tamsin", 9);
    wait_for(&state, "Tamsin's note to Marcus shown", |d| {
        thread(d, 6)
            .iter()
            .any(|m| m.speaker_name == "Tamsin" && m.text == "Tamsin 9")
    })
    .await;
    read_eventually(
        &boxes.path("marcus").unwrap(),
        "the human's inbox is all read",
        |all| all.iter().all(|m| m.read),
    )
    .await;

    // Mail for a sleeping agent waits and is handed over on wake.
    call(&router, post_json("/api/agents/5/dismiss", json!({}))).await;
    let r = call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "while you slept", "targetAgent": "Sable"}),
        ),
    )
    .await;
    assert_eq!(r.json()["delivery"], "queued");
    assert!(boxes
        .unread("sable")
        .unwrap()
        .iter()
        .any(|m| m.text == "while you slept"));
    let r = call(&router, post_json("/api/agents/wake", json!({}))).await;
    assert_eq!(r.json()["seats"], json!([5]));
    wait_for(&state, "Sable mentions the waiting letter", |d| {
        thread(d, 5).iter().any(|m| {
            m.text.contains("1 letters waited for me") && m.text.contains("while you slept")
        })
    })
    .await;
    // Marked read once the burst that took it is stored, which may follow the reply's event.
    read_eventually(
        &boxes.path("sable").unwrap(),
        "Sable's waiting letter marked read",
        |all| all.iter().all(|m| m.read),
    )
    .await;
    soulgrid::shut_down(&state).await;
}

#[tokio::test]
async fn a_seat_without_an_agent_is_refused_before_anything_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    let before = state.store.last_event_id();
    for body in [
        json!({"text": "hi", "seat": 0}),
        json!({"text": "hi", "seat": 9}),
    ] {
        let r = call(&router, post_json("/api/send", body)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        // Said without a seat number the human never saw.
        let said = r.json()["error"].as_str().unwrap().to_string();
        assert!(said.contains("nothing was sent"), "{said}");
        assert!(
            !said.contains("seat 1") && !said.contains("seat 9"),
            "{said}"
        );
    }
    let after = state.store.events_after(before, 10).await.unwrap();
    assert!(after.is_empty(), "{after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leads_route_shows_in_the_recipients_thread_and_waits_for_a_sleeper() {
    let (_dir, state, router) = common::team().await;

    // Kael (seat 1) is awake: the lead's message is in Kael's thread, and Kael answers it.
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "route:Kael: please check the logs"}),
        ),
    )
    .await;
    wait_for(&state, "the routed message and Kael's answer", |d| {
        let t = thread(d, 1);
        t.iter()
            .any(|m| m.speaker_name == "Julian" && m.text == "please check the logs")
            && t.iter()
                .any(|m| m.speaker_name == "Kael" && m.text.contains("please check the logs"))
    })
    .await;

    // Wren (seat 2) sleeps: the message waits in the inbox and is handed over on wake.
    call(&router, post_json("/api/agents/2/dismiss", json!({}))).await;
    call(
        &router,
        post_json(
            "/api/send",
            json!({"text": "route:Wren: read this when you wake"}),
        ),
    )
    .await;
    wait_for(&state, "the message in Wren's thread", |d| {
        thread(d, 2)
            .iter()
            .any(|m| m.speaker_name == "Julian" && m.text == "read this when you wake")
    })
    .await;
    let boxes = state.runtime.mailboxes();
    assert_eq!(boxes.unread("Wren").unwrap().len(), 1, "kept for the wake");
    call(&router, post_json("/api/agents/wake", json!({}))).await;
    wait_for(&state, "Wren woke to the message", |d| {
        thread(d, 2).iter().any(|m| {
            m.text.contains("1 letters waited for me; the last: ")
                && m.text.contains("read this when you wake")
        })
    })
    .await;

    // Nobody by that name: said on the lead's seat, nothing sent.
    call(
        &router,
        post_json("/api/send", json!({"text": "route:Nobody: hello?"})),
    )
    .await;
    wait_for(&state, "the marker error", |d| {
        app::domain::docs::identity(d, app::domain::LEAD_SEAT)
            .and_then(|l| l.last_problem.as_ref())
            .is_some_and(|p| {
                p.message
                    .contains("nobody on the team is called \"Nobody\"")
            })
    })
    .await;
    soulgrid::shut_down(&state).await;
}

/// A message the lead routes is stored before the recipient's answer to it: the route holds the
/// recipient's deliveries from filing to handing over, as the human's send does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_routed_message_is_stored_before_the_answer_to_it() {
    let (_dir, state, router) = common::team().await;
    let answered = |d: &app::domain::docs::Docs, text: &str| {
        thread(d, 1)
            .iter()
            .any(|m| m.speaker_name == "Kael" && m.text.contains(&format!("“{text}”")))
    };
    for i in 0..40 {
        let text = format!("routed {i}");
        let r = call(
            &router,
            post_json(
                "/api/send",
                json!({ "text": format!("route:Kael: {text}") }),
            ),
        )
        .await;
        assert_eq!(r.status, axum::http::StatusCode::ACCEPTED, "{}", r.body);
        wait_for(&state, "Kael's answer", |d| answered(d, &text)).await;
    }
    let docs = state.store.snapshot().0;
    let kael = thread(&docs, 1);
    for i in 0..40 {
        let text = format!("routed {i}");
        let message = kael
            .iter()
            .position(|m| m.speaker_name == "Julian" && m.text == text);
        let answer = kael
            .iter()
            .position(|m| m.speaker_name == "Kael" && m.text.contains(&format!("“{text}”")));
        assert!(
            message.unwrap() < answer.unwrap(),
            "{text:?} is at {message:?} of Kael's thread, its answer at {answer:?}"
        );
    }
    soulgrid::shut_down(&state).await;
}
