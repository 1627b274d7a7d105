//! What a path given to link is: a work tree with its own git directory inside an allowed
//! folder, or a sentence saying what it is instead. Read without running git (the
//! repository's configuration is not the server's to run) and without following links inside
//! `.git`.

use std::path::{Path, PathBuf};

use crate::fsafe::{read_bounded, Found};

use super::RepoError;

/// A repository the server may link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspected {
    /// The work tree, as a real path.
    pub work_tree: PathBuf,
    /// Its git directory (`{work_tree}/.git`).
    pub common: PathBuf,
    /// The branch checked out there, if HEAD names one.
    pub current: Option<String>,
    pub sha256: bool,
}

/// Whether `real` is inside one of `allowed` (each made real first).
pub fn allowed(real: &Path, allowed: &[PathBuf]) -> bool {
    allowed
        .iter()
        .any(|a| std::fs::canonicalize(a).is_ok_and(|a| real.starts_with(a)))
}

/// The folders a project may be linked from, as the file system names them.
pub fn folders(allow: &[PathBuf]) -> Vec<String> {
    allow
        .iter()
        .map(|a| std::fs::canonicalize(a).unwrap_or_else(|_| a.clone()))
        .map(|a| a.display().to_string())
        .collect()
}

/// A path as a person typed it: trimmed, `~` the server's home folder.
pub fn expand(path: &str, home: Option<&Path>) -> PathBuf {
    let path = path.trim();
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(path),
    }
}

/// A path as a message names it: at most 160 characters, cut in the middle.
pub fn said(path: &str) -> String {
    const MAX: usize = 160;
    let chars: Vec<char> = path.chars().collect();
    if chars.len() <= MAX {
        return path.to_string();
    }
    let (head, tail) = (&chars[..MAX / 2], &chars[chars.len() - MAX / 2..]);
    format!(
        "{}…{}",
        head.iter().collect::<String>(),
        tail.iter().collect::<String>()
    )
}

/// Inspects `path`: inside `allow`, not inside `data_dir`, a non-bare work tree.
pub fn inspect(path: &str, allow: &[PathBuf], data_dir: &Path) -> Result<Inspected, RepoError> {
    if path.trim().is_empty() {
        return Err(RepoError::Refused(
            "give the path of a git work tree on this server's machine".into(),
        ));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let expanded = expand(path, home.as_deref());
    let shown = said(&expanded.display().to_string());
    let refused = |why: &str| RepoError::Refused(format!("{shown} {why}"));
    let real = std::fs::canonicalize(&expanded)
        .map_err(|_| refused("is not a folder this server can see"))?;
    if !real.is_dir() {
        return Err(refused("is not a folder"));
    }
    if !allowed(&real, allow) {
        let folders = folders(allow);
        return Err(refused(&match folders.is_empty() {
            true => "is not inside a folder this server allows its agents to use (--allow-dir: \
                     none given)"
                .to_string(),
            false => format!(
                "is not inside a folder this server allows its agents to use (--allow-dir: {})",
                folders.join(", ")
            ),
        }));
    }
    if std::fs::canonicalize(data_dir).is_ok_and(|d| real.starts_with(&d)) {
        return Err(refused("is inside the server's data directory"));
    }
    let git = real.join(".git");
    match std::fs::symlink_metadata(&git) {
        Ok(m) if m.is_dir() => {}
        Ok(m) if m.is_file() => {
            return Err(refused(
                "is a linked worktree or a submodule: link the repository's main work tree",
            ))
        }
        Ok(_) => return Err(refused("has a .git that is neither a folder nor a file")),
        Err(_)
            if ["HEAD", "objects", "refs"]
                .iter()
                .all(|p| real.join(p).exists()) =>
        {
            return Err(refused(
                "is a bare repository: link a work tree (a clone with its files checked out)",
            ))
        }
        Err(_) => return Err(refused("is not a git work tree (it has no .git)")),
    }
    let head = match read_bounded(&git.join("HEAD"), 4096) {
        Ok(Found::Bytes(b)) => String::from_utf8_lossy(&b).trim().to_string(),
        _ => return Err(refused("has a .git without a readable HEAD")),
    };
    let current = head
        .strip_prefix("ref: refs/heads/")
        .map(|b| b.trim().to_string());
    let (refstorage, sha256) = formats(&git);
    if refstorage.is_some_and(|v| v != "files") {
        return Err(refused(
            "keeps its branches in a reftable, which Soulgrid cannot use yet",
        ));
    }
    Ok(Inspected {
        common: git,
        work_tree: real,
        current,
        sha256,
    })
}

/// The repository's ref storage (if it names one) and whether its objects are SHA-256, read
/// from its configuration as bytes (never by git).
pub fn formats(common: &Path) -> (Option<String>, bool) {
    let config = match read_bounded(&common.join("config"), 256 * 1024) {
        Ok(Found::Bytes(b)) => String::from_utf8_lossy(&b).to_lowercase(),
        _ => String::new(),
    };
    let setting = |key: &str| {
        config.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    (
        setting("refstorage"),
        setting("objectformat").is_some_and(|v| v == "sha256"),
    )
}

#[cfg(test)]
mod typed {
    use super::*;

    /// `~` is the server's home folder; a path is trimmed; a long one is named by its ends.
    #[test]
    fn a_typed_path_is_expanded_and_a_long_one_is_cut() {
        let home = Path::new("/home/ada");
        assert_eq!(expand(" ~/code/web ", Some(home)), home.join("code/web"));
        assert_eq!(expand("~", Some(home)), home.to_path_buf());
        assert_eq!(expand("~bob/x", Some(home)), PathBuf::from("~bob/x"));
        assert_eq!(expand("~/x", None), PathBuf::from("~/x"));
        assert_eq!(said("/a/b"), "/a/b");
        let long = format!("/{}", "é".repeat(5000));
        let cut = said(&long);
        assert_eq!(cut.chars().count(), 161);
        assert!(cut.starts_with("/é") && cut.contains('…'));
    }
}
