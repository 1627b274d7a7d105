//! The texts of a quest: the brief the lead plans from, the prompt each stage's agents work
//! from, the findings the lead reviews between stages, and a stage's artifact. What the human
//! and the agents wrote is neutralised in them (quoting it acts on nothing).

use super::super::docs::{ArtifactDoc, FindingDoc, QuestDoc, StageDoc};
use super::super::provenance::neutralise;
use super::template::ProcessTemplate;

/// The first line of the lead's brief; the sim and the fake model know a brief by it.
pub const BRIEF: &str = "[QUEST BRIEF]";
/// The first line of a stage prompt.
pub const STAGE: &str = "[QUEST STAGE]";
/// The first line of what the lead is given when a stage ends.
pub const REVIEW: &str = "[QUEST REVIEW]";

/// Someone in the team, as the lead and the agents see the roster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub seat: u8,
    pub status: String,
}

fn roster_lines(team: &[Member]) -> String {
    team.iter()
        .map(|m| format!("- {} (seat {}, {})\n", m.name, m.seat + 1, m.status))
        .collect()
}

/// What the lead is given to plan a quest: the problem, the processes, the team (and the name
/// of the project it is on, if it is on one).
pub fn brief(
    q: &QuestDoc,
    templates: &[ProcessTemplate],
    team: &[Member],
    empty_seats: usize,
    project: Option<&str>,
) -> String {
    let mut s = format!(
        "{BRIEF} {}\nThe human submitted a problem for the team to work on as a quest:\n\n\
         <problem>\n{}\n</problem>\n\n",
        q.quest_id,
        neutralise(&q.problem)
    );
    if let Some(folder) = &q.folder {
        s += &format!("The agents may read the folder {folder}.\n\n");
    }
    if let Some(name) = project {
        s += &format!(
            "The quest is on the project {name}: each agent of a stage reads it in a git \
             worktree of its own (given when its stage starts).\n\n"
        );
    }
    s += "Choose one process:\n";
    for t in templates {
        s += &format!("\n## {} — {}\n", t.name, t.description);
        for (i, st) in t.stages.iter().enumerate() {
            let roles: Vec<&str> = st.roles.iter().map(|r| r.name.as_str()).collect();
            s += &format!(
                "{}. {}: {} (roles: {})\n",
                i + 1,
                st.name,
                st.goal,
                roles.join(", ")
            );
        }
    }
    s += &format!(
        "\nThe team:\n{}Empty seats: {empty_seats}.\n\n\
         Plan it with one line, alone, naming for each stage of the process the agents who \
         work in it (their roles follow the order of the template's roles; a name not in the \
         team is a newcomer summoned into an empty seat):\n\
         [ACTION] {{\"action\":\"quest_plan\",\"template\":\"<process>\",\"stages\":[{{\"agents\":[\"<name>\",\"<name>\"]}}]}}\n",
        roster_lines(team)
    );
    s
}

/// What an agent in a stage is given: the problem, the stage's goal and what it must produce,
/// its role, where it reads the project (`work`: its worktree and branch, when the quest is on
/// one), what earlier stages produced, and who else is in the stage.
pub fn stage_prompt(
    q: &QuestDoc,
    stage: &StageDoc,
    agent: &str,
    prior: &[&ArtifactDoc],
    work: Option<(&str, &str, &str)>,
) -> String {
    let total = q.stages.len();
    let mut s = format!(
        "{STAGE} {} {}\nYou are in stage {} of {total} of a quest ({}).\n\n<problem>\n{}\n</problem>\n\n\
         The stage: {} — {}\n",
        q.quest_id,
        stage.index + 1,
        stage.index + 1,
        q.template.as_deref().unwrap_or("a process"),
        neutralise(&q.problem),
        stage.name,
        stage.goal
    );
    if !stage.produce.is_empty() {
        s += &format!("It must produce: {}\n", stage.produce);
    }
    if let Some(me) = stage
        .agents
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(agent))
    {
        if let (Some(role), Some(persona)) = (&me.role, &me.persona) {
            s += &format!("\nYour role is {role}. {persona}\n");
        }
    }
    if let Some(folder) = &q.folder {
        s += &format!("\nYou may read the folder {folder}.\n");
    }
    if let Some((project, path, branch)) = work {
        s += &format!(
            "\nThe quest is on the project {project}: read it in your worktree {path} (branch \
             {branch}). A finding about code names its file (the path in your worktree) and \
             line: post_finding with `file` and `line`.\n"
        );
    }
    for a in prior {
        s += &format!(
            "\n<artifact name=\"{}\" title=\"{}\">\n{}\n</artifact>\n",
            a.name,
            super::super::wake::xml_escape(&a.title),
            neutralise(&a.text)
        );
    }
    let others: Vec<String> = stage
        .agents
        .iter()
        .filter(|a| !a.name.eq_ignore_ascii_case(agent))
        .map(|a| match &a.role {
            Some(r) => format!("{} ({r})", a.name),
            None => a.name.clone(),
        })
        .collect();
    s += &format!(
        "\nIn this stage with you: {}.\n\n\
         Post what you find, each on its own line, as\n\
         [ACTION] {{\"action\":\"finding\",\"title\":\"<short title>\",\"body\":\"<what and why>\",\"severity\":\"info|minor|major|critical\"}}\n\
         and when your part of the stage is done, a line\n\
         [ACTION] {{\"action\":\"stage_done\"}}\n",
        if others.is_empty() { "nobody else".to_string() } else { others.join(", ") }
    );
    s
}

/// A finding as a list item of Markdown.
fn finding_md(f: &FindingDoc) -> String {
    let severity = f
        .severity
        .map(|s| format!(" ({})", s.as_str()))
        .unwrap_or_default();
    let pinned = if f.pinned { " 📌" } else { "" };
    let mut s = format!(
        "### {}{severity}{pinned}\n*{}*\n\n{}\n",
        f.title, f.agent, f.body
    );
    for c in &f.comments {
        s += &format!("\n> The human: {}\n", c.text);
    }
    s
}

/// A stage's artifact: its goal and its findings (pinned first, struck ones left out).
pub fn stage_artifact(stage: &StageDoc, findings: &[&FindingDoc]) -> String {
    let mut kept: Vec<&&FindingDoc> = findings.iter().filter(|f| !f.struck).collect();
    kept.sort_by_key(|f| !f.pinned);
    let mut s = format!(
        "# Stage {}: {}\n\n**Goal:** {}\n\n",
        stage.index + 1,
        stage.name,
        stage.goal
    );
    if !stage.produce.is_empty() {
        s += &format!("**To produce:** {}\n\n", stage.produce);
    }
    if kept.is_empty() {
        s += "No findings.\n";
    }
    for f in kept {
        s += &finding_md(f);
        s += "\n";
    }
    s
}

/// What the lead is given when a stage ends: why, its findings with the human's pins, strikes
/// and comments, and what comes next in the plan.
pub fn review(q: &QuestDoc, stage: &StageDoc, findings: &[&FindingDoc]) -> String {
    let mut s = format!(
        "{REVIEW} {} {}\nStage {} of {} ({}) ended: {}.\n\nIts findings:\n",
        q.quest_id,
        stage.index + 1,
        stage.index + 1,
        q.stages.len(),
        stage.name,
        stage.end_reason.as_deref().unwrap_or("done")
    );
    let mut board = String::new();
    if findings.is_empty() {
        board += "(none)\n";
    }
    for f in findings {
        let marks = match (f.pinned, f.struck) {
            (true, _) => " [pinned by the human]",
            (_, true) => " [struck by the human]",
            _ => "",
        };
        board += &format!(
            "- {} — {}{marks}: {}\n",
            f.agent,
            f.title,
            f.body.replace('\n', " ")
        );
        for c in &f.comments {
            board += &format!("  - the human commented: {}\n", c.text.replace('\n', " "));
        }
    }
    s += &neutralise(&board);
    match q.stages.get(stage.index as usize + 1) {
        Some(next) => {
            let names: Vec<&str> = next.agents.iter().map(|a| a.name.as_str()).collect();
            s += &format!(
                "\nNext in the plan: stage {} ({}): {}, with {}.\n\
                 Move on with one line (summon: roles for newcomers; dismiss: names to put to sleep):\n\
                 [ACTION] {{\"action\":\"stage_next\",\"summon\":[],\"dismiss\":[]}}\n\
                 or end the quest with the report:\n",
                next.index + 1,
                next.name,
                next.goal,
                names.join(", ")
            );
        }
        None => s += "\nThat was the last stage. End the quest with the report:\n",
    }
    s += "[ACTION] {\"action\":\"report\",\"title\":\"<title>\",\"body\":\"<the report, in Markdown>\"}\n";
    s
}
