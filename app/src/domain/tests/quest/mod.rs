//! Quests: the machine (every move allowed and the ones refused) and a quest from start to
//! report through the reducer; the board's rules in `board`, the templates and texts in `texts`.

use super::super::docs::{
    ArtifactKind, Docs, JobStatus, QuestDoc, QuestStatus, Severity, StageAgent, StageDoc,
};
use super::super::events::EventKind;
use super::super::quest::prompts::{brief, review, stage_artifact, stage_prompt, Member};
use super::super::quest::template::{parse, TemplateError};
use super::super::quest::{
    can_move, findings_of, jobs, latest_artifacts, quest, report_of, running_quest, stage_of,
    QuestError,
};
use super::*;

mod board;
mod texts;

fn stage(name: &str, agents: &[&str]) -> StageDoc {
    StageDoc {
        index: 0,
        name: name.into(),
        goal: format!("the goal of {name}"),
        produce: "ideas".into(),
        agents: agents
            .iter()
            .map(|a| StageAgent {
                name: a.to_string(),
                role: Some("dreamer".into()),
                persona: Some("You think wide.".into()),
            })
            .collect(),
        done: Vec::new(),
        started_at: None,
        ended_at: None,
        end_reason: None,
        progress_at: None,
    }
}

fn moved(status: QuestStatus, stage: Option<u32>) -> EventKind {
    EventKind::QuestMoved {
        quest_id: "q1".into(),
        status,
        stage,
        reason: None,
    }
}

fn finding(id: &str, stage: u32, agent: &str) -> EventKind {
    EventKind::FindingPosted {
        quest_id: "q1".into(),
        finding_id: id.into(),
        stage,
        seat: 0,
        agent: agent.into(),
        title: format!("{agent}'s finding {id}"),
        body: "because".into(),
        severity: Some(Severity::Minor),
        file: None,
        line: None,
    }
}

fn done(stage: u32, agent: &str) -> EventKind {
    EventKind::StageAgentDone {
        quest_id: "q1".into(),
        stage,
        agent: agent.into(),
    }
}

fn ended(stage: u32) -> EventKind {
    EventKind::StageEnded {
        quest_id: "q1".into(),
        stage,
        reason: "all its agents are done".into(),
    }
}

/// A quest planned in two stages: Lyra and Kael, then Wren.
fn planned() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(
                1,
                10,
                EventKind::QuestStarted {
                    quest_id: "q1".into(),
                    problem: "How do we name the ship?".into(),
                    folder: None,
                    project: None,
                },
            ),
            ev(
                2,
                11,
                EventKind::QuestPlanned {
                    quest_id: "q1".into(),
                    template: "brainstorm".into(),
                    stages: vec![
                        stage("diverge", &["Lyra", "Kael"]),
                        stage("converge", &["Wren"]),
                    ],
                },
            ),
        ],
    );
    docs
}

fn q(docs: &Docs) -> &QuestDoc {
    quest(docs, "q1").unwrap()
}

#[test]
fn the_quest_machine_moves_only_as_designed() {
    use QuestStatus::*;
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[ev(
            1,
            0,
            EventKind::QuestStarted {
                quest_id: "q1".into(),
                problem: "p".into(),
                folder: None,
                project: None,
            },
        )],
    );
    assert_eq!(
        can_move(q(&docs), Stage, Some(0), false),
        Err(QuestError::NotPlanned)
    );
    let docs = planned();
    let at = q(&docs);
    assert_eq!(at.stages[1].index, 1, "stages are numbered as planned");
    assert!(can_move(at, Stage, Some(0), false).is_ok());
    assert!(matches!(
        can_move(at, Reporting, None, false),
        Err(QuestError::Invalid { .. })
    ));
    assert!(matches!(
        can_move(at, Done, None, true),
        Err(QuestError::Invalid { .. })
    ));
    assert!(can_move(at, Abandoned, None, false).is_ok());
    let mut docs = docs;
    run(&mut docs, &[ev(3, 12, moved(Stage, Some(0)))]);
    let at = q(&docs);
    assert_eq!((at.status, at.stage), (Stage, Some(0)));
    assert_eq!(
        can_move(at, Stage, Some(1), false),
        Err(QuestError::StageRunning(0))
    );
    assert_eq!(
        can_move(at, Reporting, None, false),
        Err(QuestError::StageRunning(0))
    );
    assert!(matches!(
        can_move(at, Stage, Some(2), false),
        Err(QuestError::Invalid { .. })
    ));
    run(&mut docs, &[ev(4, 13, ended(0))]);
    let at = q(&docs);
    assert!(can_move(at, Stage, Some(1), false).is_ok());
    assert!(
        can_move(at, Reporting, None, false).is_ok(),
        "the lead may report early"
    );
    run(
        &mut docs,
        &[ev(5, 14, moved(Stage, Some(1))), ev(6, 15, ended(1))],
    );
    assert_eq!(
        can_move(q(&docs), Stage, Some(2), false),
        Err(QuestError::NoStage(2))
    );
    run(&mut docs, &[ev(7, 16, moved(Reporting, None))]);
    assert_eq!(
        can_move(q(&docs), Done, None, false),
        Err(QuestError::NoReport)
    );
    assert!(can_move(q(&docs), Done, None, true).is_ok());
    run(&mut docs, &[ev(8, 17, moved(Abandoned, None))]);
    assert_eq!(
        can_move(q(&docs), Stage, Some(0), false),
        Err(QuestError::Over("abandoned"))
    );
    assert!(running_quest(&docs).is_none());
    // A move the machine refuses writes nothing.
    let before = docs.clone();
    run(&mut docs, &[ev(9, 18, moved(Stage, Some(0)))]);
    assert_eq!(docs, before);
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
fn a_quest_runs_from_its_plan_to_its_report() {
    use QuestStatus::*;
    let mut docs = planned();
    run(
        &mut docs,
        &[
            // Before its stage runs, a finding belongs nowhere.
            ev(3, 11, finding("f0", 0, "Lyra")),
            ev(4, 12, moved(Stage, Some(0))),
            ev(5, 13, finding("f1", 0, "Lyra")),
            ev(6, 14, finding("f2", 0, "Kael")),
            ev(7, 15, done(0, "Lyra")),
            ev(8, 16, done(0, "Nobody")),
            ev(9, 17, done(0, "kael")),
        ],
    );
    let at = q(&docs);
    assert_eq!(at.stages[0].done, ["Lyra", "kael"]);
    assert!(at.stages[0].all_done());
    assert_eq!(at.stages[0].progress_at, Some(17));
    assert_eq!(stage_of(&docs, "Kael"), Some(("q1".into(), 0)));
    let ids: Vec<_> = findings_of(&docs, "q1")
        .iter()
        .map(|f| f.finding_id.clone())
        .collect();
    assert_eq!(ids, ["f1", "f2"]);
    run(
        &mut docs,
        &[
            ev(10, 18, ended(0)),
            // A stage that ended takes no finding and ends once.
            ev(11, 19, finding("f3", 0, "Lyra")),
            ev(12, 20, ended(0)),
            ev(
                13,
                21,
                EventKind::ArtifactWritten {
                    quest_id: "q1".into(),
                    name: "stage-1".into(),
                    kind: ArtifactKind::Stage,
                    stage: Some(0),
                    title: "Stage 1".into(),
                    text: "the ideas".into(),
                },
            ),
            ev(14, 22, moved(Stage, Some(1))),
            ev(
                15,
                23,
                EventKind::StageJoined {
                    quest_id: "q1".into(),
                    stage: 1,
                    agent: "Sable".into(),
                    replaces: Some("Wren".into()),
                },
            ),
            ev(16, 24, ended(1)),
            ev(17, 25, moved(Reporting, None)),
            ev(
                18,
                26,
                EventKind::ArtifactWritten {
                    quest_id: "q1".into(),
                    name: "report".into(),
                    kind: ArtifactKind::Report,
                    stage: None,
                    title: "Call her Tern".into(),
                    text: "# Tern\nShort, a sea bird.".into(),
                },
            ),
            ev(19, 27, moved(Done, None)),
        ],
    );
    let at = q(&docs);
    assert_eq!(findings_of(&docs, "q1").len(), 2);
    assert_eq!(at.stages[0].ended_at, Some(18));
    assert!(at.stages[1].has("Sable"), "a reinforcement joined");
    assert!(
        !at.stages[1].has("Wren"),
        "in the place it was summoned for"
    );
    assert_eq!(at.stages[1].agents[0].role.as_deref(), Some("dreamer"));
    assert_eq!((at.status, at.ended_at), (Done, Some(27)));
    assert_eq!(report_of(&docs, "q1").unwrap().title, "Call her Tern");
    let names: Vec<_> = latest_artifacts(&docs, "q1")
        .iter()
        .map(|a| a.name.clone())
        .collect();
    assert_eq!(names, ["stage-1", "report"]);
}
