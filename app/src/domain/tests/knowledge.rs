//! What an agent knows: vault paths and limits, versions (a new one only when something
//! changed, whoever wrote it, seated or in the Hall), the vault in a prompt within its budget,
//! and commit subjects that report a work state.

use super::super::docs::{Author, Docs, KnowledgeFiles};
use super::super::events::EventKind;
use super::super::knowledge::{
    changed, commit_subject, commits_of, knowledge_at, knowledge_versions, parse_commit_subject,
    prompt, valid_path, within_limits, KnowledgeError, StateCommit, MAX_FILES, MAX_FILE_BYTES,
    MAX_KNOWLEDGE_BYTES,
};
use super::super::wake::{wake_payload, wake_prompt};
use super::*;

fn files(pairs: &[(&str, &str)]) -> KnowledgeFiles {
    pairs
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

fn saved(id: &str, author: Author, f: KnowledgeFiles) -> EventKind {
    EventKind::VaultSaved {
        identity_id: id.into(),
        author,
        author_name: (author == Author::Human).then(|| "Marcus".to_string()),
        reason: Some("test".into()),
        files: f,
    }
}

fn lyra() -> Docs {
    let mut docs = Docs::new();
    run(
        &mut docs,
        &[
            ev(1, 0, summon_ids(&[(0, "lyra-id")])),
            ev(2, 1, register(0, "Lyra", "I am Lyra.")),
        ],
    );
    docs
}

#[test]
fn vault_paths_are_plain_names_one_folder_deep() {
    for ok in ["insights.md", "notes/parser.md", "files.txt", "a-b_c.1.md"] {
        assert!(valid_path(ok), "{ok}");
    }
    for bad in [
        "",
        "/etc/passwd.md",
        "../up.md",
        "a/b/c.md",
        ".hidden.md",
        "x.sh",
        "a/../b.md",
        "sp ace.md",
        "ümlaut.md",
        "notes/.md",
    ] {
        assert!(!valid_path(bad), "{bad}");
    }
}

#[test]
fn a_vault_keeps_what_fits_and_says_why_the_rest_does_not() {
    let big = "x".repeat(MAX_FILE_BYTES + 1);
    let (kept, problems) = within_limits(files(&[
        ("a.md", "fine"),
        ("b.md", &big),
        ("../c.md", "sneaky"),
    ]));
    assert_eq!(kept, files(&[("a.md", "fine")]));
    assert_eq!(problems.len(), 2);
    assert!(matches!(&problems[0], KnowledgeError::BadPath(p) if p == "../c.md"));
    assert!(matches!(&problems[1], KnowledgeError::FileTooLarge { path, .. } if path == "b.md"));
    assert!(problems[1].to_string().contains("b.md"));

    // The whole vault and the number of files are bounded too.
    let half = "y".repeat(MAX_FILE_BYTES);
    let many: KnowledgeFiles = (0..(MAX_KNOWLEDGE_BYTES / MAX_FILE_BYTES + 1))
        .map(|i| (format!("f{i}.md"), half.clone()))
        .collect();
    let (kept, problems) = within_limits(many);
    assert_eq!(kept.len(), MAX_KNOWLEDGE_BYTES / MAX_FILE_BYTES);
    assert!(matches!(
        &problems[..],
        [KnowledgeError::KnowledgeTooLarge { .. }]
    ));
    let lots: KnowledgeFiles = (0..MAX_FILES + 2)
        .map(|i| (format!("n{i:03}.md"), "z".into()))
        .collect();
    let (kept, problems) = within_limits(lots);
    assert_eq!((kept.len(), problems.len()), (MAX_FILES, 2));
}

#[test]
fn changed_lists_added_changed_and_removed_paths() {
    let old = files(&[("a.md", "1"), ("b.md", "2"), ("c.md", "3")]);
    let new = files(&[("a.md", "1"), ("b.md", "two"), ("d.md", "4")]);
    assert_eq!(changed(&old, &new), ["b.md", "c.md", "d.md"]);
    assert!(changed(&old, &old).is_empty());
}

#[test]
fn a_vault_goes_into_a_prompt_whole_or_by_first_lines_past_the_budget() {
    assert_eq!(prompt(&KnowledgeFiles::new(), 100), None);
    let small = files(&[("insights.md", "the parser is LL(1)\nsecond line")]);
    let p = prompt(&small, 1000).unwrap();
    assert!(p.contains("## knowledge/insights.md") && p.contains("second line"));
    let long = "line\n".repeat(500);
    let large = files(&[
        ("a.md", &format!("first\nsecond\nthird\n{long}")),
        ("b.md", "bee"),
    ]);
    let p = prompt(&large, 1000).unwrap();
    assert!(p.contains("Read the files in knowledge/"), "{p}");
    assert!(p.contains("first\nsecond\nthird\n…"), "{p}");
    assert!(p.contains("## knowledge/b.md\n\nbee"));
    assert!(p.len() < 1000);
}

#[test]
fn commit_subjects_report_a_state_with_or_without_the_name() {
    assert_eq!(
        parse_commit_subject("@Lyra: [STATE:deep_work] reading the parser"),
        Some(StateCommit {
            name: Some("Lyra".into()),
            state: "deep_work".into(),
            summary: "reading the parser".into()
        })
    );
    assert_eq!(
        parse_commit_subject("[STATE:inbox]"),
        Some(StateCommit {
            name: None,
            state: "inbox".into(),
            summary: String::new()
        })
    );
    assert_eq!(parse_commit_subject("fix the parser"), None);
    assert_eq!(parse_commit_subject("@Lyra: no state here"), None);
    assert_eq!(parse_commit_subject("[STATE:unclosed"), None);
    let subject = commit_subject("Zoë", "logout", "done for today");
    assert_eq!(subject, "@Zoë: [STATE:logout] done for today");
    assert_eq!(
        parse_commit_subject(&subject).unwrap().name.as_deref(),
        Some("Zoë")
    );
}

#[test]
fn a_saved_vault_is_a_new_version_only_when_something_changed() {
    let mut docs = lyra();
    let v1 = files(&[("insights.md", "parsers are trees")]);
    run(
        &mut docs,
        &[
            ev(3, 2, saved("lyra-id", Author::Agent, v1.clone())),
            // The same vault again (a replay, or a capture with nothing new): nothing.
            ev(4, 3, saved("lyra-id", Author::Agent, v1.clone())),
        ],
    );
    assert_eq!(seat(&docs, 0).vault_version, 1);
    let mut v2 = v1.clone();
    v2.insert(
        "insights.md".into(),
        "parsers are trees\nand forests".into(),
    );
    v2.insert("../escape.md".into(), "never kept".into());
    run(&mut docs, &[ev(5, 4, saved("lyra-id", Author::Human, v2))]);
    let versions = knowledge_versions(&docs, "lyra-id");
    assert_eq!(versions.len(), 2);
    let last = knowledge_at(&docs, "lyra-id", 2).unwrap();
    assert_eq!(last.author, Author::Human);
    assert_eq!(last.author_name.as_deref(), Some("Marcus"));
    assert_eq!(last.changed, ["insights.md"]);
    assert!(
        !last.files.contains_key("../escape.md"),
        "limits hold in the store too"
    );
    assert_eq!(versions[0].files, v1, "the first version is kept as it was");
    // Nobody with that id: nothing.
    let before = docs.clone();
    run(
        &mut docs,
        &[ev(
            6,
            5,
            saved("nobody", Author::Agent, files(&[("a.md", "x")])),
        )],
    );
    assert_eq!(docs, before);
}

#[test]
fn a_retired_identity_keeps_its_vault_and_gets_new_versions_in_the_hall() {
    let mut docs = lyra();
    run(
        &mut docs,
        &[
            ev(
                3,
                2,
                saved("lyra-id", Author::Agent, files(&[("a.md", "1")])),
            ),
            ev(
                4,
                3,
                EventKind::AgentKilled {
                    seat: 0,
                    reason: None,
                },
            ),
            ev(
                5,
                4,
                saved("lyra-id", Author::Human, files(&[("a.md", "2")])),
            ),
        ],
    );
    let retired = super::super::docs::hall(&docs).next().unwrap();
    assert_eq!(retired.vault_version, 2);
    assert_eq!(
        knowledge_at(&docs, "lyra-id", 2).unwrap().files["a.md"],
        "2"
    );
}

#[test]
fn a_work_commit_is_kept_once_as_it_was_first_recorded() {
    let mut docs = lyra();
    let commit = |summary: &str| EventKind::WorkCommitted {
        seat: 0,
        identity_id: "lyra-id".into(),
        sha: "abc123".into(),
        state: Some("deep_work".into()),
        summary: summary.into(),
        files: vec!["_state.md".into()],
        by_agent: false,
    };
    run(
        &mut docs,
        &[ev(3, 2, commit("first")), ev(4, 3, commit("second"))],
    );
    let commits = commits_of(&docs, "lyra-id");
    assert_eq!(commits.len(), 1);
    assert_eq!(commits[0].summary, "first");
    assert!(commits_of(&docs, "someone-else").is_empty());
}

#[test]
fn a_waking_agent_is_given_its_vault() {
    let mut docs = lyra();
    run(
        &mut docs,
        &[ev(
            3,
            2,
            saved(
                "lyra-id",
                Author::Agent,
                files(&[("insights.md", "the harp has eleven strings")]),
            ),
        )],
    );
    let p = wake_payload(&docs, 0, &[]).unwrap();
    let prompt = wake_prompt(&p, "Marcus", "Julian");
    assert!(prompt.contains("<your-knowledge>"), "{prompt}");
    assert!(prompt.contains("## knowledge/insights.md\n\nthe harp has eleven strings"));
}
