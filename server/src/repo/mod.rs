//! The user's git repositories, as the server touches them: linked projects and the agents'
//! worktrees of them. Nothing here knows the store or the runtime; `runtime::projects` decides
//! and records, this does the git.
//!
//! - `git.rs`: git run through a project's shadow, hardened, with a time limit.
//! - `program.rs`: which `git` that is (its full path, on `PATH`'s absolute entries only).
//! - `shadow.rs`: the shadow git directory (the server's config, the user's objects and refs).
//! - `link.rs`: what a path is (a work tree inside `--allow-dir`, or why not).
//! - `worktree.rs`: an agent's worktree made, and made again when removed by hand.
//! - `diff.rs`: an agent's work against the base, paged.
//! - `bring_up.rs`: the server's index of a worktree brought up to its files (all, or the paths
//!   the watcher saw).
//! - `watch.rs`: which worktrees changed (`notify`, a slow poll), and a count of the changes.
//! - `merge.rs`: a branch into the base (fast-forward, merge commit, replay), the checkout after.
//! - `check.rs`: the project's check, run in a worktree with a time limit, its output kept.
//! - `carry.rs`: the agents' branches as a git bundle (export, `.soul`), and brought back.
//!
//! **Invariant:** no git process the server runs reads the repository's configuration, hooks
//! or attributes' drivers (an agent can write all of them); branch names are the server's
//! (`soulgrid/<inbox-slug>`); nothing in the user's repository changes but the branches and
//! worktrees the server makes (and the objects of branches carried in from another team),
//! until the human merges.

pub mod bring_up;
pub mod carry;
pub mod check;
pub mod diff;
pub mod git;
pub mod highlight;
pub mod link;
pub mod merge;
mod program;
pub mod shadow;
pub mod watch;
pub mod worktree;

#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// Bad input or a state that refuses the request: a sentence for the human.
    #[error("{0}")]
    Refused(String),
    #[error("git {what} failed: {stderr}")]
    Git { what: String, stderr: String },
    #[error("git {what} did not finish within {after:?} and was stopped")]
    Timeout {
        what: String,
        after: std::time::Duration,
    },
    #[error("git could not be run: {0}")]
    Spawn(std::io::Error),
    #[error("{0}")]
    Io(String),
}
