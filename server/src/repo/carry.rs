//! The agents' branches carried in a file: a git bundle of the commits that are not on the
//! base (never the user's repository), written for the team export and a `.soul` bundle, and
//! brought into a project's repository again (its objects first, then each branch, made only
//! where none of that name is).

use std::path::Path;

use super::git::Git;
use super::RepoError;

/// One branch head a bundle holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    pub branch: String,
    pub sha: String,
}

/// The branches among `branches` with commits the base has not.
fn ahead_blocking(git: &Git, branches: &[String], base: &str) -> Vec<String> {
    branches
        .iter()
        .filter(|b| {
            git.run_blocking(&[
                "rev-list",
                "--count",
                &format!("refs/heads/{base}..refs/heads/{b}"),
            ])
            .is_ok_and(|n| String::from_utf8_lossy(&n).trim() != "0")
        })
        .cloned()
        .collect()
}

/// Writes to `out` a bundle of `branches` without what the base has; `false` (nothing
/// written) when none has a commit of its own. On this thread (the export's).
pub fn bundle_blocking(
    git: &Git,
    branches: &[String],
    base: &str,
    out: &Path,
) -> Result<bool, RepoError> {
    let ahead = ahead_blocking(git, branches, base);
    if ahead.is_empty() {
        return Ok(false);
    }
    let out = out.display().to_string();
    let refs: Vec<String> = ahead.iter().map(|b| format!("refs/heads/{b}")).collect();
    let not = format!("refs/heads/{base}");
    let mut args = vec!["bundle", "create", "-q", out.as_str()];
    args.extend(refs.iter().map(String::as_str));
    args.extend(["--not", not.as_str()]);
    git.run_blocking(&args)?;
    Ok(true)
}

/// The Soulgrid branches of the shadow `git` (`soulgrid/…`), on this thread.
pub fn soulgrid_branches_blocking(git: &Git) -> Result<Vec<String>, RepoError> {
    let out = git.run_blocking(&[
        "for-each-ref",
        "--format=%(refname:lstrip=2)",
        "refs/heads/soulgrid/",
    ])?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect())
}

/// The same as [`bundle_blocking`], from the runtime.
pub async fn bundle(
    git: &Git,
    branches: Vec<String>,
    base: String,
    out: std::path::PathBuf,
) -> Result<bool, RepoError> {
    let git = git.clone();
    tokio::task::spawn_blocking(move || bundle_blocking(&git, &branches, &base, &out))
        .await
        .map_err(|e| RepoError::Io(e.to_string()))?
}

/// Brings the objects of `file` into the repository and says which branch heads it holds;
/// refused with why when the repository lacks the commits the bundle was made against (it
/// was made from another repository, or from a base this one has not got).
pub async fn unbundle(git: &Git, file: &Path) -> Result<Vec<Head>, RepoError> {
    let file = file.display().to_string();
    let (ok, _, err) = git.status(&["bundle", "verify", "-q", &file]).await?;
    if !ok {
        return Err(RepoError::Refused(format!(
            "the carried branches need commits this repository does not have ({})",
            err.lines().next().unwrap_or("git bundle verify failed")
        )));
    }
    let out = git.text(&["bundle", "unbundle", &file]).await?;
    Ok(out
        .lines()
        .filter_map(|l| {
            let (sha, name) = l.split_once(' ')?;
            Some(Head {
                branch: name.strip_prefix("refs/heads/")?.to_string(),
                sha: sha.to_string(),
            })
        })
        .collect())
}

/// Makes `branch` at `sha` if no branch of that name is there (never moves one); whether it
/// made it.
pub async fn make_branch(git: &Git, branch: &str, sha: &str) -> Result<bool, RepoError> {
    let (ok, _, _) = git
        .status(&["update-ref", &format!("refs/heads/{branch}"), sha, ""])
        .await?;
    Ok(ok)
}

/// What a carried bundle (`{data-dir}/carried/{key}.bundle`) is waiting for, beside it as
/// `{key}.json`: the project it goes into (by id: a team's own project; else by name, once one
/// of that name is linked) and whose each branch is (a `.soul`'s; a team's are known from its
/// worktrees).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<Owner>,
}

/// Whose a carried branch is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Owner {
    pub identity: String,
    pub agent: String,
    pub branch: String,
}

/// The folder of the data directory where carried branches wait.
pub const CARRIED: &str = "carried";
