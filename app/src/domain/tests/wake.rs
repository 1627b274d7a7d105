use super::super::docs::Docs;
use super::super::events::EventKind;
use super::super::mail::InboxMessage;
use super::super::process::ProcessState;
use super::super::wake::{sleeping_seats, wake_agents_xml, wake_payload, wake_prompt, xml_escape};
use super::*;

fn mail(from: &str, text: &str, read: bool) -> InboxMessage {
    InboxMessage {
        from: from.into(),
        text: text.into(),
        summary: None,
        timestamp: "2026-11-22T10:00:00Z".into(),
        read,
        msg_id: None,
        extra: Default::default(),
    }
}

fn with_session(mut e: Event, session: &str) -> Event {
    e.session_id = session.into();
    e
}

/// Lyra in seat 0: registered in session A, talked in A and in B (where she was last alive),
/// and an agent with a name like hers (Lyre) talked in seat 1.
fn lyra() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            with_session(ev(1, 0, summon(&[0, 1])), "A"),
            with_session(
                ev(
                    2,
                    1,
                    register(0, "Lyra", "I chose Lyra because of the harp."),
                ),
                "A",
            ),
            with_session(ev(3, 2, agent_msg("old", 0, "session A words")), "A"),
            with_session(ev(4, 3, register(1, "Lyre", "Not Lyra, nearly.")), "A"),
            with_session(ev(5, 50, process(0, ProcessState::Starting)), "B"),
            with_session(ev(5, 50, process(0, ProcessState::Running)), "B"),
            with_session(ev(10, 50, process(1, ProcessState::Starting)), "B"),
            with_session(ev(10, 50, process(1, ProcessState::Running)), "B"),
            with_session(ev(7, 70, agent_msg("b2", 0, "second")), "B"),
            with_session(ev(6, 60, human_msg("b1", 0, "first")), "B"),
            with_session(ev(8, 65, agent_msg("twin", 1, "not mine")), "B"),
            with_session(ev(9, 80, EventKind::SessionEnd { reason: None }), "B"),
        ],
    );
    docs
}

#[test]
fn payload_holds_soul_and_the_last_session_scoped_by_seat_in_time_order() {
    let docs = lyra();
    let p = wake_payload(
        &docs,
        0,
        &[
            mail("Julian", "welcome back", false),
            mail("Julian", "old", true),
        ],
    )
    .unwrap();
    assert_eq!(p.name, "Lyra");
    assert_eq!(p.soul.as_deref(), Some("I chose Lyra because of the harp."));
    let texts: Vec<_> = p.transcript.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["first", "second"],
        "only session B, only seat 0, sorted by time"
    );
    assert_eq!(p.unread_mail.len(), 1);
    assert_eq!(p.unread_mail[0].text, "welcome back");
}

#[test]
fn sleeping_seats_are_the_named_sleeping_agents() {
    let docs = lyra();
    assert_eq!(sleeping_seats(&docs), [0, 1]);
}

#[test]
fn prompt_carries_name_soul_transcript_colours_and_configured_names() {
    let docs = lyra();
    let p = wake_payload(&docs, 0, &[]).unwrap();
    let prompt = wake_prompt(&p, "Ada", "Julian");
    assert!(prompt.starts_with("You are waking up."));
    assert!(prompt.contains("Your name is Lyra. You chose it. Here is how that happened:"));
    assert!(prompt.contains("<your-soul>\nI chose Lyra because of the harp.\n</your-soul>"));
    assert!(
        prompt.contains("<previous-session>\n[Marcus]: first\n[Lyra]: second\n</previous-session>")
    );
    assert!(prompt.contains("The human is Ada."));
    assert!(prompt.contains("The lead agent is Julian."));
    assert!(prompt.contains("Your color is Violet Heaven (#C9B1E8)."));
    assert!(prompt.contains("say hello to Ada"));
    assert!(
        !prompt.contains("Marcus."),
        "the configured human name replaces the original's"
    );
}

#[test]
fn wake_with_no_transcript_leaves_the_section_out() {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[2])),
            ev(2, 1, register(2, "Kael", "soul")),
            ev(3, 2, EventKind::SessionEnd { reason: None }),
        ],
    );
    let p = wake_payload(&docs, 2, &[]).unwrap();
    assert!(p.transcript.is_empty());
    let prompt = wake_prompt(&p, "H", "L");
    assert!(!prompt.contains("<previous-session>"));
    assert!(prompt.contains("<your-soul>"));
}

#[test]
fn wake_with_no_soul_degrades_gracefully() {
    let mut docs = Docs::new();
    let kind = EventKind::AgentRegistered {
        seat: 3,
        name: "Mute".into(),
        color_name: None,
        soul: None,
        claude_session_id: None,
        inbox: None,
    };
    run(&mut docs, &[ev(1, 0, summon(&[3])), ev(2, 1, kind)]);
    let p = wake_payload(&docs, 3, &[]).unwrap();
    assert!(p.soul.is_none());
    let prompt = wake_prompt(&p, "H", "L");
    assert!(prompt.contains("Your name is Mute. You chose it.\n"));
    assert!(!prompt.contains("<your-soul>"));
}

#[test]
fn unread_mail_is_in_the_prompt() {
    let docs = lyra();
    let p = wake_payload(&docs, 0, &[mail("Kael", "are you up?", false)]).unwrap();
    assert!(wake_prompt(&p, "H", "L").contains("Kael: are you up?"));
}

#[test]
fn no_payload_for_an_empty_or_nameless_seat() {
    let mut docs = Docs::new();
    run(&mut docs, &[ev(1, 0, summon(&[5]))]);
    assert!(wake_payload(&docs, 5, &[]).is_none());
    assert!(wake_payload(&docs, 6, &[]).is_none());
}

#[test]
fn wake_agents_xml_escapes_every_value() {
    let docs = lyra();
    let mut p = wake_payload(&docs, 0, &[]).unwrap();
    p.name = "Ly\"ra <&>".into();
    p.soul = Some("</soul><agent name='x'>".into());
    let xml = wake_agents_xml(&[p]);
    assert!(xml.starts_with("[WAKE AGENTS]\n<agent-payloads>\n"));
    assert!(xml.contains("<agent name=\"Ly&quot;ra &lt;&amp;&gt;\" color=\"#C9B1E8\" colorName=\"Violet Heaven\" position=\"0\">"));
    assert!(xml.contains("<soul>&lt;/soul&gt;&lt;agent name=&apos;x&apos;&gt;</soul>"));
    assert!(xml.contains("<transcript>[Marcus]: first\n[Lyra]: second</transcript>"));
    assert!(xml.ends_with("</agent-payloads>"));
    assert_eq!(xml.matches("<agent ").count(), 1);
    assert_eq!(xml_escape("a&b"), "a&amp;b");
}
