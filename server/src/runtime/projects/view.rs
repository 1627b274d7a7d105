//! Each agent's branch of a project as git sees it now, the files two or more of them changed,
//! and one agent's diff a page at a time. Reads only: the server's own index of each worktree
//! is the one thing written.

use std::collections::BTreeMap;
use std::path::Path;

use app::contract::{BranchView, DiffView, FileExcerpt, Overlap, ProjectSummary, ProjectView};
use app::domain::docs::{ProjectDoc, WorktreeDoc};
use app::domain::projects;

use crate::fsafe::Found;
use crate::repo::bring_up::BringUp;
use crate::repo::diff::{self, Work, PAGE_FILES};
use crate::repo::git::Git;
use crate::repo::RepoError;

/// The largest file shown around a line.
const MAX_SHOWN: usize = 1024 * 1024;

use super::{shadow_of, ProjectError, Projects, GIT_LIMIT};

impl Projects {
    /// The file watcher's count of the changes it has seen in the worktrees (`None` without a
    /// watcher, or once it has failed): what tells a diff whether to list a worktree's files
    /// again. For tests and diagnostics.
    pub fn changes_seen(&self) -> Option<u64> {
        self.fresh.now()
    }

    /// Waits until the watcher has counted a change after `after`. For tests.
    pub async fn changes_seen_past(&self, after: u64) {
        self.fresh.moved_past(after).await
    }

    /// The project with every agent's branch and the files they overlap on.
    pub async fn view(&self, id: &str) -> Result<ProjectView, ProjectError> {
        let (project, trees) = self.of(id)?;
        let held = self.lock(id);
        let _held = held.lock().await;
        let mut branches = Vec::new();
        // Once for every worktree of the view.
        let listing = self.as_seen().await;
        for w in &trees {
            let (work, problem) = match self.work(&project, w, listing).await {
                Ok(work) => (work, None),
                Err(e) => (Work::default(), Some(e.to_string())),
            };
            let commits_ahead = work.commits.len();
            branches.push(BranchView {
                identity: w.identity_id.clone(),
                agent: w.agent.clone(),
                branch: w.branch.clone(),
                worktree: w.path.clone(),
                commits_ahead,
                changed_files: work.files.iter().map(|f| f.path.clone()).collect(),
                uncommitted: work.uncommitted(),
                review: w.review,
                problem,
            });
        }
        let overlaps = overlaps(&branches);
        Ok(ProjectView {
            project: ProjectSummary::of(&project, trees.len()),
            branches,
            overlaps,
        })
    }

    /// One agent's work against the base: page `page` of what its commits change, and its
    /// commits; beside them (on the first page), what its worktree has not committed, which no
    /// review takes in.
    pub async fn diff(&self, id: &str, agent: &str, page: usize) -> Result<DiffView, ProjectError> {
        let (project, trees) = self.of(id)?;
        let w = at_work(&trees, agent)?;
        let held = self.lock(id);
        let _held = held.lock().await;
        let listing = self.as_seen().await;
        let mut work = self.work(&project, w, listing).await?;
        let git = self.git_on(&project, w);
        let committed = diff::committed(&git, &work.merge_base, &work.head).await?;
        let pages = committed.len().div_ceil(PAGE_FILES).max(1);
        if page >= pages {
            return Err(ProjectError::Bad(format!(
                "page {page} is past the last page ({})",
                pages - 1
            )));
        }
        let total_files = committed.len();
        let mut files: Vec<_> = committed
            .into_iter()
            .skip(page * PAGE_FILES)
            .take(PAGE_FILES)
            .collect();
        diff::fill_hunks(&git, (&work.merge_base, Some(&work.head)), &mut files).await?;
        let total_uncommitted = work.loose.len();
        let mut uncommitted: Vec<_> = match page {
            0 => std::mem::take(&mut work.loose)
                .into_iter()
                .take(PAGE_FILES)
                .collect(),
            _ => Vec::new(),
        };
        diff::fill_hunks(&git, (&work.head, None), &mut uncommitted).await?;
        // Colours for what is shown, off the async runtime (a grammar is read once, then a
        // page's lines are parsed).
        let (files, uncommitted) = tokio::task::spawn_blocking(move || {
            crate::repo::highlight::paint(&mut files);
            crate::repo::highlight::paint(&mut uncommitted);
            (files, uncommitted)
        })
        .await
        .map_err(|e| ProjectError::Repo(crate::repo::RepoError::Io(e.to_string())))?;
        Ok(DiffView {
            agent: w.agent.clone(),
            branch: w.branch.clone(),
            base: project.base.clone(),
            head: work.head,
            merge_base: work.merge_base,
            commits: std::mem::take(&mut work.commits),
            files,
            uncommitted,
            total_uncommitted,
            total_files,
            page,
            pages,
        })
    }

    /// A file of the project around `line` (a finding's): in `agent`'s worktree as it is now,
    /// or at the base's head without an agent. Read as listed (never through a link), at most
    /// [`MAX_SHOWN`] bytes; a binary or larger file is named, not shown.
    pub async fn file(
        &self,
        id: &str,
        path: &str,
        agent: Option<&str>,
        line: Option<u32>,
    ) -> Result<FileExcerpt, ProjectError> {
        let (project, trees) = self.of(id)?;
        let rel = projects::file_in_project(path, None)
            .filter(|r| r.split('/').all(|part| part != ".git"))
            .ok_or_else(|| {
                ProjectError::Bad(format!("{path:?} is not a path of a file in the project"))
            })?;
        let (found, from, changed) = match agent {
            Some(agent) => {
                let w = at_work(&trees, agent)?;
                let found = crate::fsafe::read_in(Path::new(&w.path), Path::new(&rel), MAX_SHOWN)
                    .map_err(|e| ProjectError::Repo(RepoError::Io(e.to_string())))?;
                let changed = w.changed_files.contains(&rel);
                (found, format!("{}'s worktree", w.agent), changed)
            }
            None => (
                self.at_base(&project, &rel).await?,
                project.base.clone(),
                false,
            ),
        };
        let (lines, total, note) = match found {
            Found::Missing => {
                return Err(ProjectError::NoSuch(format!("{rel} is not in {from}")));
            }
            Found::Unfit(why) => (Vec::new(), 0, Some(why)),
            Found::Bytes(b) if b.iter().take(8000).any(|c| *c == 0) => {
                (Vec::new(), 0, Some("a binary file".to_string()))
            }
            Found::Bytes(b) => {
                let text = String::from_utf8_lossy(&b);
                let all: Vec<&str> = text.lines().collect();
                (
                    all.iter().map(|l| l.to_string()).collect(),
                    all.len() as u32,
                    None,
                )
            }
        };
        let at = line.unwrap_or(1).clamp(1, total.max(1));
        let first = at.saturating_sub(FileExcerpt::AROUND).max(1);
        let last = (at + FileExcerpt::AROUND).min(total);
        let lines = lines
            .into_iter()
            .skip(first as usize - 1)
            .take((last + 1).saturating_sub(first) as usize)
            .collect();
        Ok(FileExcerpt {
            path: rel,
            from,
            line,
            first,
            lines,
            total_lines: total,
            changed,
            note,
        })
    }

    /// A file at the base's head, as [`crate::fsafe::read_in`] finds one.
    async fn at_base(&self, project: &ProjectDoc, rel: &str) -> Result<Found, ProjectError> {
        let shadow = shadow_of(&self.ctx, &project.project_id, &project.path);
        shadow.ensure(&project.base)?;
        let git = self.git(project);
        let spec = format!("refs/heads/{}:{rel}", project.base);
        match git.text(&["cat-file", "-t", &spec]).await.as_deref() {
            Ok("blob") => {}
            Ok(kind) => {
                return Err(ProjectError::Bad(format!(
                    "{rel} is not a file of {} (a {kind})",
                    project.base
                )))
            }
            Err(_) => return Ok(Found::Missing),
        }
        let size = match git.text(&["cat-file", "-s", &spec]).await {
            Ok(size) => size.trim().parse::<usize>().unwrap_or(usize::MAX),
            Err(_) => return Ok(Found::Missing),
        };
        if size > MAX_SHOWN {
            return Ok(Found::Unfit(format!("{size} bytes: too large to show")));
        }
        Ok(Found::Bytes(git.run(&["cat-file", "blob", &spec]).await?))
    }

    /// The project and its worktrees.
    fn of(&self, id: &str) -> Result<(ProjectDoc, Vec<WorktreeDoc>), ProjectError> {
        self.ctx
            .store()
            .with_docs(|d| {
                let p = projects::project(d, id)?.clone();
                let trees = projects::worktrees_of_project(d, id)
                    .into_iter()
                    .cloned()
                    .collect();
                Some((p, trees))
            })
            .ok_or_else(|| ProjectError::NoSuch("no project has this id".into()))
    }

    pub(super) fn git(&self, project: &ProjectDoc) -> Git {
        let shadow = shadow_of(&self.ctx, &project.project_id, &project.path);
        Git::new(&shadow.dir, GIT_LIMIT)
    }

    /// git on the worktree, with the server's own index of it.
    pub(super) fn git_on(&self, project: &ProjectDoc, w: &WorktreeDoc) -> Git {
        let shadow = shadow_of(&self.ctx, &project.project_id, &project.path);
        self.git(project)
            .on(Path::new(&w.path), &shadow.index_for(&w.identity_id))
    }

    /// What the worktree holds against the base now, its files listed as `listing` says.
    pub(super) async fn work(
        &self,
        project: &ProjectDoc,
        w: &WorktreeDoc,
        listing: Listing,
    ) -> Result<Work, RepoError> {
        let shadow = shadow_of(&self.ctx, &project.project_id, &project.path);
        shadow.ensure(&project.base)?;
        if !Path::new(&w.path).join(".git").is_file() {
            return Err(RepoError::Refused(format!(
                "{}'s worktree is not there: it is made again from its branch when {} next wakes",
                w.agent, w.agent
            )));
        }
        let git = self.git_on(project, w);
        let key = (project.project_id.clone(), w.identity_id.clone());
        // A new index: the branch's tree, then the stat of every file that matches it (else
        // every later look would read every file).
        if !shadow.index_for(&w.identity_id).exists() {
            self.fresh.forget(&key);
            git.run(&["read-tree", &format!("refs/heads/{}", w.branch)])
                .await?;
            git.status(&["update-index", "-q", "--refresh"]).await?;
        }
        // Its files as they are now: those the watcher saw change since they were listed
        // (it has told of every change made before this look: `as_seen`).
        let (seen, count) = self.fresh.to_bring(&key, Path::new(&w.path));
        let how = match listing {
            Listing::AsSeen => seen,
            Listing::Every => BringUp::All,
        };
        let work = diff::work(&git, &project.base, &w.branch, &how).await;
        if work.is_ok() {
            self.fresh.brought_up(key, count);
        }
        work
    }
}

impl Projects {
    /// How a page's look lists the files: as the watcher saw them once it has told of every
    /// change made before now ([`super::index_fresh::Fresh::caught_up`]), else every folder.
    async fn as_seen(&self) -> Listing {
        match self.fresh.caught_up().await {
            true => Listing::AsSeen,
            false => Listing::Every,
        }
    }
}

/// How a look lists the worktree's files before it compares them with the base.
#[derive(Clone, Copy, Debug)]
pub(super) enum Listing {
    /// Only the paths the watcher saw change since the last look, or none
    /// ([`super::fresh`]): a page (a diff, the project's branches).
    AsSeen,
    /// Every folder: what the radar records, what a merge checks.
    Every,
}

/// The worktree of `agent` among `trees`, or why not.
fn at_work<'a>(trees: &'a [WorktreeDoc], agent: &str) -> Result<&'a WorktreeDoc, ProjectError> {
    trees
        .iter()
        .find(|w| w.identity_id == agent)
        .ok_or_else(|| ProjectError::NoSuch("this agent is not at work on this project".into()))
}

/// The files changed in two or more branches, each with the agents that changed it.
fn overlaps(branches: &[BranchView]) -> Vec<Overlap> {
    let mut by_file: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for b in branches {
        for f in &b.changed_files {
            by_file.entry(f).or_default().push(b.agent.clone());
        }
    }
    by_file
        .into_iter()
        .filter(|(_, a)| a.len() > 1)
        .map(|(file, agents)| Overlap {
            file: file.to_string(),
            agents,
        })
        .collect()
}
