//! A quest as the simulated team plays it (see `Sim::quest_reply`).

use serde_json::{json, Value};

use super::files::between;
use super::Sim;

impl Sim {
    /// A quest as the simulated team plays it (on a project, a finding names a file of it). The lead plans from the brief (the first
    /// process, two agents a stage from the roster; `SIM_NEWCOMER` in the problem adds a
    /// newcomer, Nova, to the last stage), moves on after each review (summoning a critic after
    /// the first with `SIM_REINFORCE`) and reports after the last. An agent given a stage posts
    /// one finding and says it is done (`SIM_SILENT` in the problem: it says nothing).
    #[expect(
        clippy::too_many_lines,
        reason = "longer than 80 lines: to be split (issue 54)"
    )]
    pub(crate) fn quest_reply(&mut self, input: &str) -> Option<String> {
        if self.lead && input.starts_with("[QUEST BRIEF]") {
            let problem = between(input, "<problem>\n", "\n</problem>")
                .unwrap_or("")
                .to_string();
            let stages = input
                .split("\n## ")
                .nth(1)
                .map_or(1, |t| {
                    t.lines()
                        .skip(1)
                        .take_while(|l| !l.starts_with("## "))
                        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
                        .count()
                })
                .max(1);
            let template = input
                .split("\n## ")
                .nth(1)
                .and_then(|t| t.split_whitespace().next())
                .unwrap_or("brainstorm")
                .to_string();
            let team: Vec<String> = input
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("- ")?
                        .split(" (seat ")
                        .next()
                        .map(str::to_owned)
                })
                .collect();
            let n = team.len().max(1);
            let mut plan: Vec<Vec<String>> = (0..stages)
                .map(|i| {
                    let mut agents = vec![team.get((2 * i) % n).cloned().unwrap_or_default()];
                    if team.len() > 1 {
                        agents.push(team[(2 * i + 1) % n].clone());
                    }
                    agents
                })
                .collect();
            if problem.contains("SIM_NEWCOMER") {
                if let Some(last) = plan.last_mut() {
                    last.push("Nova".into());
                }
            }
            self.quest = Some((problem, 0));
            let stages: Vec<Value> = plan.into_iter().map(|a| json!({"agents": a})).collect();
            return Some(format!(
                "I have read the problem; here is the plan.\n[ACTION] {}",
                json!({"action": "quest_plan", "template": template, "stages": stages})
            ));
        }
        if self.lead && input.starts_with("[QUEST REVIEW]") {
            let (problem, reviews) = self.quest.clone().unwrap_or_default();
            self.quest = Some((problem.clone(), reviews + 1));
            if input.contains("\nNext in the plan:") {
                let summon: Vec<&str> = match reviews == 0 && problem.contains("SIM_REINFORCE") {
                    true => vec!["critic"],
                    false => vec![],
                };
                return Some(format!(
                    "On to the next stage.\n[ACTION] {}",
                    json!({"action": "stage_next", "summon": summon, "dismiss": []})
                ));
            }
            let findings: Vec<&str> = input
                .lines()
                .skip_while(|l| !l.starts_with("Its findings:"))
                .skip(1)
                .take_while(|l| l.starts_with("- ") || l.starts_with("  "))
                .collect();
            let body = format!("# What the team found\n\n{}\n", findings.join("\n"));
            return Some(format!(
                "Here is the report.\n[ACTION] {}",
                json!({"action": "report", "title": "The team's answer", "body": body})
            ));
        }
        // A job on the board: it claims it and does it at once (a claim that lost is told so);
        // one that says SIM_DECLINE it leaves.
        if input.contains("A job is offered on the board") && input.contains("SIM_DECLINE") {
            return Some("Not for me.".into());
        }
        if input.contains("A job is offered on the board") {
            let id = between(input, "{\"action\":\"claim\",\"job\":\"", "\"")?.to_string();
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            if let Err(why) = self.use_tool("claim_job", "claim", json!({"job": id})) {
                return Some(format!("I could not take it: {why}"));
            }
            let result = super::voice::job_done(&name);
            let _ = self.use_tool("job_done", "job_done", json!({"job": id, "result": result}));
            return Some("I will take it.".into());
        }
        if input.starts_with("[QUEST STAGE]") {
            let name = self.name.clone().unwrap_or_else(|| "someone".into());
            if input.contains("SIM_SILENT") {
                return Some(format!("{name} is thinking, and says nothing yet."));
            }
            let stage = input.split_whitespace().nth(3).unwrap_or("1").to_string();
            let problem = between(input, "<problem>\n", "\n</problem>").unwrap_or("the problem");
            let (title, body) = super::voice::finding(&name, problem, &stage);
            let mut finding = json!({"title": title, "body": body, "severity": "minor"});
            // On a project: about its README, named by its path in the worktree
            // (`SIM_OUTSIDE`: a path that leaves the project, which is refused).
            if let Some(tree) = between(input, "read it in your worktree ", " (branch") {
                finding["file"] = match input.contains("SIM_OUTSIDE") {
                    true => json!("../../../etc/passwd"),
                    false => json!(format!("{tree}/README.md")),
                };
                finding["line"] = json!(1);
            }
            let _ = self.use_tool("post_finding", "finding", finding);
            let _ = self.use_tool("stage_done", "stage_done", json!({}));
            return Some(format!("Here is what I see: {title}."));
        }
        None
    }
}
