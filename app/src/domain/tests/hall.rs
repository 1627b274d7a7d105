//! Identity apart from seat: retiring leaves the seat empty and keeps the identity, with its
//! messages and souls, in the Hall; recall seats it again elsewhere.

use super::super::docs::{hall, souls, thread, Docs};
use super::super::events::EventKind;
use super::super::status::AgentStatus;
use super::super::wake::sleeping_seats;
use super::super::LEAD_SEAT;
use super::*;

fn said(seat: Seat, id: &str, text: &str) -> EventKind {
    EventKind::AgentMessage {
        message_id: id.into(),
        seat,
        speaker_name: "someone".into(),
        text: text.into(),
        target_agent: None,
        aside: None,
    }
}

fn kill(seat: Seat) -> EventKind {
    EventKind::AgentKilled {
        seat,
        reason: Some("retired by the human".into()),
    }
}

fn recall(id: &str, seat: Seat) -> EventKind {
    EventKind::AgentRecalled {
        identity_id: id.into(),
        seat,
    }
}

/// Lyra (id `lyra-id`) in seat 0 says something, and is retired.
fn lyra_retired() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id"), (1, "kael-id")])),
            ev(2, 1, register(0, "Lyra", "I chose Lyra for the harp.")),
            ev(3, 1, register(1, "Kael", "Kael.")),
            ev(4, 2, said(0, "m1", "I was here first")),
            ev(5, 3, kill(0)),
        ],
    );
    docs
}

#[test]
fn retiring_empties_the_seat_and_keeps_the_identity_in_the_hall() {
    let docs = lyra_retired();
    assert!(!seat(&docs, 0).status().is_visible(), "the seat is empty");
    assert!(thread(&docs, 0).is_empty() && souls(&docs, 0).is_empty());
    let retired: Vec<_> = hall(&docs).collect();
    let [lyra] = &retired[..] else {
        panic!("{retired:#?}")
    };
    assert_eq!(lyra.name.as_deref(), Some("Lyra"));
    assert_eq!(lyra.retired_at, Some(3));
    assert_eq!(lyra.retired_reason.as_deref(), Some("retired by the human"));
    assert_eq!(
        lyra.individuation_artifact.as_deref(),
        Some("I chose Lyra for the harp.")
    );
    // Retiring the empty seat again, or the lead's, changes nothing.
    let mut again = docs.clone();
    run(&mut again, &[ev(6, 4, kill(0)), ev(7, 4, kill(LEAD_SEAT))]);
    assert_eq!(again, docs);
}

/// Whatever reads documents by type (the design's own rule) meets no retired agent asleep in a
/// seat it left: the Hall entry has a type of its own. A store written before it had one reads
/// its Hall entries back as Hall entries.
#[test]
fn a_hall_entry_is_not_an_agent_identity_by_type() {
    use super::super::docs::{Doc, TYPE_HALL, TYPE_IDENTITY};
    let docs = lyra_retired();
    let by_type = |ty: &str| -> Vec<String> {
        docs.values()
            .map(Doc::to_value)
            .filter(|v| v["type"] == ty)
            .map(|v| v["_id"].as_str().unwrap().to_string())
            .collect()
    };
    let seated_lyra = by_type(TYPE_IDENTITY).into_iter().any(|id| {
        let v = docs[&id].to_value();
        v["name"] == "Lyra"
    });
    assert!(
        !seated_lyra,
        "no agent-identity document is Lyra's any more"
    );
    assert_eq!(by_type(TYPE_HALL), ["hall:lyra-id"]);
    // As an older store holds it: the Hall entry typed as an identity.
    let mut old = docs["hall:lyra-id"].to_value();
    old["type"] = TYPE_IDENTITY.into();
    let read = Doc::from_value(old).unwrap();
    assert!(
        read.as_hall().is_some() && read.as_identity().is_none(),
        "{read:?}"
    );
    assert_eq!(read, docs["hall:lyra-id"]);
}

#[test]
fn a_new_agent_in_the_seat_starts_its_own_thread_and_souls() {
    let mut docs = lyra_retired();
    run(
        &mut docs,
        &[
            ev(6, 4, summon_ids(&[(0, "zoe-id")])),
            ev(7, 5, register(0, "Zoë", "I am Zoë.")),
            ev(8, 6, said(0, "m2", "a new voice")),
        ],
    );
    let texts: Vec<&str> = thread(&docs, 0).iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["a new voice"]);
    let zoe: Vec<&str> = souls(&docs, 0).iter().map(|s| s.text.as_str()).collect();
    assert_eq!(zoe, ["I am Zoë."]);
    // Lyra's first soul is still there, under her own id.
    assert!(docs.contains_key("soul:lyra-id:1"));
}

#[test]
fn recall_seats_the_identity_again_with_its_history_and_its_own_colour() {
    let mut docs = lyra_retired();
    let face = hall(&docs).next().unwrap().face_variant.clone();
    run(&mut docs, &[ev(6, 4, recall("lyra-id", 3))]);
    let lyra = seat(&docs, 3);
    assert_eq!(lyra.name.as_deref(), Some("Lyra"));
    assert_eq!(lyra.status(), AgentStatus::Sleeping);
    assert_eq!(lyra.stable_id(), "lyra-id");
    assert_eq!(lyra.face_variant, face, "the face stays with the identity");
    assert_eq!(
        lyra.color,
        crate::domain::palette::seat_style(0).map(|s| s.color.to_string()),
        "the colour stays with the identity"
    );
    let texts: Vec<&str> = thread(&docs, 3).iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["I was here first"]);
    assert_eq!(souls(&docs, 3).len(), 1);
    assert!(hall(&docs).next().is_none(), "no longer in the Hall");
    assert_eq!(sleeping_seats(&docs), [3], "WAKE brings it back");
}

#[test]
fn recall_changes_nothing_when_it_cannot_be_done() {
    let docs = lyra_retired();
    for (why, kind) in [
        ("an occupied seat", recall("lyra-id", 1)),
        ("the lead's seat", recall("lyra-id", LEAD_SEAT)),
        ("not in the Hall", recall("nobody", 3)),
        ("no such seat", recall("lyra-id", 9)),
    ] {
        let mut after = docs.clone();
        run(&mut after, &[ev(6, 4, kind)]);
        assert_eq!(after, docs, "{why}");
    }
    // A name taken meanwhile.
    let mut taken = docs.clone();
    run(
        &mut taken,
        &[
            ev(6, 4, summon_ids(&[(0, "other-id")])),
            ev(7, 5, register(0, "LYRA", "another")),
        ],
    );
    let before = taken.clone();
    run(&mut taken, &[ev(8, 6, recall("lyra-id", 3))]);
    assert_eq!(taken, before);
    // Recalled once, not twice.
    let mut twice = docs.clone();
    run(&mut twice, &[ev(6, 4, recall("lyra-id", 3))]);
    let once = twice.clone();
    run(&mut twice, &[ev(7, 5, recall("lyra-id", 5))]);
    assert_eq!(twice, once);
}

#[test]
fn an_identity_is_found_by_its_id_seated_or_in_the_hall_with_its_thread() {
    use super::super::docs::{identity_by_id, souls_of, thread_of};
    let mut docs = lyra_retired();
    let lyra = identity_by_id(&docs, "lyra-id").unwrap().clone();
    assert!(lyra.retired_at.is_some());
    let texts: Vec<&str> = thread_of(&docs, &lyra)
        .iter()
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(texts, ["I was here first"]);
    assert_eq!(souls_of(&docs, &lyra).len(), 1);
    assert_eq!(identity_by_id(&docs, "kael-id").unwrap().grid_position, 1);
    assert!(identity_by_id(&docs, "nobody").is_none());
    run(&mut docs, &[ev(6, 4, recall("lyra-id", 3))]);
    let seated = identity_by_id(&docs, "lyra-id").unwrap();
    assert_eq!((seated.grid_position, seated.retired_at), (3, None));
    assert_eq!(thread_of(&docs, seated).len(), 1);
}

#[test]
fn a_fork_hatches_in_an_empty_seat_with_its_parent_and_fork_point() {
    let mut docs = lyra_retired();
    let fork = |seat: Seat, uuid: &str| EventKind::AgentForked {
        seat,
        uuid: uuid.into(),
        parent_id: "kael-id".into(),
        fork_message_id: Some("message:m9".into()),
    };
    run(&mut docs, &[ev(6, 4, fork(0, "child-id"))]);
    let child = seat(&docs, 0);
    assert_eq!(child.status(), AgentStatus::Hatching);
    assert_eq!(child.stable_id(), "child-id");
    assert_eq!(child.parent_uuid.as_deref(), Some("kael-id"));
    assert_eq!(child.fork_message_id.as_deref(), Some("message:m9"));
    assert!(
        thread(&docs, 0).is_empty(),
        "the child's own thread starts empty"
    );
    // An occupied seat or the lead's: nothing.
    for (s, why) in [(1, "occupied"), (LEAD_SEAT, "the lead's")] {
        let before = docs.clone();
        run(&mut docs, &[ev(7, 5, fork(s, "other-id"))]);
        assert_eq!(docs, before, "{why}");
    }
}

#[test]
fn retiring_a_parent_re_parents_its_seated_children_to_its_own_parent_or_the_lead() {
    let mut docs = Docs::new();
    let fork = |seat: Seat, uuid: &str, parent: &str| EventKind::AgentForked {
        seat,
        uuid: uuid.into(),
        parent_id: parent.into(),
        fork_message_id: None,
    };
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "a")])),
            ev(2, 1, register(0, "A", "a")),
            ev(3, 2, fork(1, "b", "a")),
            ev(4, 2, register(1, "B", "b")),
            ev(5, 3, fork(2, "c", "b")),
            ev(6, 3, register(2, "C", "c")),
            // B leaves: C's parent is now A.
            ev(7, 4, kill(1)),
        ],
    );
    assert_eq!(seat(&docs, 2).parent_uuid.as_deref(), Some("a"));
    // A leaves: C had A for parent, and A had none: the lead.
    run(&mut docs, &[ev(8, 5, kill(0))]);
    assert_eq!(
        seat(&docs, 2).parent_uuid.as_deref(),
        None,
        "no lead document here"
    );
    // The retired keep their lineage as it was when they left.
    let b = hall(&docs)
        .find(|h| h.name.as_deref() == Some("B"))
        .unwrap();
    assert_eq!(b.parent_uuid.as_deref(), Some("a"));
}

/// The colour of the identity seated in `seat`.
fn color(docs: &Docs, seat: Seat) -> String {
    super::super::docs::identity(docs, seat)
        .and_then(|i| i.color.clone())
        .unwrap_or_default()
}

#[test]
fn an_identity_keeps_its_colour_wherever_it_sits_and_a_newcomer_wears_a_free_one() {
    let mut docs = lyra_retired();
    let lyra = super::super::palette::seat_style(0).unwrap().color;
    assert_eq!(hall(&docs).next().unwrap().color.as_deref(), Some(lyra));
    // Recalled into seat 3: still Lyra's colour, not seat 3's.
    run(&mut docs, &[ev(6, 3, recall("lyra-id", 3))]);
    assert_eq!(color(&docs, 3), lyra);
    // A newcomer in Lyra's old seat does not wear her colour, nor anyone else's.
    run(&mut docs, &[ev(7, 3, summon_ids(&[(0, "new-id")]))]);
    let newcomer = color(&docs, 0);
    let worn: Vec<String> = [1, 3].iter().map(|&s| color(&docs, s)).collect();
    assert!(
        !newcomer.is_empty() && !worn.contains(&newcomer),
        "{newcomer} among {worn:?}"
    );
    assert_ne!(newcomer, super::super::palette::LEAD_COLOR);
}

#[test]
fn a_newcomer_does_not_take_the_colour_of_an_identity_in_the_hall() {
    use super::super::palette::{newcomer_color, palette, seat_style};
    // Lyra (seat 0's colour) is in the Hall: a newcomer in seat 0 wears another, so her recall
    // meets no twin.
    let mut docs = lyra_retired();
    run(&mut docs, &[ev(6, 3, summon_ids(&[(0, "new-id")]))]);
    assert_ne!(color(&docs, 0), seat_style(0).unwrap().color);
    // Every colour taken (seated or in the Hall): a tint of the seat's, not a twin.
    let all: Vec<&str> = palette().iter().map(|s| s.color).collect();
    let (tint, name) = newcomer_color(2, &all[..4], &all[4..]).unwrap();
    assert!(!all.contains(&tint.as_str()), "{tint}");
    assert_eq!(name, "Spring Moss tint");
}

#[test]
fn a_fork_wears_a_tint_of_its_parents_colour() {
    let mut docs = lyra_retired();
    run(
        &mut docs,
        &[ev(
            6,
            3,
            EventKind::AgentForked {
                seat: 2,
                uuid: "child-id".into(),
                parent_id: "kael-id".into(),
                fork_message_id: None,
            },
        )],
    );
    let (parent, child) = (color(&docs, 1), color(&docs, 2));
    assert_ne!(child, parent);
    assert!(!super::super::palette::palette()
        .iter()
        .any(|s| s.color == child));
    let rgb = |h: &str| -> Vec<i32> {
        (0..3)
            .map(|i| i32::from_str_radix(&h[1 + i * 2..3 + i * 2], 16).unwrap())
            .collect()
    };
    let near = rgb(&parent)
        .iter()
        .zip(rgb(&child))
        .all(|(p, c)| (p - c).abs() <= 0x60);
    assert!(near, "{child} is kin to {parent}");
    let name = super::super::docs::identity(&docs, 2).and_then(|i| i.color_name.clone());
    assert_eq!(name.as_deref(), Some("Glacier Blue tint"));
    // Every colour of the palette tints to a valid colour of its own.
    for s in super::super::palette::palette() {
        let t = super::super::palette::fork_tint(s.color).unwrap();
        assert!(t.len() == 7 && t != s.color, "{} -> {t}", s.color);
    }
}
