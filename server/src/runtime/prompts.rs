//! The texts agents are given: the summon, fork and distil letters, the lead's and the agents'
//! system prompts.
//! The templates live in `prompts/` of the repository and are compiled in; a file of the same
//! name in `{data_dir}/prompts/` replaces one, so a user can edit them without rebuilding.

use std::path::Path;

use app::domain::palette::seat_style;
use app::domain::Seat;

const SUMMON: &str = include_str!("../../../prompts/summon.md");
const FORK: &str = include_str!("../../../prompts/fork.md");
const LEAD: &str = include_str!("../../../prompts/lead.md");
const AGENT: &str = include_str!("../../../prompts/agent.md");
const DISTILL: &str = include_str!("../../../prompts/distill.md");
/// The built-in process templates, by file name.
const PROCESSES: [(&str, &str); 2] = [
    (
        "brainstorm.md",
        include_str!("../../../prompts/processes/brainstorm.md"),
    ),
    (
        "code_review.md",
        include_str!("../../../prompts/processes/code_review.md"),
    ),
];

pub use crate::runtime::config::Names;

fn template(data_dir: &Path, file: &str, builtin: &'static str) -> String {
    let path = data_dir.join("prompts").join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => builtin.to_string(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read a prompt override; using the built-in one");
            builtin.to_string()
        }
    }
}

/// Replaces every `{{key}}` with its value.
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("{{{{{k}}}}}"), v);
    }
    out
}

pub fn summon_letter(data_dir: &Path, seat: Seat, names: &Names) -> String {
    let style = seat_style(seat);
    // `seat` as the console and the tools number seats (1-9); `position` (0-8) for templates
    // of a data directory written before.
    let (number, position) = ((seat + 1).to_string(), seat.to_string());
    fill(
        &template(data_dir, "summon.md", SUMMON),
        &[
            ("seat", &number),
            ("position", &position),
            ("lead_name", &names.lead),
            ("human_name", &names.human),
            ("color_name", style.map_or("", |s| s.color_name)),
            ("color", style.map_or("", |s| s.color)),
            ("gender", style.map_or("one", |s| s.gender)),
        ],
    )
}

/// The letter a forked child is given first, after the parent's conversation it carries.
pub fn fork_letter(data_dir: &Path, seat: Seat, parent_name: &str, names: &Names) -> String {
    let (number, position) = ((seat + 1).to_string(), seat.to_string());
    fill(
        &template(data_dir, "fork.md", FORK),
        &[
            ("seat", &number),
            ("position", &position),
            ("parent_name", parent_name),
            ("lead_name", &names.lead),
            ("human_name", &names.human),
        ],
    )
}

/// The message an agent is given before it is put to sleep, for `reason` ("dismissed"…).
pub fn distill_letter(data_dir: &Path, names: &Names, reason: &str) -> String {
    fill(
        &template(data_dir, "distill.md", DISTILL),
        &[
            ("lead_name", &names.lead),
            ("human_name", &names.human),
            ("reason", reason),
        ],
    )
}

pub fn lead_prompt(data_dir: &Path, names: &Names) -> String {
    fill(
        &template(data_dir, "lead.md", LEAD),
        &[("lead_name", &names.lead), ("human_name", &names.human)],
    )
}

pub fn agent_prompt(data_dir: &Path, names: &Names) -> String {
    fill(
        &template(data_dir, "agent.md", AGENT),
        &[("lead_name", &names.lead), ("human_name", &names.human)],
    )
}

/// The process templates quests are planned from: the built-in ones (each replaced by a file of
/// the same name in `{data_dir}/prompts/processes/`), then any other `.md` file there. A
/// template that cannot be read is an error naming its file and line.
pub fn process_templates(
    data_dir: &Path,
) -> Result<Vec<app::domain::quest::template::ProcessTemplate>, String> {
    use app::domain::quest::template::parse;
    let dir = data_dir.join("prompts").join("processes");
    let mut files: Vec<(String, String)> = PROCESSES
        .iter()
        .map(|(name, text)| (format!("prompts/processes/{name}"), text.to_string()))
        .collect();
    let mut extra: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    extra.sort();
    for path in extra {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let builtin = PROCESSES
            .iter()
            .position(|(b, _)| Some(*b) == name.as_deref());
        let shown = path.display().to_string();
        match builtin {
            Some(i) => files[i] = (shown, text),
            None => files.push((shown, text)),
        }
    }
    let mut templates: Vec<app::domain::quest::template::ProcessTemplate> = Vec::new();
    for (file, text) in files {
        let t = parse(&text).map_err(|e| format!("process template {file}: {e}"))?;
        if templates.iter().any(|o| o.name == t.name) {
            return Err(format!(
                "process template {file}: a second template named {:?}",
                t.name
            ));
        }
        templates.push(t);
    }
    Ok(templates)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names {
            human: "Marcus".into(),
            lead: "Julian".into(),
        }
    }

    #[test]
    fn the_summon_letter_names_the_seat_and_the_register_line() {
        let dir = tempfile::tempdir().unwrap();
        let letter = summon_letter(dir.path(), 7, &names());
        // Seats counted as the console and the tools count them.
        assert!(letter.contains("seat 8 of a 3×3 grid"), "{letter}");
        assert!(letter.contains("Julian") && letter.contains("Marcus"));
        assert!(letter.contains("Rose Flame (#FF6B6B)"));
        assert!(letter.contains("[ACTION] {\"action\":\"register\",\"name\":\"<chosen name>\"}"));
        assert!(!letter.contains("{{"), "every placeholder is filled");
    }

    #[test]
    fn the_lead_prompt_makes_the_sim_a_lead_and_teaches_markers() {
        let p = lead_prompt(tempfile::tempdir().unwrap().path(), &names());
        assert!(p.starts_with("You are the lead"));
        for action in ["status", "summon", "dismiss", "route"] {
            assert!(p.contains(&format!("\"action\":\"{action}\"")), "{action}");
        }
        assert!(!agent_prompt(tempfile::tempdir().unwrap().path(), &names())
            .contains("You are the lead"));
    }

    #[test]
    fn a_template_in_the_data_dir_replaces_the_builtin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("prompts")).unwrap();
        std::fs::write(
            dir.path().join("prompts/summon.md"),
            "Seat {{position}} for {{human_name}}",
        )
        .unwrap();
        assert_eq!(summon_letter(dir.path(), 2, &names()), "Seat 2 for Marcus");
    }

    #[test]
    fn the_built_in_process_templates_are_read_and_a_bad_override_names_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let names: Vec<String> = super::process_templates(dir.path())
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["brainstorm", "code_review"]);
        let processes = dir.path().join("prompts/processes");
        std::fs::create_dir_all(&processes).unwrap();
        std::fs::write(
            processes.join("retro.md"),
            "# retro\nLook back.\n\n## stage: look\ngoal: What happened?\nrole: scribe | You write it down.\n",
        )
        .unwrap();
        assert_eq!(super::process_templates(dir.path()).unwrap().len(), 3);
        std::fs::write(
            processes.join("brainstorm.md"),
            "# brainstorm\n\n## stage: diverge\ngoal: Ideas.\nrole dreamer\n",
        )
        .unwrap();
        let e = super::process_templates(dir.path()).unwrap_err();
        assert!(
            e.contains("prompts/processes/brainstorm.md: line 5:"),
            "{e}"
        );
    }
}
