//! Quests and jobs through the running server with `soulgrid-sim`: a quest from problem to
//! report (a reinforcement summoned between stages), one quest at a time, a stage that stalls,
//! findings that outlive their agent, a restart in the middle of a stage, and a job whose
//! first claim wins.

use crate::common;

use std::path::Path;

use app::contract::{JobView, QuestSummary, QuestView};
use app::domain::docs::{thread, JobStatus, QuestStatus};
use app::domain::events::EventKind;
use app::domain::quest::running_quest;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for, wait_for_secs};
use serde_json::json;

fn view(state: &soulgrid::state::AppState, id: &str) -> QuestView {
    state
        .store
        .with_all_docs(|d| app::contract::quest_view(d, id))
        .unwrap()
}

fn received(dir: &Path, seat: u8) -> String {
    std::fs::read_to_string(dir.join(format!("agents/{seat}/.soulgrid-sim/received.jsonl")))
        .unwrap_or_default()
}

async fn start(router: &axum::Router, problem: &str) -> String {
    let r = call(
        router,
        post_json("/api/quests", json!({"problem": problem})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

fn over(d: &app::domain::docs::Docs, id: &str) -> bool {
    app::domain::quest::quest(d, id).is_some_and(|q| q.status.is_over())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn a_quest_runs_from_the_problem_to_the_report() {
    let (_dir, state, router) = common::team().await;
    // An empty seat for the reinforcement the lead summons after the first stage.
    call(&router, post_json("/api/agents/7/kill", json!({}))).await;
    let id = start(&router, "How should we name the ship? SIM_REINFORCE").await;
    let r = call(
        &router,
        post_json("/api/quests", json!({"problem": "another"})),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::CONFLICT,
        "one quest at a time: {}",
        r.body
    );
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("one quest runs at a time"));
    wait_for(&state, "the quest done", |d| over(d, &id)).await;

    let v = view(&state, &id);
    assert_eq!(v.status, "done");
    assert_eq!(v.template.as_deref(), Some("brainstorm"));
    assert_eq!(v.stages.len(), 3);
    assert!(
        v.stages.iter().all(|s| s.status == "done"),
        "{:?}",
        v.stages
    );
    assert_eq!(
        v.stages[0].end_reason.as_deref(),
        Some("all its agents are done")
    );
    // The reinforcement took its place in stage 2 under the name it chose, and worked.
    let newcomer = state
        .store
        .with_all_docs(|d| app::domain::docs::identity(d, 7).and_then(|i| i.name.clone()));
    let newcomer = newcomer.expect("a newcomer in seat 8");
    assert!(v.stages[1].agents.contains(&newcomer), "{:?}", v.stages[1]);
    assert!(!v.stages[1]
        .agents
        .iter()
        .any(|a| a.starts_with("a newcomer")));
    assert!(v
        .findings
        .iter()
        .any(|f| f.agent == newcomer && f.stage == 1));
    for s in &v.stages {
        let found = v.findings.iter().filter(|f| f.stage == s.index).count();
        assert_eq!(found, s.agents.len(), "one finding each in {}", s.name);
    }
    // The team posted them with Soulgrid's tools (the simulator calls them as the CLI does):
    // each call is a line of its thread.
    let tool_lines: Vec<String> = state.store.with_all_docs(|d| {
        app::domain::docs::messages(d)
            .filter_map(|m| m.tool.as_ref().map(|t| t.tool().to_string()))
            .collect()
    });
    let posted = tool_lines.iter().filter(|t| *t == "post_finding").count();
    assert_eq!(posted, v.findings.len(), "{tool_lines:?}");
    assert!(tool_lines.iter().any(|t| t == "stage_done"));
    let names: Vec<&str> = v.artifacts.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(names, ["stage-1", "stage-2", "stage-3", "report"]);
    let report = &v.artifacts[3];
    assert_eq!(report.title, "The team's answer");
    assert!(report.text.contains("view of stage 3"), "{}", report.text);

    let r = call(
        &router,
        get(&format!("/api/quests/{id}/artifacts/report.md")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/markdown"));
    assert!(r.headers["content-disposition"]
        .to_str()
        .unwrap()
        .contains("report.md"));
    assert_eq!(r.body, report.text);
    let list: Vec<QuestSummary> =
        serde_json::from_str(&call(&router, get("/api/quests")).await.body).unwrap();
    assert_eq!((list.len(), list[0].status.as_str()), (1, "done"));
    for (path, want) in [
        (
            format!("/api/quests/{id}/artifacts/nothing.md"),
            StatusCode::NOT_FOUND,
        ),
        ("/api/quests/nobody".to_string(), StatusCode::NOT_FOUND),
    ] {
        assert_eq!(call(&router, get(&path)).await.status, want, "{path}");
    }
    // Over: a second quest may begin.
    let again = call(
        &router,
        post_json("/api/quests", json!({"problem": "next"})),
    )
    .await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stage_without_progress_is_ended_and_the_lead_told() {
    let (_dir, state, router) = common::team_with(&["--stage-timeout", "1s"]).await;
    let id = start(&router, "Think quietly. SIM_SILENT").await;
    wait_for_secs(&state, 30, "the quest done", |d| over(d, &id)).await;
    let v = view(&state, &id);
    assert!(
        v.stages[0]
            .end_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("no progress for 1")),
        "{:?}",
        v.stages[0]
    );
    assert!(v.findings.is_empty());
    let r = call(&router, post_json("/api/quests", json!({"problem": ""}))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    let r = call(
        &router,
        post_json("/api/quests", json!({"problem": "p", "folder": "/etc"})),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::BAD_REQUEST,
        "no --allow-dir: {}",
        r.body
    );
    soulgrid::shut_down(&state).await;
}

/// One clock: moved on an hour, the runtime's own watch sees the stage stalled (it reads the
/// server's clock, the one the store stamped the stage's start with), and ends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_the_servers_clock_moves_the_runtime_too() {
    let clock = soulgrid::clock::Clock::movable();
    let (_dir, state, router) = common::team_on(&["--stage-timeout", "1h"], clock.clone()).await;
    let id = start(&router, "Think quietly. SIM_SILENT").await;
    wait_for(&state, "the first stage running", |d| {
        app::domain::quest::quest(d, &id).is_some_and(|q| q.stage.is_some())
    })
    .await;
    assert!(clock.advance(std::time::Duration::from_secs(3600)));
    // The watch looks every 5 s at most (a quarter of the timeout, at most 5 s).
    let ended = |d: &app::domain::docs::Docs| {
        app::contract::quest_view(d, &id).and_then(|v| v.stages[0].end_reason.clone())
    };
    wait_for_secs(&state, 30, "the stalled stage ended", |d| {
        ended(d).is_some()
    })
    .await;
    let why = state.store.with_all_docs(ended).unwrap();
    assert!(why.starts_with("no progress for 1 h"), "{why}");
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_human_marks_findings_and_they_outlive_their_agent() {
    let (_dir, state, router) = common::team_with(&["--stage-timeout", "20m"]).await;
    let id = start(&router, "Name the ship.").await;
    wait_for(&state, "the quest done", |d| over(d, &id)).await;
    let v = view(&state, &id);
    let f = &v.findings[0];
    let r = call(
        &router,
        post_json(
            &format!("/api/quests/{id}/findings/{}", f.id),
            json!({"pinned": true, "comment": "more of this"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = call(
        &router,
        post_json(
            &format!("/api/quests/{id}/findings/nothing"),
            json!({"struck": true}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // Its agent retires: the finding stays on the board.
    let seat = f.seat;
    call(
        &router,
        post_json(&format!("/api/agents/{seat}/kill"), json!({})),
    )
    .await;
    let after = view(&state, &id);
    let kept = after.findings.iter().find(|x| x.id == f.id).unwrap();
    assert!(kept.pinned);
    assert_eq!(kept.comments, ["more of this"]);
    assert_eq!(after.findings.len(), v.findings.len());
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_a_stage_goes_on_at_that_stage() {
    let dir = tempfile::tempdir().unwrap();
    let state = common::boot(dir.path()).await;
    let router = soulgrid::http::router(state.clone());
    common::summon_team(&state, &router).await;
    let id = start(&router, "Stay silent for now. SIM_SILENT").await;
    wait_for(&state, "stage 1 under way, its agents prompted", |_| {
        received(dir.path(), 0).contains("[QUEST STAGE]")
    })
    .await;
    soulgrid::shut_down(&state).await;
    drop(router);

    let state = common::boot(dir.path()).await;
    wait_for(&state, "the stage prompt given again", |_| {
        received(dir.path(), 0).matches("[QUEST STAGE]").count() == 2
    })
    .await;
    state.store.with_all_docs(|d| {
        let q = running_quest(d).unwrap();
        assert_eq!(
            (q.quest_id.as_str(), q.status, q.stage),
            (id.as_str(), QuestStatus::Stage, Some(0))
        );
    });
    let r = call(
        &soulgrid::http::router(state.clone()),
        post_json(&format!("/api/quests/{id}/abandon"), json!({})),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    state
        .store
        .with_all_docs(|d| assert!(running_quest(d).is_none()));
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_goes_to_a_round_of_agents_the_first_claim_wins_and_the_others_are_told() {
    let (dir, state, router) = common::team().await;
    let r = call(
        &router,
        post_json(
            "/api/jobs",
            json!({"title": "Tidy the notes", "text": "all of them"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    // Each offer begins a turn: three awake agents now (--job-offer), not all eight.
    assert_eq!(
        (r.json()["offered"].clone(), r.json()["awake"].clone()),
        (json!(3), json!(8))
    );
    assert!(
        r.json()["said"]
            .as_str()
            .unwrap()
            .contains("offered to 3 of 8 awake agents now"),
        "{}",
        r.body
    );
    wait_for(&state, "the job done", |d| {
        app::domain::quest::jobs(d)
            .first()
            .is_some_and(|j| j.status == JobStatus::Done)
    })
    .await;
    let jobs: Vec<JobView> =
        serde_json::from_str(&call(&router, get("/api/jobs")).await.body).unwrap();
    let j = &jobs[0];
    assert_eq!(j.id, id);
    let winner = j.claimed_by.clone().unwrap();
    assert_eq!(
        j.result.as_deref(),
        Some(format!("{winner} did it").as_str())
    );
    // The other two offered were told it was taken: its claim's answer (it calls the tool)
    // says who has it, and a lost race is no fault on its seat.
    wait_for(&state, "the others told", |d| {
        app::domain::agent_seats()
            .filter(|s| {
                thread(d, *s).iter().any(|m| {
                    m.text.contains("I could not take it: the job")
                        && m.text.contains(&format!("{winner} claimed it first"))
                })
            })
            .count()
            == 2
    })
    .await;
    // Claimed in the first round: the five others were never offered it (a round is a minute).
    assert_eq!(offered(dir.path()), 3);
    assert_eq!(
        common::count_events(&state, |k| matches!(k, EventKind::MarkerError { .. })).await,
        0
    );
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_nobody_claims_goes_to_the_next_round_until_every_awake_agent_had_it() {
    let (dir, state, router) =
        common::team_with(&["--job-offer", "3", "--job-round", "200ms"]).await;
    let r = call(
        &router,
        post_json(
            "/api/jobs",
            json!({"title": "Nobody wants this", "text": "SIM_DECLINE it"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json()["offered"], 3);
    // Three, three, then the last two: every awake agent, each once.
    common::wait_until("all eight offered it", || offered(dir.path()) == 8).await;
    state.store.with_all_docs(|d| {
        let j = app::domain::quest::jobs(d)[0].clone();
        assert_eq!(j.status, JobStatus::Open);
    });
    soulgrid::shut_down(&state).await;
}

/// How many agents the simulated CLI says were offered a job (their received messages).
fn offered(data: &std::path::Path) -> usize {
    app::domain::agent_seats()
        .filter(|s| {
            std::fs::read_to_string(data.join(format!("agents/{s}/.soulgrid-sim/received.jsonl")))
                .unwrap_or_default()
                .contains("A job is offered on the board")
        })
        .count()
}

/// A stage that waits says for whom and why: an agent of the running stage put to sleep is
/// named on the quest's bar with its state (the bar said "Stage 1 of 3: diverge" for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stage_names_who_it_waits_for_and_why() {
    let (_dir, state, router) = common::team().await;
    let id = start(&router, "Think quietly. SIM_SILENT").await;
    wait_for(&state, "the first stage under way", |d| {
        app::domain::quest::quest(d, &id)
            .and_then(|q| q.current())
            .is_some_and(|s| s.is_running() && !s.agents.is_empty())
    })
    .await;
    let name = view(&state, &id).stages[0].agents[0].clone();
    let seat = state.store.with_all_docs(|d| {
        app::domain::docs::identities(d)
            .find(|i| i.name.as_deref() == Some(name.as_str()))
            .map(|i| i.grid_position)
            .unwrap()
    });
    let r = call(
        &router,
        post_json(&format!("/api/agents/{seat}/dismiss"), json!({})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let page = call(&router, get("/")).await;
    let bar = &page.body[page.body.find("quest-bar").expect("the quest's bar")..];
    let bar = &bar[..bar.len().min(2000)];
    assert!(bar.contains(&format!("{name} (asleep)")), "{bar}");
    soulgrid::shut_down(&state).await;
}
