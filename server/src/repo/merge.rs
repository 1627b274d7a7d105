//! A branch brought into the base, in git's object database first and in the user's checkout
//! last: a fast-forward when the base has not moved on, else a merge commit (`merge-tree
//! --write-tree`, nothing checked out) or each approved commit picked onto the base in turn (no
//! `git replay`: its behaviour changes across git versions, and it follows a ref). The
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
        Strategy::Merge => match merge_trees(git, None, base_head, head).await? {
            Err(refusal) => Ok(Err(refusal)),
            Ok(tree) => Ok(Ok(git
                .text(&["commit-tree", &tree, "-p", base_head, "-p", head, "-m", title])
                .await?)),
        },
        // Each commit of the branch picked onto the base in turn, in git's object database
        // (`merge-tree` with the commit's parent as the base of the merge), keeping its author
        // and message. Exactly the approved commits: the range ends at `head`, not at the
        // branch, which may have moved on.
        Strategy::Rebase => {
            let list = git
                .text(&["rev-list", "--reverse", "--parents", &format!("{merge_base}..{head}")])
                .await?;
            let mut onto = base_head.to_string();
            for line in list.lines() {
                let mut ids = line.split_whitespace();
                let Some(commit) = ids.next() else { continue };
                let parents: Vec<&str> = ids.collect();
                let [parent] = parents[..] else {
                    return Ok(Err(Refusal::Why(format!(
                        "{branch} has merge commits: merge it instead of rebasing"
                    ))));
                };
                let tree = match merge_trees(git, Some(parent), &onto, commit).await? {
                    Ok(tree) => tree,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                let info = git
                    .run(&["log", "-1", "--no-show-signature", "--date=raw", "--format=%an%x00%ae%x00%ad%x00%B", commit])
                    .await?;
                let info = String::from_utf8_lossy(&info).into_owned();
                let mut f = info.splitn(4, '\0');
                let (name, email, date, message) = (
                    f.next().unwrap_or_default(),
                    f.next().unwrap_or_default(),
                    f.next().unwrap_or_default(),
                    f.next().unwrap_or_default().trim_end(),
                );
                onto = git
                    .authored(name, email, date)
                    .text(&["commit-tree", &tree, "-p", &onto, "-m", message])
                    .await?;
            }
            Ok(Ok(onto))
        }
    }
}

/// The tree of `theirs` merged into `ours` (with `base` as their common ancestor, else git's
/// own), or the files that conflict.
async fn merge_trees(
    git: &Git,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<Result<String, Refusal>, RepoError> {
    let mut args = vec![
        "merge-tree",
        "--write-tree",
        "--name-only",
        "--no-messages",
        "-z",
    ];
    if let Some(base) = base {
        args.extend(["--merge-base", base]);
    }
    args.extend([ours, theirs]);
    let (ok, out, err) = git.status(&args).await?;
    // `TREE\0` then each conflicted file `NAME\0`, then an empty one.
    let mut parts = out
        .split(|b| *b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned());
    let tree = parts.next().unwrap_or_default().trim().to_string();
    if ok {
        return Ok(Ok(tree));
    }
    let mut files: Vec<String> = parts.take_while(|p| !p.is_empty()).collect();
    files.dedup();
    Ok(Err(match files.is_empty() {
        true => Refusal::Why(format!("git could not merge it: {err}")),
        false => Refusal::Conflicts(files),
    }))
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
