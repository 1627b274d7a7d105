//! The agents' unmerged branches in what is carried: the team export holds a git bundle per
//! project (`carried/project-{id}.bundle`, with a `.json` saying what it waits for), a `.soul`
//! holds its agent's branches; an import leaves them in `{data-dir}/carried/`, from where the
//! projects room brings them into a linked project of the same name (or keeps them waiting).

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::repo::carry::{self, Owner, Waiting, CARRIED};
use crate::repo::git::Git;

use super::Progress;

/// How long one git call of a soul bundle's branches may take.
const LIMIT: Duration = Duration::from_secs(120);

/// One branch a `.soul` carries: its project's name, the branch, and a git bundle of its
/// commits not on the base (base64).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoulBranch {
    pub project: String,
    pub branch: String,
    pub bundle: String,
}

/// The shadow git directory of each project the data directory has one of, and its base (the
/// branch its HEAD names).
fn shadows(data_dir: &Path) -> Vec<(String, PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(data_dir.join("projects")) else {
        return Vec::new();
    };
    let mut found: Vec<_> = entries
        .flatten()
        .filter_map(|e| {
            let id = e.file_name().to_string_lossy().into_owned();
            let dir = e.path().join("git");
            let head = std::fs::read_to_string(dir.join("HEAD")).ok()?;
            let base = head.trim().strip_prefix("ref: refs/heads/")?.to_string();
            Some((id, dir, base))
        })
        .collect();
    found.sort();
    found
}

/// For the team export: a bundle of each project's Soulgrid branches (their commits not on the
/// base) and its sidecar, written into `spool`; each as (its path in the export, the file).
/// A project whose repository cannot be read is left out, said through `progress`.
pub fn team_branches(
    data_dir: &Path,
    spool: &Path,
    progress: Progress<'_>,
) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (id, dir, base) in shadows(data_dir) {
        let git = Git::new(&dir, LIMIT);
        let key = format!("project-{id}");
        let file = spool.join(format!("{key}.bundle"));
        let made = carry::soulgrid_branches_blocking(&git)
            .and_then(|branches| carry::bundle_blocking(&git, &branches, &base, &file));
        match made {
            Ok(false) => {}
            Ok(true) => {
                let sidecar = spool.join(format!("{key}.json"));
                let waiting = Waiting {
                    project_id: Some(id.clone()),
                    ..Default::default()
                };
                if std::fs::write(&sidecar, serde_json::to_vec(&waiting).unwrap_or_default())
                    .is_ok()
                {
                    out.push((format!("{CARRIED}/{key}.bundle"), file));
                    out.push((format!("{CARRIED}/{key}.json"), sidecar));
                }
            }
            Err(e) => {
                progress(&format!("left out the branches of project {id}: {e}"));
                tracing::warn!(project = %id, error = %e, "an export left a project's branches out");
            }
        }
    }
    out
}

/// For a `.soul`: each branch of `owners` (one per project) with commits not on its base.
pub async fn soul_branches(
    data_dir: &Path,
    owners: Vec<(String, String, String)>,
) -> Vec<SoulBranch> {
    let mut out = Vec::new();
    for (project_id, project, branch) in owners {
        let Some((_, dir, base)) = shadows(data_dir)
            .into_iter()
            .find(|(id, ..)| *id == project_id)
        else {
            continue;
        };
        let Ok(spool) = tempfile::tempdir() else {
            continue;
        };
        let file = spool.path().join("branch.bundle");
        let git = Git::new(&dir, LIMIT);
        match carry::bundle(&git, vec![branch.clone()], base, file.clone()).await {
            Ok(true) => match std::fs::read(&file) {
                Ok(bytes) => out.push(SoulBranch {
                    project,
                    branch,
                    bundle: base64::engine::general_purpose::STANDARD.encode(bytes),
                }),
                Err(e) => tracing::warn!(error = %e, "a branch bundle could not be read"),
            },
            Ok(false) => {}
            Err(e) => tracing::warn!(%project, %branch, error = %e, "a .soul left a branch out"),
        }
    }
    out
}

/// A `.soul`'s branches, each with its bundle's bytes: refused, before anything is done with
/// the bundle, when one is not base64 or names no branch of Soulgrid's.
pub fn decode(branches: &[SoulBranch]) -> Result<Vec<(SoulBranch, Vec<u8>)>, super::PortableError> {
    branches
        .iter()
        .map(|b| {
            if !b.branch.starts_with(app::domain::projects::BRANCH_PREFIX)
                || b.project.trim().is_empty()
            {
                return Err(super::PortableError::Bad(format!(
                    "a carried branch ({:?} of {:?}) is not one of Soulgrid's",
                    b.branch, b.project
                )));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&b.bundle)
                .map_err(|e| {
                    super::PortableError::Bad(format!("a carried branch is not base64: {e}"))
                })?;
            Ok((b.clone(), bytes))
        })
        .collect()
}

/// Leaves a `.soul`'s branches (as [`decode`] read them) waiting in the data directory for
/// their projects, named from a hash of the identity (its id came in the file).
pub fn keep_waiting(
    data_dir: &Path,
    identity: &str,
    agent: &str,
    branches: &[(SoulBranch, Vec<u8>)],
) -> Result<(), super::PortableError> {
    use sha2::Digest as _;
    let dir = data_dir.join(CARRIED);
    std::fs::create_dir_all(&dir)?;
    let who = super::format::hex(&sha2::Sha256::digest(identity.as_bytes()));
    for (i, (b, bytes)) in branches.iter().enumerate() {
        let key = format!("soul-{}-{i}", &who[..16]);
        std::fs::write(dir.join(format!("{key}.bundle")), bytes)?;
        let waiting = Waiting {
            project_id: None,
            project_name: Some(b.project.clone()),
            branches: vec![Owner {
                identity: identity.to_string(),
                agent: agent.to_string(),
                branch: b.branch.clone(),
            }],
        };
        std::fs::write(
            dir.join(format!("{key}.json")),
            serde_json::to_vec(&waiting)?,
        )?;
    }
    Ok(())
}
