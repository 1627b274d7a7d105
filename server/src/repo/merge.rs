//! A branch brought into the base, in git's object database first and in the user's checkout
//! last: a fast-forward when the base has not moved on, else a merge commit (`merge-tree
//! --write-tree`, nothing checked out) or the branch replayed onto the base (`git replay`). The
//! base moves by compare-and-swap (a base moved meanwhile is refused); a checked-out base's
//! files follow with a two-tree `read-tree -m -u`, undone if that fails. A conflict changes
//! nothing.

use std::path::Path;

use super::git::Git;
use super::RepoError;

/// How the branch comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Only a fast-forward.
    FastForward,
    /// A fast-forward when it can, else a merge commit.
    Merge,
    /// A fast-forward when it can, else the branch's commits replayed onto the base.
    Rebase,
}

impl Strategy {
    pub fn parse(s: Option<&str>) -> Result<Self, String> {
        match s.map(str::trim) {
            None | Some("") | Some("merge") => Ok(Strategy::Merge),
            Some("ff") | Some("fast-forward") => Ok(Strategy::FastForward),
            Some("rebase") => Ok(Strategy::Rebase),
            Some(other) => Err(format!(
                "{other} is not a merge strategy: ff, merge or rebase"
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::FastForward => "ff",
            Strategy::Merge => "merge",
            Strategy::Rebase => "rebase",
        }
    }
}

/// Why a merge did not happen.
#[derive(Debug)]
pub enum Refusal {
    /// The files that conflict.
    Conflicts(Vec<String>),
    /// A sentence.
    Why(String),
}

/// The new commit of the base (`Ok`), or why nothing changed.
pub async fn merge(
    git: &Git,
    base: &str,
    base_head: &str,
    (branch, head): (&str, &str),
    title: &str,
    strategy: Strategy,
) -> Result<Result<String, Refusal>, RepoError> {
    let merge_base = git.text(&["merge-base", base_head, head]).await?;
    if merge_base == head {
        return Ok(Err(Refusal::Why(format!(
            "{base} already has every commit of it"
        ))));
    }
    if merge_base == base_head {
        return Ok(Ok(head.to_string()));
    }
    match strategy {
        Strategy::FastForward => Ok(Err(Refusal::Why(format!(
            "{base} has moved on since the branch started: it cannot be fast-forwarded; merge or rebase it"
        )))),
        Strategy::Merge => {
            let (ok, out, err) = git
                .status(&["merge-tree", "--write-tree", "--name-only", "--no-messages", base_head, head])
                .await?;
            let text = String::from_utf8_lossy(&out);
            let mut lines = text.lines();
            let tree = lines.next().unwrap_or_default().trim().to_string();
            if !ok {
                let files: Vec<String> = lines.take_while(|l| !l.is_empty()).map(str::to_string).collect();
                return Ok(Err(match files.is_empty() {
                    true => Refusal::Why(format!("git could not merge it: {err}")),
                    false => Refusal::Conflicts(files),
                }));
            }
            let commit = git
                .text(&["commit-tree", &tree, "-p", base_head, "-p", head, "-m", title])
                .await?;
            Ok(Ok(commit))
        }
        Strategy::Rebase => {
            let (ok, out, err) = git
                .status(&["replay", "--onto", base_head, &format!("{merge_base}..refs/heads/{branch}")])
                .await?;
            let text = String::from_utf8_lossy(&out);
            // `update refs/heads/…  NEW OLD`
            let new = text
                .lines()
                .find_map(|l| l.strip_prefix("update ")?.split_whitespace().nth(1).map(str::to_string));
            match (ok, new) {
                (true, Some(new)) => Ok(Ok(new)),
                _ => Ok(Err(Refusal::Why(format!(
                    "its commits do not replay onto {base} without conflicts{}",
                    if err.is_empty() { String::new() } else { format!(": {err}") }
                )))),
            }
        }
    }
}

/// Moves `base` from `old` to `new`, and the user's checkout with it when `checkout` (its work
/// tree) has the base checked out. `Err` when the base moved meanwhile or the files could not
/// follow (then the base is put back).
pub async fn advance(
    git: &Git,
    base: &str,
    old: &str,
    new: &str,
    checkout: Option<(&Path, &Path)>,
) -> Result<Result<(), String>, RepoError> {
    let r = format!("refs/heads/{base}");
    if !git.ok(&["update-ref", &r, new, old]).await? {
        return Ok(Err(format!(
            "{base} moved while the merge was made: look again"
        )));
    }
    if let Some((tree, index)) = checkout {
        let (ok, _, err) = git
            .on(tree, index)
            .status(&["read-tree", "-m", "-u", old, new])
            .await?;
        if !ok {
            let _ = git.ok(&["update-ref", &r, old, new]).await;
            return Ok(Err(format!(
                "your checkout of {base} could not take the merge, so nothing changed: {err}"
            )));
        }
    }
    Ok(Ok(()))
}

/// Whether the checkout at `tree` (with its index) has changes not committed: the first few.
pub async fn dirty(git: &Git, tree: &Path, index: &Path) -> Result<Vec<String>, RepoError> {
    let on = git.on(tree, index);
    on.status(&["update-index", "-q", "--refresh"]).await?;
    let staged = on
        .run(&["diff-index", "--cached", "--name-only", "HEAD", "--"])
        .await?;
    let unstaged = on.run(&["diff-files", "--name-only", "--"]).await?;
    let mut files: Vec<String> = String::from_utf8_lossy(&staged)
        .lines()
        .chain(String::from_utf8_lossy(&unstaged).lines())
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}
