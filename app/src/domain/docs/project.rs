//! The documents of the team's work on the user's code: a linked project (`project:{id}`: a
//! local git repository the server may use) and each identity's worktree of it
//! (`worktree:{project}:{identity}`: its own branch, kept under the data directory). A worktree
//! belongs to the identity, not the seat: it follows the agent through sleep, retirement and
//! recall.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::Millis;

pub const TYPE_PROJECT: &str = "project";
pub const TYPE_WORKTREE: &str = "worktree";

pub fn project_doc_id(project: &str) -> String {
    format!("{TYPE_PROJECT}:{project}")
}

pub fn worktree_doc_id(project: &str, identity: &str) -> String {
    format!("{TYPE_WORKTREE}:{project}:{identity}")
}

/// A linked git repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub project_id: String,
    /// Its name, unique among linked projects (the folder's name unless the human gave one).
    pub name: String,
    /// The repository's work tree, as a real path.
    pub path: String,
    /// The branch agents start from and merges go into.
    pub base: String,
    /// A command run in a worktree before a merge (`cargo test`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    pub linked_at: Millis,
    /// Unlinked: its branches and worktrees stay until the human removes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlinked_at: Option<Millis>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ProjectDoc {
    pub fn is_linked(&self) -> bool {
        self.unlinked_at.is_none()
    }
}

/// Where an agent's branch is in review.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Review {
    /// At work; nobody asked for a review.
    #[default]
    Working,
    /// The agent asked for a review (`request_review`).
    Requested,
    /// The human sent the open comments back.
    ChangesRequested,
    /// The human approved it: ready to merge.
    Approved,
    /// Merged into the base.
    Merged,
}

impl Review {
    pub fn as_str(self) -> &'static str {
        match self {
            Review::Working => "working",
            Review::Requested => "requested",
            Review::ChangesRequested => "changes_requested",
            Review::Approved => "approved",
            Review::Merged => "merged",
        }
    }
}

/// An identity's worktree of a project, on its own branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub project_id: String,
    /// The identity it belongs to (`AgentIdentity::identity_id`).
    pub identity_id: String,
    /// The agent's name when it was put to work (its branch is named from it).
    pub agent: String,
    /// `soulgrid/<inbox-slug>`, derived by the server.
    pub branch: String,
    /// `{data-dir}/worktrees/{identity}/{project}`.
    pub path: String,
    /// The commit its branch started from (the base's head, or a parent's branch head).
    pub started_from: String,
    /// A fork's: the branch it started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_branch: Option<String>,
    pub made_at: Millis,
    /// The last time it was made again from its branch (removed or broken by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remade_at: Option<Millis>,
    #[serde(default)]
    pub review: Review,
    /// What git saw last (`worktree_changed`): the branch's head, the files that differ from
    /// the base (committed or not, at most [`MAX_LISTED`]), those not committed yet, how many
    /// differ in all, the commits ahead of the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
    /// Files the base changed since the branch began that the branch changes too (at most
    /// [`MAX_LISTED`]): where its merge may conflict, whichever branch merged first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_overlaps: Vec<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub changed_count: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub commits_ahead: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_at: Option<Millis>,
    /// The human's comments on lines of its diff, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<ReviewComment>,
    /// The head the human approved (a merge takes exactly it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_head: Option<String>,
    /// The base's head when it was approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_base: Option<String>,
    /// The last merge asked for, where it is or how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeNote>,
    /// What the agent said it means to change (`claim_files`), while it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<Claim>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The most files a worktree document lists (the count says how many in all).
pub const MAX_LISTED: usize = 500;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A comment of the human on one line of an agent's diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewComment {
    pub id: String,
    pub file: String,
    pub line: u32,
    pub text: String,
    /// The code around the line when the comment was made.
    #[serde(default)]
    pub code: String,
    pub at: Millis,
    /// Sent to the agent with **Request changes**.
    #[serde(default)]
    pub sent: bool,
}

/// Where a merge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeState {
    Queued,
    Checking,
    Merging,
    Merged,
    Refused,
}

impl MergeState {
    pub fn is_over(self) -> bool {
        matches!(self, MergeState::Merged | MergeState::Refused)
    }
}

/// A merge of an agent's branch into the base.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeNote {
    pub state: MergeState,
    /// `ff`, `merge` or `rebase`, as the human chose.
    pub strategy: String,
    pub asked_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
    /// The base's new head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Why it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The files that conflicted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The check's output (its last part) and exit status.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
}

/// Files an agent said it means to change, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    pub paths: Vec<String>,
    pub why: String,
    pub at: Millis,
    pub until: Millis,
}
