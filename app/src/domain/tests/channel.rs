//! #team's mentions: who `@Name`, `@lead` and `@all` name, each once and never the sender;
//! sleepers marked (their mail waits), the Hall's named apart, anyone else "nobody".

use super::super::channel::{completions, mentions, Heads, Mentioned};

const HEADS: Heads<'static> = Heads {
    lead: "Julian",
    human: "Marcus",
};
use super::super::docs::Docs;
use super::super::events::EventKind;
use super::super::process::ProcessState;
use super::super::LEAD_SEAT;
use super::*;

/// Lyra (0), Kael (1, asleep), Mary Ann (2), Mary (3), Zoë (5); Orin retired to the Hall.
fn team() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon(&[0, 1, 2, 3, 5, 6, 7])),
            ev(2, 1, register(0, "Lyra", "harp")),
            ev(3, 1, register(1, "Kael", "k")),
            ev(4, 1, register(2, "Mary Ann", "m")),
            ev(5, 1, register(3, "Mary", "m")),
            ev(6, 1, register(5, "Zoë", "z")),
            ev(7, 1, register(6, "Orin", "o")),
            ev(8, 2, process(1, ProcessState::Stopped)),
            ev(
                9,
                3,
                EventKind::AgentKilled {
                    seat: 6,
                    reason: Some("retired by the human".into()),
                },
            ),
        ],
    );
    docs
}

fn to(m: &super::super::channel::Mentions) -> Vec<(Seat, &str, bool)> {
    m.to.iter()
        .map(|Mentioned { seat, name, asleep }| (*seat, name.as_str(), *asleep))
        .collect()
}

#[test]
fn a_mention_names_an_agent_folded_and_each_once() {
    let docs = team();
    let m = mentions(&docs, "@lyra and @ZOE, then @Lyra again", None, HEADS);
    assert_eq!(to(&m), vec![(0, "Lyra", false), (5, "Zoë", false)]);
    assert!(m.nobody.is_empty() && m.in_hall.is_empty(), "{m:?}");
}

#[test]
fn the_longest_name_wins_and_a_name_ends_at_a_non_letter() {
    let docs = team();
    let m = mentions(&docs, "@Mary Ann, look", None, HEADS);
    assert_eq!(to(&m), vec![(2, "Mary Ann", false)]);
    let m = mentions(&docs, "@Mary: look", None, HEADS);
    assert_eq!(to(&m), vec![(3, "Mary", false)]);
    // `@Lyrae` is not Lyra.
    let m = mentions(&docs, "@Lyrae", None, HEADS);
    assert!(m.to.is_empty());
    assert_eq!(m.nobody, vec!["Lyrae".to_string()]);
}

#[test]
fn an_address_is_no_mention() {
    let docs = team();
    let m = mentions(&docs, "write to lyra@example.com", None, HEADS);
    assert_eq!(m, Default::default());
}

#[test]
fn a_sleeper_is_marked_asleep_the_hall_apart_and_nobody_said() {
    let docs = team();
    let m = mentions(&docs, "@Kael @Orin @Nemo @Nemo", None, HEADS);
    assert_eq!(to(&m), vec![(1, "Kael", true)]);
    assert_eq!(m.in_hall, vec!["Orin".to_string()]);
    assert_eq!(m.nobody, vec!["Nemo".to_string()]);
}

#[test]
fn the_lead_by_name_or_as_lead() {
    let docs = team();
    for text in ["@Julian what now?", "@lead what now?", "@LEAD"] {
        let m = mentions(&docs, text, Some(0), HEADS);
        assert_eq!(to(&m), vec![(LEAD_SEAT, "Julian", false)], "{text}");
    }
}

#[test]
fn all_from_the_human_or_the_lead_names_everyone_seated_but_the_sender() {
    let docs = team();
    let everyone = vec![
        (0, "Lyra", false),
        (1, "Kael", true),
        (2, "Mary Ann", false),
        (3, "Mary", false),
        (LEAD_SEAT, "Julian", false),
        (5, "Zoë", false),
    ];
    let m = mentions(&docs, "@all stand up", None, HEADS);
    assert_eq!(to(&m), everyone);
    let m = mentions(&docs, "@all stand up", Some(LEAD_SEAT), HEADS);
    let but_the_lead: Vec<_> = everyone.into_iter().filter(|m| m.0 != LEAD_SEAT).collect();
    assert_eq!(to(&m), but_the_lead);
    assert!(!m.all_refused);
}

#[test]
fn an_agents_all_reaches_nobody_and_says_so() {
    let docs = team();
    let m = mentions(&docs, "@all stand up, @Kael too", Some(0), HEADS);
    assert!(m.all_refused);
    assert_eq!(to(&m), vec![(1, "Kael", true)]);
    // The sender never mentions itself.
    let m = mentions(&docs, "@Lyra note to self", Some(0), HEADS);
    assert!(m.to.is_empty());
}

#[test]
fn the_human_is_no_one_to_file_for_and_no_nobody() {
    let docs = team();
    let m = mentions(&docs, "@human @Marcus look", Some(0), HEADS);
    assert_eq!(m, Default::default());
}

#[test]
fn an_agent_called_like_an_alias_does_not_take_it() {
    // Written before names were checked against the aliases: "Lead" is an agent's.
    let mut docs = team();
    run(&mut docs, &[ev(20, 5, register(7, "Lead", "l"))]);
    let m = mentions(&docs, "@lead", None, HEADS);
    assert_eq!(to(&m), vec![(LEAD_SEAT, "Julian", false)]);
}

#[test]
fn a_nobody_is_said_at_most_a_names_length() {
    let docs = team();
    let m = mentions(&docs, &format!("@{}", "x".repeat(10_000)), None, HEADS);
    assert_eq!(m.nobody, vec!["x".repeat(40)]);
}

#[test]
fn a_flood_of_at_signs_is_bounded() {
    let docs = team();
    // 200,000 mentions would be 200,000 looks at the team: only the first 64 are mentions.
    let m = mentions(&docs, &"@".repeat(200_000), None, HEADS);
    assert!(m.to.is_empty() && m.nobody.is_empty());
    let late = format!("{} @Lyra", "@x ".repeat(100));
    let m = mentions(&docs, &late, None, HEADS);
    assert!(m.to.is_empty(), "past the 64th @, a name is text");
    assert_eq!(m.nobody, vec!["x".to_string()]);
}

#[test]
fn completions_follow_what_is_typed() {
    let docs = team();
    assert_eq!(
        completions(&docs, "ma", "Julian"),
        vec!["Mary Ann".to_string(), "Mary".to_string()]
    );
    assert_eq!(completions(&docs, "", "Julian")[..2], ["all", "Julian"]);
    assert_eq!(completions(&docs, "zo", "Julian"), vec!["Zoë".to_string()]);
    assert!(
        completions(&docs, "orin", "Julian").is_empty(),
        "not the Hall"
    );
}

#[test]
fn a_team_message_is_the_channels_and_no_threads() {
    use super::super::docs::{channel, thread};
    let mut docs = team();
    run(
        &mut docs,
        &[
            ev(
                10,
                4,
                EventKind::TeamMessage {
                    message_id: "t1".into(),
                    seat: None,
                    speaker_name: "Marcus".into(),
                    text: "@Lyra hello".into(),
                    mentioned: vec![0],
                },
            ),
            ev(
                11,
                5,
                EventKind::TeamMessage {
                    message_id: "t2".into(),
                    seat: Some(0),
                    speaker_name: "Lyra".into(),
                    text: "hi all".into(),
                    mentioned: vec![],
                },
            ),
        ],
    );
    let said: Vec<_> = channel(&docs, "team")
        .iter()
        .map(|m| (m.speaker_name.as_str(), m.text.as_str()))
        .collect();
    assert_eq!(said, vec![("Marcus", "@Lyra hello"), ("Lyra", "hi all")]);
    assert!(thread(&docs, 0).is_empty() && thread(&docs, LEAD_SEAT).is_empty());
}

#[test]
fn one_agents_letter_to_another_is_in_both_threads() {
    use super::super::docs::thread;
    let mut docs = team();
    run(
        &mut docs,
        &[ev(
            10,
            4,
            EventKind::AgentWrote {
                message_id: "w1".into(),
                from_seat: 0,
                to_seat: 2,
                speaker_name: "Lyra".into(),
                to_name: "Mary Ann".into(),
                text: "your tests fail".into(),
            },
        )],
    );
    for seat in [0, 2] {
        let t = thread(&docs, seat);
        let [m] = &t[..] else {
            panic!("{seat}: {t:#?}")
        };
        assert_eq!(
            (m.speaker_name.as_str(), m.target_agent.as_deref()),
            ("Lyra", Some("Mary Ann"))
        );
    }
    assert!(thread(&docs, 3).is_empty());
}

/// Who answers #team: a mentioned agent's words until its turn ends (not before it spoke),
/// never its own post's (it answered itself), never an answer's own post (no loop), never
/// an agent nobody mentioned.
#[test]
fn a_mentioned_agent_answers_in_team_until_its_turn_ends() {
    use crate::domain::channel::Answers;
    use crate::domain::events::EventKind as K;
    use crate::domain::process::ProcessState;
    let post = |seat: Option<u8>, id: &str, mentioned: Vec<u8>| K::TeamMessage {
        message_id: id.into(),
        seat,
        speaker_name: "x".into(),
        text: "t".into(),
        mentioned,
    };
    let said = |seat: u8, id: &str| K::AgentMessage {
        message_id: id.into(),
        seat,
        speaker_name: format!("agent{seat}"),
        text: format!("words {id}"),
        target_agent: None,
        aside: None,
    };
    let turn_end = |seat: u8| K::AgentProcess {
        seat,
        state: ProcessState::Idle,
        reason: None,
        claude_session_id: None,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: Some(Default::default()),
    };
    let mut a = Answers::default();
    assert!(a.see(&post(None, "p1", vec![0, 1])).is_none());
    // A turn that ends before it spoke (the one before it read the post) answers nothing.
    assert!(a.see(&turn_end(0)).is_none());
    let answer = a.see(&said(0, "m1")).unwrap();
    assert_eq!((answer.seat, answer.message_id.as_str()), (0, "m1:team"));
    assert!(a.see(&said(0, "m2")).is_some(), "the same turn");
    // The answer's own post changes nothing; the turn's end closes it.
    assert!(a.see(&post(Some(0), "m1:team", vec![])).is_none());
    assert!(a.see(&turn_end(0)).is_none());
    assert!(a.see(&said(0, "m3")).is_none(), "answered");
    // Seat 1 answered with its own post: nothing more owed.
    assert!(a.see(&post(Some(1), "p2", vec![])).is_none());
    assert!(a.see(&said(1, "m4")).is_none());
    assert!(a.see(&said(2, "m5")).is_none(), "never mentioned");
}
