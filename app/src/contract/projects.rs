//! Projects over HTTP: linking a repository, putting an agent to work on it, what each agent's
//! branch holds (commits, a paged diff against the base, what is not committed yet).

use serde::{Deserialize, Serialize};

use crate::domain::docs::{ProjectDoc, Review};
use crate::domain::Millis;

/// `POST /api/projects`: a local git repository to link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewProject {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The branch agents start from and merges go into (default: the one checked out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// A command run in a worktree before a merge (`cargo test`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

/// `POST /api/projects/{id}/agents`: puts an identity to work on the project.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentToWork {
    /// The identity's id.
    pub agent: String,
}

/// A project as listed: the document, and how many agents work on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    pub id: String,
    pub name: String,
    pub path: String,
    pub base: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    pub linked: bool,
    pub agents: usize,
}

impl ProjectSummary {
    pub fn of(p: &ProjectDoc, agents: usize) -> Self {
        ProjectSummary {
            id: p.project_id.clone(),
            name: p.name.clone(),
            path: p.path.clone(),
            base: p.base.clone(),
            check: p.check.clone(),
            linked: p.is_linked(),
            agents,
        }
    }
}

/// One agent's branch of a project, as git sees it now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchView {
    /// The identity's id.
    pub identity: String,
    pub agent: String,
    pub branch: String,
    pub worktree: String,
    /// Commits on the branch that the base does not have.
    pub commits_ahead: usize,
    /// Files that differ from the base, committed or not.
    pub changed_files: Vec<String>,
    /// Of those, the ones with changes not committed yet.
    pub uncommitted: Vec<String>,
    pub review: Review,
    /// Why git could not say (a worktree being made again, a broken branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Files changed in two or more agents' worktrees of one project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlap {
    pub file: String,
    /// The agents' names.
    pub agents: Vec<String>,
}

/// `GET /api/projects/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectView {
    #[serde(flatten)]
    pub project: ProjectSummary,
    pub branches: Vec<BranchView>,
    pub overlaps: Vec<Overlap>,
}

/// A commit on an agent's branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchCommit {
    pub sha: String,
    pub subject: String,
    pub author: String,
    pub at: Millis,
}

/// What a line of a hunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk, with its numbers in the old and the new file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    pub kind: LineKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<u32>,
    pub text: String,
    /// The text as HTML with its syntax's colours (`<span class="hl-…">`, escaped by the
    /// server), where the file's language is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// One hunk: its `@@` header and its lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    pub header: String,
    pub lines: Vec<DiffLine>,
}

/// One file of a diff. A binary file (or one too large to read into a diff) is named, not
/// shown: no counts, no hunks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffFile {
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub change: String,
    pub binary: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<u32>,
    /// It has changes not committed yet.
    pub uncommitted: bool,
    pub hunks: Vec<Hunk>,
    /// Its hunks were cut to the first lines (a very large change).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// `GET /api/projects/{id}/diff?agent=…&page=N`: an agent's work against the base: what its
/// commits change since its branch and the base met (what an approval names and a merge
/// brings), a page of files at a time; the commits, and apart from them what its worktree has
/// not committed yet (not reviewable until it is), on the first page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffView {
    pub agent: String,
    pub branch: String,
    pub base: String,
    /// The branch's head commit, and where it meets the base.
    pub head: String,
    pub merge_base: String,
    pub commits: Vec<BranchCommit>,
    pub files: Vec<DiffFile>,
    /// The worktree's changes not committed (against `head`), at most a page of them: no
    /// approval takes them in.
    #[serde(default)]
    pub uncommitted: Vec<DiffFile>,
    /// How many files the worktree has not committed (`uncommitted` holds the first page).
    #[serde(default)]
    pub total_uncommitted: usize,
    /// How many files the commits change (so a page can be chosen by file).
    pub total_files: usize,
    pub page: usize,
    pub pages: usize,
}

/// `?agent=…&page=N` of a diff.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffQuery {
    pub agent: String,
    #[serde(default)]
    pub page: Option<usize>,
}

/// `?path=…&agent=…&line=N` of a file of a project: the agent's worktree as it is now (the
/// base's head without `agent`), around `line`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileQuery {
    pub path: String,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
}

/// `GET /api/projects/{id}/file`: the lines of a file around one (at most
/// [`FileExcerpt::AROUND`] on each side), numbered from `first`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileExcerpt {
    pub path: String,
    /// Where it was read: `Lyra's worktree` or the base's name.
    pub from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub first: u32,
    pub lines: Vec<String>,
    pub total_lines: u32,
    /// Whether the agent's branch changes it (its diff shows how).
    pub changed: bool,
    /// Why no lines are shown (a binary or too large file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FileExcerpt {
    pub const AROUND: u32 = 12;
}

/// `POST /api/projects/{id}/branches/{identity}/comments`: the human's comment on a line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LineComment {
    pub file: String,
    pub line: u32,
    pub text: String,
}

/// `POST …/approve {"head"?}`: the head the human looked at (the diff's `head`); a branch
/// that has moved since is refused, not approved unseen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApproveRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
}

/// The answer to `…/approve`: the head approved, and the worktree's files not committed,
/// which it does not take in (the agent is asked to commit them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approved {
    pub head: String,
    #[serde(default)]
    pub uncommitted: Vec<String>,
}

/// `POST …/merge {"strategy"?}`: `ff`, `merge` (the default: a fast-forward when it can) or
/// `rebase`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MergeRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
}

/// A merge done: the base's new head, and the worktree's files not committed, which it did
/// not bring (exactly the approved commit was merged).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeDone {
    pub commit: String,
    #[serde(default)]
    pub uncommitted: Vec<String>,
}

/// A merge refused (`409`): why, the files that conflict (or are not committed), the check's
/// output and exit status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeRefusal {
    pub error: String,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
}
