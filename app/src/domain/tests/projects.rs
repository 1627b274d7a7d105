//! Projects and worktrees: linked once, unlinked without losing anything, one worktree per
//! identity and project that follows the identity, a worktree made again noted on its seat.

use super::super::docs::{Docs, MergeState, Review};
use super::super::events::EventKind;
use super::super::projects::{
    branch_for, changes_message, check_name, claim_meets, covers, name_from_path, overlaps,
    project, projects, where_you_work, worktree, worktrees_of,
};
use super::*;

fn link(id: &str, name: &str) -> EventKind {
    EventKind::ProjectLinked {
        project_id: id.into(),
        name: name.into(),
        path: format!("/repos/{name}"),
        base: "main".into(),
        check: Some("cargo test".into()),
    }
}

fn made(project: &str, who: &str) -> EventKind {
    EventKind::WorktreeMade {
        project_id: project.into(),
        identity_id: who.into(),
        agent: "Lyra".into(),
        branch: "soulgrid/lyra".into(),
        path: format!("/data/worktrees/{who}/{project}"),
        started_from: "0123456789abcdef".into(),
        parent_branch: None,
    }
}

/// Lyra (`lyra-id`) in seat 0, a project `p1` linked, Lyra at work on it.
fn at_work() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "Lyra.")),
            ev(3, 2, link("p1", "web")),
            ev(4, 3, made("p1", "lyra-id")),
        ],
    );
    docs
}

#[test]
fn a_project_is_linked_once_and_unlinking_keeps_its_worktrees() {
    let mut docs = at_work();
    run(&mut docs, &[ev(5, 4, link("p1", "renamed"))]);
    assert_eq!(project(&docs, "p1").unwrap().name, "web", "linked once");
    assert_eq!(worktrees_of(&docs, "lyra-id").len(), 1);
    run(
        &mut docs,
        &[ev(
            6,
            5,
            EventKind::ProjectUnlinked {
                project_id: "p1".into(),
            },
        )],
    );
    let p = project(&docs, "p1").unwrap();
    assert_eq!(p.unlinked_at, Some(5));
    assert!(
        worktree(&docs, "p1", "lyra-id").is_some(),
        "the worktree is kept"
    );
    assert!(
        worktrees_of(&docs, "lyra-id").is_empty(),
        "an unlinked project is not worked in"
    );
    assert_eq!(projects(&docs).len(), 1);
}

#[test]
fn an_identity_has_one_worktree_per_project() {
    let mut docs = at_work();
    let mut again = made("p1", "lyra-id");
    if let EventKind::WorktreeMade { branch, .. } = &mut again {
        *branch = "soulgrid/other".into();
    }
    run(
        &mut docs,
        &[ev(5, 4, again), ev(6, 5, made("nope", "lyra-id"))],
    );
    let w = worktree(&docs, "p1", "lyra-id").unwrap();
    assert_eq!(w.branch, "soulgrid/lyra");
    assert_eq!(w.review, Review::Working);
    assert!(
        worktree(&docs, "nope", "lyra-id").is_none(),
        "no project, no worktree"
    );
}

#[test]
fn a_worktree_made_again_is_noted_on_its_identitys_seat_once() {
    let mut docs = at_work();
    let remade = EventKind::WorktreeRemade {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        head: "fedcba9876543210".into(),
        why: "was removed by hand".into(),
        path: None,
    };
    let e = ev(5, 4, remade);
    run(&mut docs, &[e.clone(), e]);
    let notes = &seat(&docs, 0).notes;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(
        notes[0].text,
        "Lyra's worktree of web was removed by hand: made again from its branch soulgrid/lyra at fedcba9876."
    );
    assert_eq!(worktree(&docs, "p1", "lyra-id").unwrap().remade_at, Some(4));
}

#[test]
fn the_branch_is_derived_from_the_inbox_and_never_taken_twice() {
    assert_eq!(branch_for("lyra", |_| false), "soulgrid/lyra");
    assert_eq!(
        branch_for("Ærwyn the Bold", |_| false),
        "soulgrid/rwyn-the-bold"
    );
    assert_eq!(branch_for("../../main", |_| false), "soulgrid/main");
    let taken = ["soulgrid/lyra", "soulgrid/lyra-2"];
    assert_eq!(
        branch_for("lyra", |b| taken.contains(&b)),
        "soulgrid/lyra-3"
    );
}

#[test]
fn names_and_what_the_agent_is_told() {
    assert_eq!(name_from_path("/home/me/code/web/"), "web");
    assert!(check_name(" ").is_err() && check_name("a\nb").is_err());
    assert_eq!(check_name(" web ").unwrap(), "web");
    let docs = at_work();
    let text = where_you_work(&docs, &worktrees_of(&docs, "lyra-id")).unwrap();
    assert!(
        text.contains("- web: /data/worktrees/lyra-id/p1 (branch soulgrid/lyra, from main)"),
        "{text}"
    );
    assert!(where_you_work(&docs, &[]).is_none());
}

fn changed(head: &str, files: &[&str]) -> EventKind {
    EventKind::WorktreeChanged {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        head: head.into(),
        changed: files.iter().map(|f| f.to_string()).collect(),
        uncommitted: Vec::new(),
        changed_count: files.len() as u32,
        ahead: 1,
        base_overlaps: Vec::new(),
    }
}

fn merge(state: MergeState) -> EventKind {
    EventKind::MergeMoved {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        state,
        strategy: Some("ff".into()),
        commit: (state == MergeState::Merged).then(|| "m1".into()),
        why: None,
        files: Vec::new(),
        output: None,
        exit: None,
    }
}

#[test]
fn comments_are_sent_once_in_one_message_with_file_line_and_code() {
    let mut docs = at_work();
    let comment = |id: &str, line: u32| EventKind::ReviewCommented {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        comment_id: id.into(),
        file: "src/lib.rs".into(),
        line,
        text: format!("why {line}?"),
        code: "    2".into(),
    };
    run(
        &mut docs,
        &[
            ev(5, 4, comment("c1", 2)),
            ev(6, 5, comment("c1", 2)),
            ev(7, 6, comment("c2", 9)),
        ],
    );
    let w = worktree(&docs, "p1", "lyra-id").unwrap();
    assert_eq!(w.comments.len(), 2, "a comment applied twice is one");
    let text = changes_message("web", w).unwrap();
    assert!(
        text.contains("src/lib.rs:2: why 2?\n```\n    2\n```"),
        "{text}"
    );
    assert!(text.contains("(2 comments)"), "{text}");
    let asked = EventKind::ChangesRequested {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
    };
    run(&mut docs, &[ev(8, 7, asked)]);
    let w = worktree(&docs, "p1", "lyra-id").unwrap();
    assert_eq!(w.review, Review::ChangesRequested);
    assert!(
        changes_message("web", w).is_none(),
        "nothing open is sent again"
    );
}

#[test]
fn an_approval_is_of_one_head_and_a_merge_ends_once() {
    let mut docs = at_work();
    let approve = EventKind::BranchApproved {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        head: "h1".into(),
        base_head: None,
    };
    run(
        &mut docs,
        &[ev(5, 4, changed("h1", &["a"])), ev(6, 5, approve.clone())],
    );
    assert_eq!(
        worktree(&docs, "p1", "lyra-id").unwrap().review,
        Review::Approved
    );
    run(&mut docs, &[ev(7, 6, changed("h2", &["a", "b"]))]);
    let w = worktree(&docs, "p1", "lyra-id").unwrap();
    assert_eq!(
        (w.review, w.approved_head.as_deref()),
        (Review::Working, None),
        "the head moved"
    );
    run(
        &mut docs,
        &[
            ev(8, 7, approve),
            ev(9, 8, merge(MergeState::Queued)),
            ev(10, 9, merge(MergeState::Checking)),
            ev(11, 10, merge(MergeState::Merged)),
            ev(12, 11, merge(MergeState::Refused)),
        ],
    );
    let w = worktree(&docs, "p1", "lyra-id").unwrap();
    let m = w.merge.as_ref().unwrap();
    assert_eq!(
        (m.state, m.commit.as_deref(), m.ended_at),
        (MergeState::Merged, Some("m1"), Some(10))
    );
    assert_eq!(w.review, Review::Merged);
}

#[test]
fn overlaps_and_claims_name_the_other_agents() {
    let mut docs = at_work();
    let kael = EventKind::WorktreeMade {
        project_id: "p1".into(),
        identity_id: "kael-id".into(),
        agent: "Kael".into(),
        branch: "soulgrid/kael".into(),
        path: "/k".into(),
        started_from: "0".into(),
        parent_branch: None,
    };
    let kael_changed = EventKind::WorktreeChanged {
        project_id: "p1".into(),
        identity_id: "kael-id".into(),
        head: "k1".into(),
        changed: vec!["README.md".into(), "src/a.rs".into()],
        uncommitted: vec!["README.md".into()],
        changed_count: 2,
        ahead: 0,
        base_overlaps: Vec::new(),
    };
    run(
        &mut docs,
        &[
            ev(5, 4, kael),
            ev(6, 5, kael_changed),
            ev(7, 6, changed("h1", &["README.md", "x"])),
        ],
    );
    assert_eq!(
        overlaps(&docs, "p1"),
        vec![(
            "README.md".to_string(),
            vec!["lyra-id".to_string(), "kael-id".to_string()]
        )]
    );
    let claim = EventKind::FilesClaimed {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        paths: vec!["docs".into()],
        why: "the guide".into(),
        until: 100,
    };
    run(&mut docs, &[ev(8, 7, claim)]);
    let met = claim_meets(&docs, "p1", "kael-id", &["docs/guide.md".into()], 50);
    assert_eq!(met.len(), 1);
    assert_eq!(
        (met[0].0.agent.as_str(), met[0].1.clone()),
        ("Lyra", vec!["docs/guide.md".to_string()])
    );
    assert!(
        claim_meets(&docs, "p1", "kael-id", &["docs/guide.md".into()], 100).is_empty(),
        "expired"
    );
    assert!(covers("src", "src/a.rs") && !covers("src", "srcx/a.rs") && !covers("", "a"));
}

#[test]
fn a_findings_file_is_a_path_of_the_project_or_nothing() {
    let tree = Some("/data/worktrees/lyra/p1");
    for (raw, want) in [
        ("src/lib.rs", Some("src/lib.rs")),
        ("./src//lib.rs", Some("src/lib.rs")),
        (" /data/worktrees/lyra/p1/src/lib.rs ", Some("src/lib.rs")),
        ("/data/worktrees/lyra/p1", None),
        ("/data/worktrees/lyra/p10/x", None),
        ("/etc/passwd", None),
        ("../p2/secret", None),
        ("src/../../x", None),
        ("", None),
        ("a\0b", None),
    ] {
        assert_eq!(
            super::super::projects::file_in_project(raw, tree).as_deref(),
            want,
            "{raw:?}"
        );
    }
    assert_eq!(super::super::projects::file_in_project("/x/y", None), None);
}

#[test]
fn a_claim_with_no_paths_is_let_go() {
    let mut docs = at_work();
    let claim = |paths: Vec<String>| EventKind::FilesClaimed {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        paths,
        why: "x".into(),
        until: 10,
    };
    run(&mut docs, &[ev(5, 4, claim(vec!["src".into()]))]);
    assert!(worktree(&docs, "p1", "lyra-id").unwrap().claim.is_some());
    run(&mut docs, &[ev(6, 5, claim(Vec::new()))]);
    assert!(worktree(&docs, "p1", "lyra-id").unwrap().claim.is_none());
    // A claim made after the expiry was read holds longer: the let-go leaves it.
    let fresh = EventKind::FilesClaimed {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        paths: vec!["docs".into()],
        why: "y".into(),
        until: 7_200_010,
    };
    run(&mut docs, &[ev(7, 6, fresh), ev(8, 7, claim(Vec::new()))]);
    assert!(worktree(&docs, "p1", "lyra-id").unwrap().claim.is_some());
}

#[test]
fn a_worktree_made_again_elsewhere_is_found_there() {
    let mut docs = at_work();
    let remade = EventKind::WorktreeRemade {
        project_id: "p1".into(),
        identity_id: "lyra-id".into(),
        head: "fedcba9876543210".into(),
        why: "was removed".into(),
        path: Some("/restored/worktrees/lyra-id/p1".into()),
    };
    run(&mut docs, &[ev(5, 4, remade)]);
    assert_eq!(
        worktree(&docs, "p1", "lyra-id").unwrap().path,
        "/restored/worktrees/lyra-id/p1"
    );
}
