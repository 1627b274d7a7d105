//! Process templates (`prompts/processes/*.md`): a process is a list of stages, each with a
//! goal, what it must produce, and the roles it wants (each with a persona addendum).
//!
//! ```text
//! # brainstorm
//! Diverge, critique, converge.
//!
//! ## stage: diverge
//! goal: Come up with as many different ideas as you can.
//! produce: A list of ideas, one finding each.
//! role: dreamer | You think wide; no idea is too strange to say.
//! role: pragmatist | You think of what could be built next week.
//! ```
//!
//! Every line is one of those; a bad one is an error naming its line.

use serde::{Deserialize, Serialize};

/// One role a stage wants, and what is added to the persona of the agent that takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub name: String,
    pub persona: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateStage {
    pub name: String,
    pub goal: String,
    pub produce: String,
    pub roles: Vec<Role>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessTemplate {
    pub name: String,
    pub description: String,
    pub stages: Vec<TemplateStage>,
}

/// A template that cannot be read: where, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct TemplateError {
    pub line: usize,
    pub error: String,
}

/// Reads a template.
pub fn parse(text: &str) -> Result<ProcessTemplate, TemplateError> {
    let mut name: Option<String> = None;
    let mut description = Vec::new();
    let mut stages: Vec<(usize, TemplateStage)> = Vec::new();
    let err = |line: usize, error: &str| TemplateError {
        line,
        error: error.to_string(),
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("## stage:") {
            let stage = rest.trim();
            if stage.is_empty() {
                return Err(err(n, "a stage needs a name: `## stage: <name>`"));
            }
            if name.is_none() {
                return Err(err(n, "the template starts with `# <name>`"));
            }
            stages.push((
                n,
                TemplateStage {
                    name: stage.to_string(),
                    goal: String::new(),
                    produce: String::new(),
                    roles: Vec::new(),
                },
            ));
            continue;
        }
        if line.starts_with("##") {
            return Err(err(n, "a section is `## stage: <name>`"));
        }
        if let Some(rest) = line.strip_prefix('#') {
            if name.is_some() {
                return Err(err(n, "a template has one `# <name>` line"));
            }
            let rest = rest.trim();
            let valid = !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !valid {
                return Err(err(n, "a template's name is a-z, 0-9 and _"));
            }
            name = Some(rest.to_string());
            continue;
        }
        let Some((_, stage)) = stages.last_mut() else {
            if name.is_none() {
                return Err(err(n, "the template starts with `# <name>`"));
            }
            description.push(line.to_string());
            continue;
        };
        stage_line(stage, line).map_err(|e| err(n, &e))?;
    }
    let name = name.ok_or_else(|| err(1, "the template starts with `# <name>`"))?;
    if stages.is_empty() {
        return Err(err(
            text.lines().count().max(1),
            "a template has at least one `## stage:`",
        ));
    }
    for (line, s) in &stages {
        complete(s).map_err(|e| err(*line, &e))?;
    }
    Ok(ProcessTemplate {
        name,
        description: description.join(" "),
        stages: stages.into_iter().map(|(_, s)| s).collect(),
    })
}

/// One line of a stage: `goal:`, `produce:` or `role: <name> | <persona>`.
fn stage_line(stage: &mut TemplateStage, line: &str) -> Result<(), String> {
    let (key, value) = line
        .split_once(':')
        .map(|(k, v)| (k.trim(), v.trim()))
        .ok_or("expected `goal:`, `produce:` or `role: <name> | <persona>`")?;
    match key {
        "goal" if !value.is_empty() => stage.goal = value.to_string(),
        "produce" if !value.is_empty() => stage.produce = value.to_string(),
        "role" => {
            let (role, persona) = value
                .split_once('|')
                .map(|(r, p)| (r.trim(), p.trim()))
                .filter(|(r, p)| !r.is_empty() && !p.is_empty())
                .ok_or("a role is `role: <name> | <persona>`")?;
            stage.roles.push(Role {
                name: role.to_string(),
                persona: persona.to_string(),
            });
        }
        "goal" | "produce" => return Err(format!("`{key}:` needs a text")),
        other => return Err(format!("unknown key `{other}:` (goal, produce or role)")),
    }
    Ok(())
}

/// A stage has a goal and at least one role.
fn complete(s: &TemplateStage) -> Result<(), String> {
    if s.goal.is_empty() {
        return Err(format!("stage {:?} has no `goal:`", s.name));
    }
    if s.roles.is_empty() {
        return Err(format!("stage {:?} wants no `role:`", s.name));
    }
    Ok(())
}
