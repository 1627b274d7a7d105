//! An agent's worktree of a project: git's own layout for a linked worktree (its folder with a
//! `.git` file, and `{repo}/.git/worktrees/{name}/` with `HEAD`, `commondir`, `gitdir` and the
//! agent's index), written by the server, files checked out through the shadow. The agent's
//! git then works there as in any `git worktree add`; the user's `git worktree list` shows it.
//! A worktree removed or broken by hand is made again from its branch, keeping any file still
//! in its folder.

use std::path::{Path, PathBuf};

use crate::fsafe::{read_bounded, Found};

use super::git::Git;
use super::shadow::Shadow;
use super::RepoError;

/// Where one worktree is and what names it.
#[derive(Clone, Debug)]
pub struct Place {
    /// The worktree's folder.
    pub path: PathBuf,
    /// Its name under `{repo}/.git/worktrees/`.
    pub name: String,
    pub branch: String,
}

impl Place {
    pub fn new(path: &Path, identity: &str, project: &str, branch: &str) -> Self {
        let safe = |s: &str| -> String {
            s.chars()
                .map(
                    |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        true => c,
                        false => '_',
                    },
                )
                .collect()
        };
        Place {
            path: path.to_path_buf(),
            name: format!("soulgrid-{}-{}", safe(project), safe(identity)),
            branch: branch.to_string(),
        }
    }

    fn meta(&self, shadow: &Shadow) -> PathBuf {
        shadow.common.join("worktrees").join(&self.name)
    }

    fn dot_git(&self, shadow: &Shadow) -> String {
        format!("gitdir: {}\n", self.meta(shadow).display())
    }
}

/// Whether the branch exists in the repository.
pub async fn branch_exists(git: &Git, branch: &str) -> Result<bool, RepoError> {
    git.ok(&[
        "rev-parse",
        "--verify",
        "-q",
        &format!("refs/heads/{branch}^{{commit}}"),
    ])
    .await
}

/// Makes a new worktree on a new branch started at `from`, in a folder that is not there yet.
/// Undone (the branch removed) if any step fails.
pub async fn make(git: &Git, shadow: &Shadow, place: &Place, from: &str) -> Result<(), RepoError> {
    if std::fs::symlink_metadata(&place.path).is_ok() {
        return Err(RepoError::Refused(format!(
            "{} is there already: move it away first",
            place.path.display()
        )));
    }
    let r = format!("refs/heads/{}", place.branch);
    git.run(&["update-ref", &r, from, ""]).await?;
    let made = async {
        write_meta(shadow, place)?;
        checkout(git, shadow, place, from, true).await
    }
    .await;
    if made.is_err() {
        let _ = git.run(&["update-ref", "-d", &r, from]).await;
    }
    made
}

/// Refuses a path whose folders are not real folders (a link planted there would send the
/// server's writes elsewhere): each of `dirs`, if it exists.
fn real_folders(dirs: &[&Path]) -> Result<(), RepoError> {
    for d in dirs {
        match std::fs::symlink_metadata(d) {
            Ok(m) if !m.is_dir() => {
                return Err(RepoError::Refused(format!(
                    "{} is not a folder (a link?): refused",
                    d.display()
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Mends the worktree if it was removed or broken by hand: `Some(why)` when it was made again
/// (from its branch's head, or from `started_from` when the branch was deleted too).
pub async fn ensure(
    git: &Git,
    shadow: &Shadow,
    place: &Place,
    started_from: &str,
) -> Result<Option<(String, String)>, RepoError> {
    let folder = std::fs::symlink_metadata(&place.path);
    if folder.as_ref().is_ok_and(|m| !m.is_dir()) {
        return Err(RepoError::Refused(format!(
            "{} is not a folder any more; move it away and the worktree is made again",
            place.path.display()
        )));
    }
    let meta = place.meta(shadow);
    let linked = matches!(read_bounded(&place.path.join(".git"), 4096),
        Ok(Found::Bytes(b)) if b == place.dot_git(shadow).as_bytes());
    // Its HEAD may name another branch or a commit: the agent checked one out (a topic of its
    // own), which is its to do; only a HEAD that is missing or names nothing is broken.
    let head_ok = matches!(read_bounded(&meta.join("HEAD"), 4096),
        Ok(Found::Bytes(b)) if a_head(&String::from_utf8_lossy(&b)));
    let branch = branch_exists(git, &place.branch).await?;
    if folder.is_ok() && linked && head_ok && branch {
        return Ok(None);
    }
    let why = match (folder.is_ok(), branch) {
        (false, _) => "was removed",
        (true, false) => "had lost its branch",
        (true, true) => "had lost its link to the repository",
    };
    if !branch {
        git.run(&[
            "update-ref",
            &format!("refs/heads/{}", place.branch),
            started_from,
            "",
        ])
        .await?;
    }
    let head = git
        .text(&["rev-parse", &format!("refs/heads/{}", place.branch)])
        .await?;
    write_meta(shadow, place)?;
    // Files still in the folder are the agent's: they stay, as changes not committed yet.
    checkout(git, shadow, place, &head, folder.is_err()).await?;
    tracing::info!(worktree = %place.path.display(), why, "a worktree was made again");
    Ok(Some((head, why.to_string())))
}

/// Whether `text` is a HEAD git can read: a branch, or a commit's full id.
fn a_head(text: &str) -> bool {
    let text = text.trim_end_matches('\n');
    match text.strip_prefix("ref: refs/heads/") {
        Some(branch) => !branch.is_empty() && !branch.contains(['\n', '\0']),
        None => text.len() == 40 && text.bytes().all(|c| c.is_ascii_hexdigit()),
    }
}

/// git's layout for a linked worktree, written as `git worktree add` writes it.
fn write_meta(shadow: &Shadow, place: &Place) -> Result<(), RepoError> {
    let io = |e: std::io::Error| RepoError::Io(format!("{}: {e}", place.path.display()));
    let meta = place.meta(shadow);
    let parent = place.path.parent().unwrap_or(&place.path);
    let grand = parent.parent().unwrap_or(parent);
    let worktrees = shadow.common.join("worktrees");
    real_folders(&[
        &shadow.common,
        &worktrees,
        &meta,
        grand,
        parent,
        &place.path,
    ])?;
    std::fs::create_dir_all(&meta).map_err(io)?;
    std::fs::create_dir_all(&place.path).map_err(io)?;
    real_folders(&[&worktrees, &meta, parent, &place.path])?;
    // Each file replaced, never written through a link placed at its name.
    let file = |dir: &std::path::Path, name: &str, text: String| {
        crate::fsafe::replace(dir, std::ffi::OsStr::new(name), text.as_bytes(), 0o644)
    };
    file(&meta, "HEAD", format!("ref: refs/heads/{}\n", place.branch)).map_err(io)?;
    file(&meta, "commondir", "../..\n".into()).map_err(io)?;
    let gitdir = format!("{}\n", place.path.join(".git").display());
    file(&meta, "gitdir", gitdir).map_err(io)?;
    // The `.git` file is in the agent's folder.
    file(&place.path, ".git", place.dot_git(shadow)).map_err(io)
}

/// The agent's index read from `commit`, and with `files` the files written too.
async fn checkout(
    git: &Git,
    shadow: &Shadow,
    place: &Place,
    commit: &str,
    files: bool,
) -> Result<(), RepoError> {
    let on = git.on(&place.path, &place.meta(shadow).join("index"));
    match files {
        true => on.run(&["read-tree", "--reset", "-u", commit]).await?,
        false => on.run(&["read-tree", "--reset", commit]).await?,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_in(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args([
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@e",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    /// The agent's git writes in its worktree's folder under `.git/worktrees/`: a link it left
    /// at `HEAD` there is replaced when the worktree is mended, never written through.
    #[tokio::test]
    async fn a_link_planted_in_the_worktrees_git_folder_is_replaced_not_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git_in(&repo, &["init", "-q"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git_in(&repo, &["add", "a.txt"]);
        git_in(&repo, &["commit", "-q", "-m", "first"]);
        let shadow = Shadow::at(&tmp.path().join("shadow"), &repo.join(".git"));
        shadow.make("main", false).unwrap();
        let git = Git::new(&shadow.dir, std::time::Duration::from_secs(30));
        let place = Place::new(&tmp.path().join("wt"), "lyra", "p", "soulgrid/lyra");
        make(&git, &shadow, &place, "main").await.unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, "the user's file\n").unwrap();
        let head = place.meta(&shadow).join("HEAD");
        std::fs::remove_file(&head).unwrap();
        std::os::unix::fs::symlink(&victim, &head).unwrap();
        std::fs::remove_dir_all(&place.path).unwrap();
        let mended = ensure(&git, &shadow, &place, "main").await.unwrap();
        assert!(mended.is_some(), "made again");
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "the user's file\n"
        );
        assert!(std::fs::symlink_metadata(&head).unwrap().is_file());
    }
}
