//! `HEAD` read from the repository's files, without running git.

use std::path::Path;

use super::Repo;

/// `HEAD` as the repository's files say, read without running git.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FastHead {
    /// The commit `HEAD` names.
    Commit(String),
    /// A branch with no commit yet (no branch file, no packed refs): a folder just made a
    /// repository, as the lead's stays.
    Unborn,
    /// Not simple to read (a packed ref, a link, not a repository): ask git.
    Unknown,
}

impl Repo {
    /// `HEAD` read from the repository's files, without running git (checked after every
    /// turn).
    pub fn head_fast(&self) -> FastHead {
        let read = |p: &Path| {
            super::super::agent_fs::read_regular(p, 4096)
                .ok()
                .flatten()
                .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        };
        let absent = |p: &Path| matches!(std::fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
        let git = self.dir.join(".git");
        let Some(head) = read(&git.join("HEAD")) else {
            return FastHead::Unknown;
        };
        let sha = match head.strip_prefix("ref: ") {
            Some(r) if r.starts_with("refs/") && !r.contains("..") => {
                let branch = git.join(r);
                match read(&branch) {
                    Some(sha) => sha,
                    // No branch file and no packed refs: the branch has no commit yet.
                    None if absent(&branch) && absent(&git.join("packed-refs")) => {
                        return FastHead::Unborn
                    }
                    None => return FastHead::Unknown,
                }
            }
            Some(_) => return FastHead::Unknown,
            None => head,
        };
        match sha.len() >= 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            true => FastHead::Commit(sha),
            false => FastHead::Unknown,
        }
    }
}
