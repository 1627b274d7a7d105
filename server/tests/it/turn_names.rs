//! A newborn's name through the translator: a taken one is refused and asked again (twice is
//! the end), a name like a seated one gets an inbox of its own; only the lead retires and
//! recalls.

use app::domain::docs::Docs;
use app::domain::events::{EventKind, SummonedSeat};
use serde_json::json;
use soulgrid::runtime::protocol::CliLine;
use soulgrid::runtime::turn::{LeadRequest, Translator};

use crate::common;

use common::recorded::text_line;

fn registered_docs(names: &[(u8, &str)]) -> Docs {
    let mut events = vec![EventKind::AgentsSummoned {
        seats: (0..9)
            .filter(|s| *s != 4)
            .map(|seat| SummonedSeat {
                seat,
                uuid: None,
                secret_hash: None,
            })
            .collect(),
    }];
    for (seat, name) in names {
        events.push(EventKind::AgentRegistered {
            seat: *seat,
            name: name.to_string(),
            color_name: None,
            soul: None,
            claude_session_id: None,
            inbox: Some(app::domain::names::slug(name)),
        });
    }
    app::domain::reducer::fold(events)
}

fn register_line(name: &str) -> CliLine {
    text_line(&format!(
        "I chose.\n[ACTION] {}",
        json!({"action": "register", "name": name})
    ))
}

#[test]
fn a_newborn_asking_for_a_taken_name_is_told_why_and_asked_once_more() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "first.last");
    for taken in ["lyra", "JULIAN", "First.Last"] {
        let mut t = Translator::new(3, None, true).with_team_names("Julian", "first.last");
        let out = t.on_line(&register_line(taken), &docs);
        assert!(
            !out.events
                .iter()
                .any(|e| matches!(e, EventKind::AgentRegistered { .. })),
            "{taken}: {out:#?}"
        );
        assert!(out.stop.is_none());
    }
    let out = t.on_line(&register_line("<chosen name>"), &docs);
    let error = out
        .events
        .iter()
        .find_map(|e| match e {
            EventKind::MarkerError {
                seat: Some(3),
                error,
                ..
            } => Some(error.clone()),
            _ => None,
        })
        .expect("a marker error on the seat");
    assert!(error.contains("cannot contain '<'"), "{error}");
    let [reply] = &out.replies[..] else {
        panic!("one message asking again: {out:#?}")
    };
    let reply: serde_json::Value = serde_json::from_str(reply).unwrap();
    let asked = reply["message"]["content"].as_str().unwrap();
    assert!(asked.contains("Choose another name"), "{asked}");
    assert!(out.stop.is_none() && t.is_summoning());

    // The second chance, taken: the name, and an inbox of its own.
    let out = t.on_line(&register_line("  Zoë "), &docs);
    assert!(
        out.events.iter().any(|e| matches!(e, EventKind::AgentRegistered { seat: 3, name, inbox: Some(inbox), .. } if name == "Zoë" && inbox == "zoe")),
        "{out:#?}"
    );
}

#[test]
fn a_newborn_refused_twice_is_stopped() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "Marcus");
    let first = t.on_line(&register_line("Lyra"), &docs);
    assert!(first.stop.is_none() && first.replies.len() == 1);
    let second = t.on_line(&register_line("LYRA"), &docs);
    assert!(second.replies.is_empty());
    assert_eq!(second.stop.as_deref(), Some("chose no name it could have"));
}

#[test]
fn a_name_like_a_seated_one_gets_an_inbox_of_its_own() {
    let docs = registered_docs(&[(0, "Lyra")]);
    let mut t = Translator::new(3, None, true).with_team_names("Julian", "Marcus");
    let out = t.on_line(&register_line("~Lyra"), &docs);
    assert!(
        out.events.iter().any(|e| matches!(e, EventKind::AgentRegistered { inbox: Some(inbox), .. } if inbox == "lyra-2")),
        "{out:#?}"
    );
}

#[test]
fn only_the_lead_retires_and_recalls() {
    let kill = text_line("[ACTION] {\"action\":\"kill\",\"name\":\"Lyra\"}");
    let recall = text_line("[ACTION] {\"action\":\"recall\",\"name\":\"Lyra\"}");
    let mut lead = Translator::new(4, Some("Julian".into()), false);
    assert_eq!(
        lead.on_line(&kill, &Docs::new()).requests,
        [LeadRequest::Kill {
            name: "Lyra".into(),
            cascade: false,
        }]
    );
    // The marker's cascade reaches the request (it was dropped on the way).
    let all = text_line("[ACTION] {\"action\":\"kill\",\"name\":\"Lyra\",\"cascade\":true}");
    assert_eq!(
        lead.on_line(&all, &Docs::new()).requests,
        [LeadRequest::Kill {
            name: "Lyra".into(),
            cascade: true,
        }]
    );
    assert_eq!(
        lead.on_line(&recall, &Docs::new()).requests,
        [LeadRequest::Recall {
            name: "Lyra".into(),
            seat: None
        }]
    );
    let mut agent = Translator::new(0, Some("Kael".into()), false);
    for line in [kill, recall] {
        let out = agent.on_line(&line, &Docs::new());
        assert!(out.requests.is_empty());
        assert!(out.events.iter().any(
            |e| matches!(e, EventKind::MarkerError { error, .. } if error.contains("only the lead"))
        ));
    }
}
