//! An agent's work as git tells it: the worktree as it is (committed or not) against where its
//! branch meets the base, a page of files at a time. The server keeps its own index of each
//! worktree (its stat cache, so only changed files are read again) and marks new files as
//! intended (`add -N`) when it brings that index up to the worktree ([`super::bring_up`]):
//! a diff writes no object into the user's repository but git's empty blob.
//! Files larger than `core.bigFileThreshold` are named as binary, never read into a diff.

use std::collections::BTreeSet;

use app::contract::{BranchCommit, DiffFile, DiffLine, Hunk, LineKind};

use super::bring_up::BringUp;
use super::git::Git;
use super::RepoError;

/// Files on one page of a diff.
pub const PAGE_FILES: usize = 50;
/// Lines of one file's hunks shown before they are cut.
const MAX_FILE_LINES: usize = 3000;
/// Commits listed.
const MAX_COMMITS: usize = 200;

/// What differs between the worktree and the base, by file (no hunks yet).
#[derive(Clone, Debug, Default)]
pub struct Work {
    pub head: String,
    pub merge_base: String,
    /// The base's head, as read with the branch's.
    pub base_head: String,
    pub files: Vec<DiffFile>,
    /// The commits on the branch the base does not have, newest first.
    pub commits: Vec<BranchCommit>,
    /// What the worktree has not committed: its files against the branch's head.
    pub loose: Vec<DiffFile>,
}

impl Work {
    pub fn uncommitted(&self) -> Vec<String> {
        self.loose.iter().map(|f| f.path.clone()).collect()
    }
}

/// The work in `git`'s worktree (with its server index) on `branch` against `base`. Six git
/// calls (five when nothing is to be brought up) in two rounds: both heads, where they meet and the index
/// brought up to the worktree (deleted files leave it, new ones enter as intended) at once (where they meet is read from
/// the refs beside the heads: a commit landing between the two gives the merge base of the
/// head just before, still an ancestor of the one listed); then the files against the
/// base beside the files against the branch's head and the branch's commits. Lines are counted a page at a time
/// ([`fill_hunks`]).
///
/// `bring_up` says how much of the worktree's list of files is taken in again (all of it, the
/// paths the file watcher saw change since, or none): the files are always compared with the
/// base as they are.
pub async fn work(
    git: &Git,
    base: &str,
    branch: &str,
    bring_up: &BringUp,
) -> Result<Work, RepoError> {
    let (branch_ref, base_ref) = (format!("refs/heads/{branch}"), format!("refs/heads/{base}"));
    let gone = || RepoError::Refused(format!("the branch {branch} or the base {base} is gone"));
    let (branch_commit, base_commit) = (
        format!("{branch_ref}^{{commit}}"),
        format!("{base_ref}^{{commit}}"),
    );
    let (rev_parse, merge_base) = (
        ["rev-parse", &branch_commit, &base_commit],
        ["merge-base", &base_ref, &branch_ref],
    );
    let (heads, met, indexed) = tokio::join!(
        git.text(&rev_parse),
        git.text(&merge_base),
        super::bring_up::bring_up(git, bring_up)
    );
    let heads = heads.map_err(|_| gone())?;
    let mut heads = heads.lines().map(str::to_string);
    let (Some(head), Some(base_head)) = (heads.next(), heads.next()) else {
        return Err(gone());
    };
    let listed = indexed?;
    tracing::trace!(?listed, "the worktree's files brought up");
    let merge_base = met.unwrap_or_else(|_| base_head.clone());
    let flags = ["--no-ext-diff", "--no-textconv", "--no-renames", "-z"];
    let against_base = [&["diff", "--raw"][..], &flags, &[&merge_base]].concat();
    let against_head = [&["diff", "--raw"][..], &flags, &[&head]].concat();
    let (listed, since_head, commits) = tokio::join!(
        git.run(&against_base),
        git.run(&against_head),
        commits(git, &merge_base, &head)
    );
    let mut loose = parse_raw(&since_head?, &BTreeSet::new());
    loose.iter_mut().for_each(|f| f.uncommitted = true);
    let uncommitted: BTreeSet<String> = loose.iter().map(|f| f.path.clone()).collect();
    let mut files = parse_raw(&listed?, &uncommitted);
    mark_big(git, &mut files);
    mark_big(git, &mut loose);
    Ok(Work {
        head,
        merge_base,
        base_head,
        files,
        loose,
        // The commits are shown beside the files: a log that fails lists none, said in the log.
        commits: commits.unwrap_or_else(|e| {
            tracing::warn!(error = %e, branch, "the branch's commits could not be listed");
            Vec::new()
        }),
    })
}

/// A file larger than this (in the worktree) is named as binary, never read to be counted.
const BIG_FILE: u64 = 1024 * 1024;

/// A file too large to read is named as binary, never read (git would read a 1 GB file whole
/// to count its lines: 9 s here). The others are counted a page at a time.
fn mark_big(git: &Git, files: &mut [DiffFile]) {
    if let Some(tree) = git.work_tree() {
        for f in files.iter_mut() {
            f.binary = std::fs::symlink_metadata(tree.join(&f.path))
                .is_ok_and(|m| m.is_file() && m.len() > BIG_FILE);
        }
    }
}

/// The files the base changed since it and the branch met (`merge_base` to `base_head`: two
/// trees compared); none when it has not moved.
pub async fn base_changed(
    git: &Git,
    merge_base: &str,
    base_head: &str,
) -> Result<BTreeSet<String>, RepoError> {
    if merge_base == base_head {
        return Ok(BTreeSet::new());
    }
    let args = [
        "diff",
        "--name-only",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "-z",
        merge_base,
        base_head,
    ];
    Ok(split_z(&git.run(&args).await?)
        .map(|p| p.into_owned())
        .collect())
}

/// What the branch's commits change (`merge_base` to `head`, the worktree aside): what a review
/// approves and a merge brings. No worktree is read: two trees compared.
pub async fn committed(
    git: &Git,
    merge_base: &str,
    head: &str,
) -> Result<Vec<DiffFile>, RepoError> {
    let args = [
        "diff",
        "--raw",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "-z",
        merge_base,
        head,
    ];
    let mut files = parse_raw(&git.run(&args).await?, &BTreeSet::new());
    mark_big(git, &mut files);
    Ok(files)
}

/// The counts of `diff --numstat -z` (`added\tremoved\tpath\0`; `-` for a binary file) put on
/// `files`.
fn count(files: &mut [DiffFile], out: &[u8]) {
    let at: std::collections::HashMap<String, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.clone(), i))
        .collect();
    for part in split_z(out) {
        let mut f = part.splitn(3, '\t');
        let (Some(a), Some(r), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if let Some(file) = at.get(path).and_then(|i| files.get_mut(*i)) {
            file.binary = a == "-";
            file.added = a.parse().ok();
            file.removed = r.parse().ok();
        }
    }
}

/// `diff --raw -z`: the raw entries (`:old new oldsha newsha X\0path\0`).
fn parse_raw(out: &[u8], uncommitted: &BTreeSet<String>) -> Vec<DiffFile> {
    let mut files: Vec<DiffFile> = Vec::new();
    let mut parts = split_z(out);
    while let Some(part) = parts.next() {
        if let Some(raw) = part.strip_prefix(':') {
            let Some(path) = parts.next() else { break };
            files.push(DiffFile {
                path: path.to_string(),
                change: match raw.split_whitespace().nth(4).and_then(|s| s.chars().next()) {
                    Some('A') => "added",
                    Some('D') => "deleted",
                    _ => "modified",
                }
                .into(),
                binary: false,
                added: None,
                removed: None,
                uncommitted: uncommitted.contains(&*path),
                hunks: Vec::new(),
                cut: false,
            });
        }
    }
    files
}

/// The NUL-separated parts of git's `-z` output (a path that is not UTF-8 read lossily, so the
/// parts stay in step).
fn split_z(bytes: &[u8]) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    bytes
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(String::from_utf8_lossy)
}

/// The counts and hunks of `files` (one page), filled in place: one git call (the patch), and
/// a second only for files whose hunks were cut (their counts from `--numstat`). From `from`
/// to `to` (a commit), or to the worktree.
pub async fn fill_hunks(
    git: &Git,
    (from, to): (&str, Option<&str>),
    files: &mut [DiffFile],
) -> Result<(), RepoError> {
    let ends: Vec<&str> = std::iter::once(from).chain(to).collect();
    let shown: Vec<String> = files
        .iter()
        .filter(|f| !f.binary)
        .map(|f| f.path.clone())
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let mut patch = [&DIFF_FLAGS[..], &["-U3"], &ends, &["--"]].concat();
    patch.extend(shown.iter().map(String::as_str));
    let out = git.run(&patch).await?;
    let text = String::from_utf8_lossy(&out);
    // git prints the files in the order it sorts paths, as the page lists them.
    // Each file's part found by the path in its header (a file may have none: changed back
    // meanwhile; or two: a file that became a link), never by its place in the patch.
    let mut parts: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for chunk in text
        .split("\ndiff --git ")
        .map(|c| c.trim_start_matches("diff --git "))
    {
        if let Some(path) = header_path(chunk.lines().next().unwrap_or("")) {
            parts.entry(path).or_default().push(chunk);
        }
    }
    // Files whose part was not found (a path git quotes, a file changed back meanwhile) are
    // counted by git, as those cut short are.
    let mut by_git: Vec<String> = Vec::new();
    for f in files.iter_mut().filter(|f| shown.contains(&f.path)) {
        if !parts.contains_key(f.path.as_str()) {
            by_git.push(f.path.clone());
            continue;
        }
        for chunk in parts.get(f.path.as_str()).into_iter().flatten() {
            let (hunks, cut) = hunks_of(chunk);
            f.hunks.extend(hunks);
            f.cut |= cut;
            if chunk.lines().any(|l| l.starts_with("Binary files ")) {
                f.binary = true;
            }
        }
        if !f.binary && !f.cut {
            let lines = f.hunks.iter().flat_map(|h| &h.lines);
            let (added, removed) = lines.fold((0, 0), |(a, r), l| match l.kind {
                LineKind::Added => (a + 1, r),
                LineKind::Removed => (a, r + 1),
                LineKind::Context => (a, r),
            });
            (f.added, f.removed) = (Some(added), Some(removed));
        }
    }
    // A file cut short is counted whole by git.
    by_git.extend(files.iter().filter(|f| f.cut).map(|f| f.path.clone()));
    if !by_git.is_empty() {
        let mut numstat = [&DIFF_FLAGS[..], &["--numstat", "-z"], &ends, &["--"]].concat();
        numstat.extend(by_git.iter().map(String::as_str));
        let counts = git.run(&numstat).await?;
        count(files, &counts);
    }
    Ok(())
}

/// How a page's patch is asked for: paths as given, no colour, no program of the repository's.
const DIFF_FLAGS: [&str; 6] = [
    "--literal-pathspecs",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
];

/// The path of a part's header `a/PATH b/PATH` (the same path twice: renames are off); `None`
/// for one git quoted (a path with a quote, a control character or a non-UTF-8 byte).
fn header_path(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("a/")?;
    let n = rest.len().checked_sub(3)? / 2;
    let (path, tail) = (rest.get(..n)?, rest.get(n..)?);
    (tail.strip_prefix(" b/")? == path).then_some(path)
}

/// The hunks of one file's part of a patch.
pub fn hunks_of(chunk: &str) -> (Vec<Hunk>, bool) {
    let mut hunks: Vec<Hunk> = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    let mut shown = 0;
    for line in chunk.lines() {
        if let Some(rest) = line.strip_prefix("@@ ") {
            let (o, n) = starts(rest);
            (old, new) = (o, n);
            hunks.push(Hunk {
                header: line.to_string(),
                lines: Vec::new(),
            });
            continue;
        }
        let Some(h) = hunks.last_mut() else { continue };
        if shown >= MAX_FILE_LINES {
            return (hunks, true);
        }
        let (kind, text) = match line.as_bytes().first() {
            Some(b'+') => (LineKind::Added, &line[1..]),
            Some(b'-') => (LineKind::Removed, &line[1..]),
            Some(b' ') => (LineKind::Context, &line[1..]),
            _ => continue, // "\ No newline at end of file"
        };
        let (o, n) = match kind {
            LineKind::Added => (None, Some(new)),
            LineKind::Removed => (Some(old), None),
            LineKind::Context => (Some(old), Some(new)),
        };
        if o.is_some() {
            old += 1;
        }
        if n.is_some() {
            new += 1;
        }
        h.lines.push(DiffLine {
            kind,
            old: o,
            new: n,
            text: text.to_string(),
            html: None,
        });
        shown += 1;
    }
    (hunks, false)
}

/// The old and new start lines of a hunk header (`-12,3 +14,5 @@`).
fn starts(rest: &str) -> (u32, u32) {
    let mut it = rest.split_whitespace();
    let num = |s: Option<&str>, sign: char| {
        s.and_then(|s| s.strip_prefix(sign))
            .and_then(|s| s.split(',').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    (num(it.next(), '-'), num(it.next(), '+'))
}

/// The commits on `head` that `merge_base` does not have, newest first.
pub async fn commits(
    git: &Git,
    merge_base: &str,
    head: &str,
) -> Result<Vec<BranchCommit>, RepoError> {
    let out = git
        .run(&[
            "log",
            "--no-show-signature",
            &format!("--max-count={MAX_COMMITS}"),
            "-z",
            "--format=%H%x1f%an%x1f%at%x1f%s",
            &format!("{merge_base}..{head}"),
        ])
        .await?;
    Ok(String::from_utf8_lossy(&out)
        .split('\0')
        .filter_map(|r| {
            let mut f = r.trim().splitn(4, '\x1f');
            Some(BranchCommit {
                sha: f.next()?.to_string(),
                author: f.next()?.to_string(),
                at: f.next()?.parse::<i64>().ok()? * 1000,
                subject: f.next()?.to_string(),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_carry_line_numbers() {
        let chunk = "a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -3,3 +3,4 @@ fn\n a\n-b\n+c\n+d\n e\n\\ No newline at end of file\n";
        let (h, cut) = hunks_of(chunk);
        assert!(!cut);
        let got: Vec<_> = h[0]
            .lines
            .iter()
            .map(|l| (l.kind, l.old, l.new, l.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (LineKind::Context, Some(3), Some(3), "a"),
                (LineKind::Removed, Some(4), None, "b"),
                (LineKind::Added, None, Some(4), "c"),
                (LineKind::Added, None, Some(5), "d"),
                (LineKind::Context, Some(5), Some(6), "e"),
            ]
        );
    }

    #[test]
    fn a_parts_path_is_read_from_its_header() {
        for (line, want) in [
            ("a/src/lib.rs b/src/lib.rs", Some("src/lib.rs")),
            ("a/a b/c.txt b/a b/c.txt", Some("a b/c.txt")),
            ("a/été.md b/été.md", Some("été.md")),
            ("\"a/q\\\"x\" \"b/q\\\"x\"", None),
            ("a/x b/y", None),
            ("", None),
        ] {
            assert_eq!(header_path(line), want, "{line:?}");
        }
    }
}
