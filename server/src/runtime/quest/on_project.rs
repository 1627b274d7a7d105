//! A quest on a project: each agent of a stage reads the project in a worktree of its own (made
//! when its stage prompt is given; a running process is started again with it), and a
//! finding's file is a path of the project.

use app::domain::docs::{identity, Docs, QuestDoc};
use app::domain::events::EventKind;
use app::domain::projects::{self, file_in_project};
use app::domain::quest::quest;
use app::domain::Seat;

use crate::runtime::quest::Quests;

/// Where the agent in `seat` reads the quest's project: its name, the worktree, the branch.
pub(super) fn work_of<'a>(
    d: &'a Docs,
    q: &QuestDoc,
    seat: Seat,
) -> Option<(&'a str, &'a str, &'a str)> {
    let project = projects::project(d, q.project.as_deref()?)?;
    let who = identity(d, seat)?;
    let w = projects::worktree(d, &project.project_id, &who.stable_id())?;
    Some((project.name.as_str(), w.path.as_str(), w.branch.as_str()))
}

/// The file a finding names, as a path of the quest's project (or of its folder): relative, or
/// absolute inside the agent's worktree (or the folder). Refused, with why, when it leaves them.
pub(super) fn file_of_finding(
    d: &Docs,
    quest_id: &str,
    seat: Seat,
    raw: &str,
) -> Result<String, String> {
    let q = quest(d, quest_id).ok_or("the quest is gone")?;
    let root = match &q.project {
        Some(_) => work_of(d, q, seat).map(|(_, path, _)| path),
        None => q.folder.as_deref(),
    };
    file_in_project(raw, root).ok_or_else(|| {
        format!(
            "the file {raw:?} is not in the quest's {}: name it by its path in {}",
            if q.project.is_some() {
                "project"
            } else {
                "folder"
            },
            root.unwrap_or("the project")
        )
    })
}

/// The quest's project and the identity in `seat`, when it is not at work on it yet.
fn owed(d: &Docs, quest_id: &str, seat: Seat) -> Option<(String, String)> {
    let project = quest(d, quest_id)?.project.clone()?;
    // An external agent works where its program runs: no worktree here.
    let who = identity(d, seat).filter(|i| !i.external)?.stable_id();
    projects::worktree(d, &project, &who)
        .is_none()
        .then_some((project, who))
}

impl Quests {
    /// Whether the agent in `seat` is still to be put to work on the quest's project.
    pub(super) fn owes_work(&self, quest_id: &str, seat: Seat) -> bool {
        self.ctx
            .store()
            .with_docs(|d| owed(d, quest_id, seat).is_some())
    }

    /// Puts the agent in `seat` to work on the quest's project when it has no worktree there
    /// yet; a running process is stopped so that its next start has the worktree. A failure is
    /// said on the seat, and the agent goes on without the project.
    pub(super) async fn to_work_for(&self, quest_id: &str, seat: Seat) {
        let Some((project, who)) = self.ctx.store().with_docs(|d| owed(d, quest_id, seat)) else {
            return;
        };
        match self
            .projects
            .put_to_work(&project, &who, crate::runtime::projects::Start::Base)
            .await
        {
            Ok(_) if self.processes.running().contains(&seat) => {
                self.processes
                    .table()
                    .sleep(seat, "restarted with its worktree for the quest")
                    .await
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(seat, %project, error = %e, "a quest's agent could not be put to work");
                self.ctx
                    .record(vec![EventKind::RuntimeError {
                        seat: Some(seat),
                        message: format!("Could not be put to work on the quest's project: {e}"),
                    }])
                    .await;
            }
        }
    }
}
