use super::super::markers::{
    is_marker_line, parse_block, parse_line, Fences, LineBuffer, Marker, StatusEntry,
    MARKER_PREFIXES,
};
use proptest::prelude::*;

#[test]
fn action_register_is_parsed_and_stripped() {
    let p = parse_block(
        "I am here.\nI choose a name.\n[ACTION] {\"action\":\"register\",\"name\":\"Lyra\"}",
    );
    assert_eq!(p.display, "I am here.\nI choose a name.");
    assert_eq!(
        p.markers,
        [Marker::Register {
            name: "Lyra".into(),
            color_name: None,
            soul: None,
            grid_position: None
        }]
    );
    assert!(p.errors.is_empty());
}

#[test]
fn every_action_kind_parses() {
    let cases = [
        (
            r#"[ACTION] {"action":"status","agents":[{"name":"A","status":"alive"},"B"]}"#,
            "status",
        ),
        (r#"[ACTION] {"action":"summon","count":3}"#, "summon"),
        (r#"[ACTION] {"action":"dismiss","name":"A"}"#, "dismiss"),
        (
            r#"[ACTION] {"action":"route","to":"A","text":"hello"}"#,
            "route",
        ),
        (
            r#"[ACTION] {"action":"state","state":"deep_work"}"#,
            "state",
        ),
        (
            r#"[ACTION] {"action":"quest_plan","template":"brainstorm","stages":[{"agents":["A","B"]},{"agents":["C"]}]}"#,
            "quest_plan",
        ),
        (
            r#"[ACTION] {"action":"stage_next","summon":["critic"]}"#,
            "stage_next",
        ),
        (
            r#"[ACTION] {"action":"report","title":"T","body":"B"}"#,
            "report",
        ),
        (
            r#"[ACTION] {"action":"finding","title":"T","body":"B","severity":"major"}"#,
            "finding",
        ),
        (r#"[ACTION] {"action":"stage_done"}"#, "stage_done"),
        (
            r#"[ACTION] {"action":"job","title":"T","text":"do it"}"#,
            "job",
        ),
        (r#"[ACTION] {"action":"claim","job":"j1"}"#, "claim"),
        (
            r#"[ACTION] {"action":"job_done","job":"j1","result":"done"}"#,
            "job_done",
        ),
    ];
    for (line, kind) in cases {
        let m = parse_line(line)
            .expect("a marker line")
            .unwrap_or_else(|e| panic!("{kind}: {e:?}"));
        let ok = match (&m, kind) {
            (Marker::Status { agents }, "status") => {
                agents.len() == 2
                    && agents.iter().all(StatusEntry::is_alive)
                    && agents[1].name() == "B"
            }
            (Marker::Summon { count: Some(3), .. }, "summon") => true,
            (Marker::Dismiss { name }, "dismiss") => name == "A",
            (Marker::Route { to, text }, "route") => to == "A" && text == "hello",
            (Marker::State { state, .. }, "state") => state == "deep_work",
            (Marker::QuestPlan { template, stages }, "quest_plan") => {
                template == "brainstorm" && stages.len() == 2 && stages[0].agents == ["A", "B"]
            }
            (Marker::StageNext { summon, dismiss }, "stage_next") => {
                summon == &["critic"] && dismiss.is_empty()
            }
            (Marker::Report { title, .. }, "report") => title == "T",
            (Marker::Finding { severity, .. }, "finding") => severity.as_deref() == Some("major"),
            (Marker::StageDone {}, "stage_done") => true,
            (Marker::Job { title, .. }, "job") => title == "T",
            (Marker::Claim { job }, "claim") => job == "j1",
            (Marker::JobDone { job, result }, "job_done") => job == "j1" && result == "done",
            _ => false,
        };
        assert!(ok, "{kind}: {m:?}");
    }
}

#[test]
fn legacy_markers_are_understood() {
    let p = parse_block(concat!(
        "[AGENT_REGISTERED] {\"name\":\"Lyra\",\"colorName\":\"Violet Heaven\",\"gridPosition\":0,\"individuationArtifact\":\"soul text\"}\n",
        "[AGENT_STATUS] {\"agents\":[{\"name\":\"Lyra\",\"status\":\"alive\",\"gridPosition\":0},{\"name\":\"Kael\",\"status\":\"sleeping\"}]}"
    ));
    assert_eq!(p.display, "");
    assert_eq!(
        p.markers[0],
        Marker::Register {
            name: "Lyra".into(),
            color_name: Some("Violet Heaven".into()),
            soul: Some("soul text".into()),
            grid_position: Some(0)
        }
    );
    let Marker::Status { agents } = &p.markers[1] else {
        panic!("{:?}", p.markers[1])
    };
    assert!(agents[0].is_alive());
    assert!(!agents[1].is_alive());
}

#[test]
fn state_shorthand() {
    assert_eq!(
        parse_line("[STATE:deep_work]").unwrap().unwrap(),
        Marker::State {
            state: "deep_work".into(),
            summary: String::new(),
        }
    );
    // What follows on the line is the summary.
    assert_eq!(
        parse_line("[STATE:deep_work] reading the parser")
            .unwrap()
            .unwrap(),
        Marker::State {
            state: "deep_work".into(),
            summary: "reading the parser".into(),
        }
    );
    assert!(parse_line("[STATE:Deep Work]").unwrap().is_err());
    assert!(parse_line("[STATE:inbox").unwrap().is_err());
    assert!(parse_line("[STATE:]").unwrap().is_err());
}

#[test]
fn bad_json_is_an_error_and_is_stripped() {
    let p = parse_block("before\n[ACTION] {\"action\":\"register\",\nafter\n[ACTION] {\"action\":\"fly\"}\n[AGENT_STATUS] []");
    assert_eq!(p.display, "before\nafter");
    assert!(p.markers.is_empty());
    assert_eq!(p.errors.len(), 3);
    assert!(p.errors[0].line.starts_with("[ACTION]"));
}

#[test]
fn markers_only_count_at_the_start_of_a_line() {
    let text = "we use [ACTION] {\"action\":\"dismiss\",\"name\":\"A\"} markers";
    let p = parse_block(text);
    assert_eq!(p.display, text);
    assert!(p.markers.is_empty());
    assert!(is_marker_line("   [STATE:idle]"));
}

#[test]
fn streamed_text_parses_complete_lines_only() {
    let mut buf = LineBuffer::new();
    let first = buf.push("Hello\n[ACTION] {\"action\":\"reg");
    assert_eq!(first.display, "Hello\n");
    assert!(
        first.markers.is_empty() && first.errors.is_empty(),
        "half a marker waits"
    );
    let second = buf.push("ister\",\"name\":\"Ada\"}\nbye");
    assert_eq!(second.markers.len(), 1);
    assert_eq!(second.display, "");
    let last = buf.finish();
    assert_eq!(last.display, "bye");
    assert!(buf.finish().display.is_empty());
}

#[test]
fn a_marker_at_the_end_of_a_stream_without_newline_is_parsed_on_finish() {
    let mut buf = LineBuffer::new();
    assert!(buf.push("[STATE:idle]").markers.is_empty());
    assert_eq!(
        buf.finish().markers,
        [Marker::State {
            state: "idle".into(),
            summary: String::new(),
        }]
    );
}

/// No marker line is shown, except as code (inside a fence, where it is only text).
fn no_marker_leaks(display: &str) -> bool {
    let mut fences = Fences::default();
    display.split('\n').all(|l| {
        fences.code(l)
            || !MARKER_PREFIXES
                .iter()
                .any(|p| l.trim_start().starts_with(p))
    })
}

/// The marker lines outside fenced code.
fn marker_lines(text: &str) -> usize {
    let mut fences = Fences::default();
    text.split('\n')
        .filter(|l| !fences.code(l) && is_marker_line(l))
        .count()
}

fn marker_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[ACTION] ".to_string()),
        Just("[AGENT_REGISTERED] ".to_string()),
        Just("[AGENT_STATUS] ".to_string()),
        Just("[STATE:".to_string()),
        Just("]".to_string()),
        Just("\n".to_string()),
        Just("\n```\n".to_string()),
        Just("\n~~~~\n".to_string()),
        Just("{\"action\":\"register\",\"name\":\"A\"}".to_string()),
        Just("{\"agents\":[\"A\"]}".to_string()),
        "\\PC{0,12}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics_and_never_leaks_markers(text in "\\PC*") {
        let p = parse_block(&text);
        prop_assert!(no_marker_leaks(&p.display));
    }

    #[test]
    fn marker_soup_never_leaks(text in marker_soup()) {
        let p = parse_block(&text);
        prop_assert!(no_marker_leaks(&p.display));
        prop_assert_eq!(p.markers.len() + p.errors.len(), marker_lines(&text));
    }

    #[test]
    fn streaming_in_any_chunks_equals_parsing_the_block(text in marker_soup(), cuts in prop::collection::vec(0usize..200, 0..6)) {
        let mut buf = LineBuffer::new();
        let mut markers = Vec::new();
        let mut display = String::new();
        let mut rest = text.as_str();
        let mut sorted = cuts.clone();
        sorted.sort();
        let mut taken = 0;
        for cut in sorted {
            let at = cut.saturating_sub(taken).min(rest.len());
            let at = (0..=at).rev().find(|&i| rest.is_char_boundary(i)).unwrap_or(0);
            let (head, tail) = rest.split_at(at);
            let p = buf.push(head);
            markers.extend(p.markers);
            display.push_str(&p.display);
            taken += at;
            rest = tail;
        }
        let p = buf.push(rest);
        markers.extend(p.markers);
        display.push_str(&p.display);
        let p = buf.finish();
        markers.extend(p.markers);
        display.push_str(&p.display);
        let whole = parse_block(&text);
        prop_assert_eq!(markers, whole.markers);
        prop_assert_eq!(display.trim(), whole.display.as_str());
        prop_assert!(no_marker_leaks(&display));
    }
}

#[test]
fn a_findings_line_is_a_number_or_a_number_in_a_string() {
    for (line, want) in [
        (r#""line":42"#, Some(42)),
        (r#""line":"42""#, Some(42)),
        (r#""line":0"#, None),
        (r#""line":-3"#, None),
        (r#""line":"soon""#, None),
        (r#""line":null"#, None),
    ] {
        let text = format!(
            r#"[ACTION] {{"action":"finding","title":"T","body":"B","file":"src/a.rs",{line}}}"#
        );
        match parse_line(&text).expect("a marker").expect("it parses") {
            Marker::Finding {
                file, line: got, ..
            } => {
                assert_eq!((file.as_deref(), got), (Some("src/a.rs"), want), "{line}")
            }
            m => panic!("{m:?}"),
        }
    }
}
