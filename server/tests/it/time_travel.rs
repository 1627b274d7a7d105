//! Time travel: the documents at any point of the log are the reducer over that prefix (from
//! whichever checkpoint is nearest), a moment can be named by event or by time, and the page at
//! `/?at=` renders the past, read-only.

use crate::common;

use app::domain::docs::{commit, Docs};
use app::domain::reducer::apply;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn the_past_is_the_reducer_over_a_prefix_of_the_log() {
    let (_dir, state, router) = common::team().await;
    for i in 0..30 {
        call(
            &router,
            post_json(
                "/api/send",
                json!({"text": format!("line {i}"), "seat": i % 2 * 4}),
            ),
        )
        .await;
    }
    wait_for(&state, "the last line answered", |d| {
        app::domain::docs::thread(d, 4)
            .iter()
            .any(|m| m.text.contains("line 29"))
            || app::domain::docs::thread(d, 0)
                .iter()
                .any(|m| m.text.contains("line 29"))
    })
    .await;
    let events = state.store.events_after(0, 1_000_000).await.unwrap();
    let last = events.last().unwrap().id;
    // In any order (checkpoints are made as points are asked for), each point is its prefix.
    let mut points = vec![last, 1, last / 2, 0, last / 3, last - 1, last / 2 + 7];
    points.dedup();
    for at in points {
        let mut expected = Docs::new();
        for e in events.iter().filter(|e| e.id <= at) {
            let w = apply(&expected, e);
            commit(&mut expected, w);
        }
        let (docs, ts) = state.store.docs_at(at).await.unwrap();
        assert_eq!(docs, expected, "after event {at}");
        if at > 0 {
            assert_eq!(ts, events[at as usize - 1].ts);
        }
    }
    // A moment by time: the last event at or before it.
    let middle = &events[events.len() / 2];
    let (named, clamped) = state
        .store
        .resolve_at(&app::domain::time::iso(middle.ts))
        .await
        .unwrap()
        .unwrap();
    assert!(named >= middle.id && events[named as usize - 1].ts == middle.ts);
    assert_eq!(clamped, None);
    let resolve = |at: &'static str| {
        let store = state.store.clone();
        async move { store.resolve_at(at).await.unwrap() }
    };
    use app::domain::moment::Clamped::*;
    assert_eq!(resolve("5").await, Ok((5, None)));
    assert!(resolve("someday").await.is_err());
    // Outside the log: clamped to its first or newest event, and said (never 1970's empty team).
    assert_eq!(resolve("1970-01-01").await, Ok((1, Some(BeforeFirst))));
    assert_eq!(resolve("0").await, Ok((1, Some(BeforeFirst))));
    // (The team may still be answering: the newest event is at least `last`.)
    for past_the_end in ["99999", "2999-01-01"] {
        let (n, why) = resolve(past_the_end).await.unwrap();
        assert!(
            n >= last && why == Some(AfterLast),
            "{past_the_end}: {n} {why:?}"
        );
    }
    // The line of time the slider spans: the first and newest event, the session's start.
    let line = state.store.timeline().unwrap();
    assert_eq!(line.first, events[0].ts);
    assert!(line.last >= events.last().unwrap().ts);
    let starts: Vec<i64> = events
        .iter()
        .filter(|e| e.kind.type_name() == "session_start")
        .map(|e| e.ts)
        .collect();
    assert!(!starts.is_empty());
    assert_eq!(line.sessions, starts);

    // The page of the past: the grid as it was, and the way back.
    let before_summon = events
        .iter()
        .find(|e| e.kind.type_name() == "agents_summoned")
        .unwrap()
        .id
        - 1;
    // Pages render one at a time in this binary (`crate::SERIAL`).
    let _serial = crate::SERIAL.lock().await;
    let page = call(&router, get(&format!("/?at={before_summon}"))).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains("You are looking at"),
        "{:.400}",
        page.body
    );
    assert!(page.body.contains("Back to now"));
    assert!(page.body.contains(r#"data-status="empty""#));
    assert!(!page.body.contains("I am Lyra"), "nobody was born yet");
    let now = call(&router, get("/")).await;
    assert!(!now.body.contains("You are looking at"));
    // A moment that is none: a 400 page with the header and the way back, in words.
    let bad = call(&router, get("/?at=someday")).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.body.contains("Back to now") && bad.body.contains("<h1>Soulgrid</h1>"));
    assert!(
        bad.body.contains("is neither an event number nor a time"),
        "{:.600}",
        bad.body
    );
    let past_end = call(&router, get("/?at=99999")).await;
    assert_eq!(past_end.status, StatusCode::OK);
    assert!(past_end.body.contains("after the newest event"));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoints_are_kept_as_points_are_asked_for_and_thinned_out() {
    let (dir, state, router) = common::team().await;
    for i in 0..20 {
        call(
            &router,
            post_json("/api/send", json!({"text": format!("line {i}")})),
        )
        .await;
    }
    let events = state.store.events_after(0, 1_000_000).await.unwrap();
    let last = events.last().unwrap().id;
    let mut conn = soulgrid::store::db::Db::Sqlite(
        soulgrid::store::restore::open_read_only(dir.path()).unwrap(),
    );
    let history = soulgrid::store::history::History::new(3);
    let fold = |at: u64| {
        let mut d = Docs::new();
        for e in events.iter().filter(|e| e.id <= at) {
            let w = apply(&d, e);
            commit(&mut d, w);
        }
        d
    };
    for at in [last / 2, last, 2, last - 4, last / 4 + 1] {
        assert_eq!(
            history.docs_at(&mut conn, at).unwrap(),
            fold(at),
            "after event {at}"
        );
    }
    let (kept, spacing) = history.checkpoints();
    assert!(kept <= soulgrid::store::history::MOST && kept > 0, "{kept}");
    assert_eq!(spacing % 3, 0, "the spacing only doubles: {spacing}");
    assert!(
        (last / spacing) as usize <= soulgrid::store::history::MOST,
        "thinned to fit: {last} events, spacing {spacing}"
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoints_are_made_by_a_look_back_and_let_go_when_nobody_looks() {
    let dir = tempfile::tempdir().unwrap();
    let store = soulgrid::store::Store::open(dir.path()).unwrap();
    let kinds: Vec<_> = (0..12_000)
        .map(|i| app::domain::events::EventKind::UserMessage {
            message_id: format!("m{i}"),
            speaker_name: "Marcus".into(),
            seat: 4,
            text: format!("line {i}"),
            target_agent: None,
        })
        .collect();
    for chunk in kinds.chunks(2000) {
        store.append_all("s", chunk.to_vec()).await.unwrap();
    }
    assert_eq!(store.history_checkpoints().0, 0, "none before a look back");
    let (middle, _) = store.docs_at(7_777).await.unwrap();
    store.docs_at(12_000).await.unwrap();
    assert!(store.history_checkpoints().0 > 0);
    store.forget_idle_history(std::time::Duration::from_secs(3600));
    assert!(store.history_checkpoints().0 > 0, "looked back just now");
    store.forget_idle_history(std::time::Duration::ZERO);
    assert_eq!(store.history_checkpoints().0, 0);
    assert_eq!(store.docs_at(7_777).await.unwrap().0, middle);
}

/// The past is still: a turn running at the moment shown says how long it had run then, as
/// the server draws the page (and the browser keeps it: it counted on to now, "thinking… 11 min
/// 41 s" at a moment two minutes into the session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_running_in_the_past_says_how_long_it_had_run_then() {
    use app::domain::events::EventKind;
    use app::domain::process::ProcessState;
    use app::domain::LEAD_SEAT;
    let (_dir, state, router) =
        common::team_with(&["--claude-args", "--sim-latency-ms 1500"]).await;
    let after = state.store.last_event_id();
    call(
        &router,
        post_json("/api/send", json!({"text": "take your time"})),
    )
    .await;
    let lead_state = |e: &app::domain::events::Event| match &e.kind {
        EventKind::AgentProcess { seat, state, .. } if *seat == LEAD_SEAT => Some(*state),
        _ => None,
    };
    // Its answer given and its turn over: both moments are in the log.
    wait_for(&state, "the lead's turn over", |d| {
        app::domain::docs::identity(d, LEAD_SEAT).is_some_and(|l| {
            l.process_state == Some(ProcessState::Idle)
                && app::domain::docs::thread(d, LEAD_SEAT)
                    .iter()
                    .any(|m| m.text.contains("take your time") && m.speaker_name != "Marcus")
        })
    })
    .await;
    let events = state.store.events_after(after, 1_000_000).await.unwrap();
    let r = events
        .iter()
        .position(|e| lead_state(e) == Some(ProcessState::Running))
        .expect("the lead's turn began");
    let i = r + events[r..]
        .iter()
        .position(|e| lead_state(e) == Some(ProcessState::Idle))
        .expect("the lead's turn ended");
    let (running, before_idle) = (events[r].clone(), events[i - 1].clone());
    let secs = (before_idle.ts - running.ts) / 1000;
    let _serial = crate::SERIAL.lock().await;
    let page = call(&router, get(&format!("/?at={}", before_idle.id))).await;
    assert_eq!(page.status, StatusCode::OK);
    let want = format!("class=\"elapsed\">{secs} s");
    assert!(
        page.body.contains(&want),
        "{want} in {}",
        &page.body[page.body.find("class=\"thread").unwrap_or(0)..][..1200.min(page.body.len())]
    );
    assert!(!page.body.contains(">Interrupt<"), "the past is read-only");
    soulgrid::shut_down(&state).await;
}
