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
        // Every part of the way opened without following a link (`.git` itself included).
        let read = |rel: &str| match crate::fsafe::read_in(&self.dir, Path::new(rel), 4096) {
            Ok(crate::fsafe::Found::Bytes(b)) => {
                Some(String::from_utf8_lossy(&b).trim().to_string())
            }
            _ => None,
        };
        let absent = |rel: &str| {
            matches!(
                crate::fsafe::read_in(&self.dir, Path::new(rel), 4096),
                Ok(crate::fsafe::Found::Missing)
            )
        };
        let Some(head) = read(".git/HEAD") else {
            return FastHead::Unknown;
        };
        let sha = match head.strip_prefix("ref: ") {
            Some(r) if r.starts_with("refs/") && !r.contains("..") => {
                let branch = format!(".git/{r}");
                match read(&branch) {
                    Some(sha) => sha,
                    // No branch file and no packed refs: the branch has no commit yet.
                    None if absent(&branch) && absent(".git/packed-refs") => {
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
