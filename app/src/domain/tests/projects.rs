//! Projects and worktrees: linked once, unlinked without losing anything, one worktree per
//! identity and project that follows the identity, a worktree made again noted on its seat.

use super::super::docs::{Docs, Review};
use super::super::events::EventKind;
use super::super::projects::{
    branch_for, check_name, name_from_path, project, projects, where_you_work, worktree,
    worktrees_of,
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
