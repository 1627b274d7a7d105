//! The board's rules: findings belong to the running stage, the human's marks and comments
//! count once, an artifact is versioned only when it changed, the first claim of a job wins.

use super::*;

#[test]
fn the_human_pins_strikes_and_comments_and_a_replay_adds_no_second_comment() {
    let mut docs = planned();
    let mark = EventKind::FindingMarked {
        quest_id: "q1".into(),
        finding_id: "f1".into(),
        pinned: Some(true),
        struck: None,
        comment: Some("say more about the stars".into()),
    };
    run(
        &mut docs,
        &[
            ev(3, 12, moved(QuestStatus::Stage, Some(0))),
            ev(4, 13, finding("f1", 0, "Lyra")),
            ev(5, 14, mark.clone()),
            ev(5, 14, mark),
        ],
    );
    let f = findings_of(&docs, "q1")[0];
    assert!(f.pinned && !f.struck);
    assert_eq!(f.comments.len(), 1);
}

#[test]
fn a_new_artifact_version_only_when_it_changed() {
    let mut docs = planned();
    let write = |text: &str| EventKind::ArtifactWritten {
        quest_id: "q1".into(),
        name: "report".into(),
        kind: ArtifactKind::Report,
        stage: None,
        title: "R".into(),
        text: text.into(),
    };
    run(
        &mut docs,
        &[
            ev(3, 1, write("one")),
            ev(4, 2, write("one")),
            ev(5, 3, write("two")),
        ],
    );
    let r = report_of(&docs, "q1").unwrap();
    assert_eq!((r.version, r.text.as_str()), (2, "two"));
}

#[test]
fn the_first_claim_of_a_job_wins_and_only_its_claimer_finishes_it() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(
                1,
                0,
                EventKind::JobPosted {
                    job_id: "j1".into(),
                    title: "Tidy the notes".into(),
                    text: "all of them".into(),
                    posted_by: "Marcus".into(),
                },
            ),
            ev(
                2,
                1,
                EventKind::JobClaimed {
                    job_id: "j1".into(),
                    by: "Kael".into(),
                },
            ),
            ev(
                3,
                1,
                EventKind::JobClaimed {
                    job_id: "j1".into(),
                    by: "Lyra".into(),
                },
            ),
            ev(
                4,
                2,
                EventKind::JobDone {
                    job_id: "j1".into(),
                    by: "Lyra".into(),
                    result: "not mine".into(),
                },
            ),
        ],
    );
    let j = jobs(&docs)[0];
    assert_eq!(
        (j.status, j.claimed_by.as_deref()),
        (JobStatus::Claimed, Some("Kael"))
    );
    run(
        &mut docs,
        &[ev(
            5,
            3,
            EventKind::JobDone {
                job_id: "j1".into(),
                by: "Kael".into(),
                result: "tidied".into(),
            },
        )],
    );
    let j = jobs(&docs)[0];
    assert_eq!(
        (j.status, j.result.as_deref()),
        (JobStatus::Done, Some("tidied"))
    );
}
