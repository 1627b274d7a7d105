//! Names: any reasonable Unicode name, unique folded among the seated, the lead and the human;
//! each with an ASCII inbox name of its own.

use proptest::prelude::*;

use super::super::docs::taken_names;
use super::super::docs::Docs;
use super::super::events::EventKind;
use super::super::names::{choose, display_name, fold, slug, NameError};
use super::*;

fn registered(seat: Seat, name: &str, inbox: &str) -> EventKind {
    EventKind::AgentRegistered {
        seat,
        name: name.into(),
        color_name: None,
        soul: Some("soul".into()),
        claude_session_id: None,
        inbox: Some(inbox.into()),
    }
}

fn team() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1, 2, 3])),
            ev(2, 1, registered(0, "Lyra", "lyra")),
            ev(3, 1, registered(1, "Zoë", "zoe")),
        ],
    );
    docs
}

#[test]
fn a_display_name_is_one_reasonable_line() {
    assert_eq!(display_name("  Zoë  ").unwrap(), "Zoë");
    assert_eq!(display_name("Anne  Marie").unwrap(), "Anne Marie");
    assert_eq!(display_name("李白").unwrap(), "李白");
    assert_eq!(display_name(""), Err(NameError::Empty));
    assert_eq!(display_name("   "), Err(NameError::Empty));
    assert_eq!(display_name("Ly\nra"), Err(NameError::Control));
    assert_eq!(display_name("Ly\u{7}ra"), Err(NameError::Control));
    assert_eq!(display_name(&"a".repeat(41)), Err(NameError::TooLong(41)));
    assert!(
        display_name(&"é".repeat(40)).is_ok(),
        "characters, not bytes"
    );
    assert_eq!(
        display_name("<chosen name>"),
        Err(NameError::Forbidden('<'))
    );
    assert_eq!(display_name("Chosen Name"), Err(NameError::Placeholder));
    assert_eq!(display_name("[ACTION]"), Err(NameError::Forbidden('[')));
    assert_eq!(display_name("---"), Err(NameError::NoLetters));
}

#[test]
fn names_are_compared_folded_and_slugged_to_ascii() {
    assert_eq!(fold("ZOË"), fold("zoe"));
    assert_eq!(fold("Ｌｙｒａ"), "lyra", "full-width letters fold too");
    assert_eq!(slug("Zoë"), "zoe");
    assert_eq!(slug("first.last"), "first-last");
    assert_eq!(slug("Anne Marie"), "anne-marie");
    assert_eq!(slug("李白"), "agent");
    assert_eq!(slug("  -Ø- "), "agent");
}

#[test]
fn a_taken_name_is_refused_and_a_taken_slug_gets_a_suffix() {
    let docs = team();
    let taken = taken_names(&docs, 2, "Julian", "first.last");
    for (raw, who) in [
        ("LYRA", "the agent in seat 1"),
        ("zoe", "the agent in seat 2"),
        ("julian", "the lead"),
        ("First.Last", "the human"),
    ] {
        assert_eq!(
            choose(raw, &taken),
            Err(NameError::Taken(who.into())),
            "{raw}"
        );
    }
    assert_eq!(
        choose("~Lyra", &taken).unwrap(),
        ("~Lyra".into(), "lyra-2".into())
    );
    assert_eq!(
        choose("Ember", &taken).unwrap(),
        ("Ember".into(), "ember".into())
    );
    // The seat choosing is not in its own way (a re-registration keeps its name).
    assert!(choose("Lyra", &taken_names(&docs, 0, "Julian", "Marcus")).is_ok());
}

#[test]
fn a_name_that_addresses_others_or_ends_in_punctuation_is_refused() {
    let docs = team();
    let taken = taken_names(&docs, 2, "Julian", "Marcus");
    for (raw, word) in [
        ("All", "all"),
        ("LEAD", "lead"),
        ("Team", "team"),
        ("human", "human"),
    ] {
        assert_eq!(
            choose(raw, &taken),
            Err(NameError::Reserved(word.into())),
            "{raw}"
        );
    }
    for raw in ["Lyra,", "Kael.", "Wren!", "(Ash)"] {
        assert_eq!(
            choose(raw, &taken),
            Err(NameError::TrailingPunctuation),
            "{raw}"
        );
    }
    assert!(choose("Allegra", &taken).is_ok() && choose("Dr. Who", &taken).is_ok());
}

#[test]
fn the_reducer_seats_no_second_agent_with_a_taken_name_or_inbox() {
    let mut docs = team();
    run(
        &mut docs,
        &[
            ev(4, 2, registered(2, "lyra", "lyra-2")),
            ev(5, 2, registered(3, "Kael", "lyra")),
        ],
    );
    assert!(!seat(&docs, 2).has_name(), "a name taken (any case)");
    assert!(!seat(&docs, 3).has_name(), "an inbox taken");
    assert_eq!(seat(&docs, 0).inbox().as_deref(), Some("lyra"));
    // Data written before inbox names were stored: the lower-cased name, when it can be one.
    let mut old = seat(&docs, 0).clone();
    old.inbox = None;
    assert_eq!(old.inbox().as_deref(), Some("lyra"));
    old.name = Some("Zoë".into());
    assert_eq!(old.inbox(), None);
}

proptest! {
    #[test]
    fn every_accepted_name_has_a_valid_unique_inbox(
        names in prop::collection::vec("\\PC{1,12}", 1..12)
    ) {
        let mut docs = Docs::new();
        run(&mut docs, &[ev(1, 0, summon(&[0, 1, 2, 3, 5, 6, 7, 8]))]);
        let mut seats = vec![0u8, 1, 2, 3, 5, 6, 7, 8].into_iter();
        let mut id = 2;
        for raw in names {
            let Some(seat) = seats.next() else { break };
            let taken = taken_names(&docs, seat, "Julian", "Marcus");
            if let Ok((name, inbox)) = choose(&raw, &taken) {
                prop_assert!(
                    inbox.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
                        && (1..=40).contains(&inbox.len()),
                    "{:?}", inbox
                );
                prop_assert!(inbox != "julian" && inbox != "marcus");
                run(&mut docs, &[ev(id, 1, registered(seat, &name, &inbox))]);
                id += 1;
                prop_assert_eq!(seat_name(&docs, seat), Some(name));
            }
        }
        let seated: Vec<_> = super::super::docs::identities(&docs).filter(|d| d.has_name()).collect();
        for (i, a) in seated.iter().enumerate() {
            for b in &seated[i + 1..] {
                prop_assert_ne!(fold(a.name.as_deref().unwrap()), fold(b.name.as_deref().unwrap()));
                prop_assert_ne!(a.inbox(), b.inbox());
            }
        }
    }
}

fn seat_name(docs: &Docs, s: Seat) -> Option<String> {
    super::super::docs::identity(docs, s).and_then(|d| d.name.clone())
}
