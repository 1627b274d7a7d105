//! Soul bundles (`.soul`, see `docs/soul-format.md`): one identity as one file, to bring it
//! into another team's Hall. Two JSON lines: a header (format version, who, a checksum of the
//! body's bytes) and the body (its identity, every soul version, its thread, every vault
//! version, its work commits, its ledger and Claude sessions, its lineage by reference, and the
//! permission rules it was granted).

use app::domain::docs::{identity_by_id, permissions, souls_of, thread_of, AgentIdentity, Docs};
use app::domain::events::EventKind;
use app::domain::imported::{ImportedAgent, Lived};
use app::domain::knowledge::{commits_of, knowledge_versions};
use app::domain::life::{children_of, ledger_of, sessions_of};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use app::contract::Brought;

use super::format::hex;
use super::PortableError;

/// The version this build writes; it reads this one and older ones.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleHeader {
    pub soul_bundle: u32,
    pub soulgrid: String,
    pub exported_at: String,
    pub team: String,
    pub id: String,
    pub name: Option<String>,
    /// The SHA-256 of the body line's bytes.
    pub sha256: String,
}

/// Another identity, by reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relative {
    pub id: String,
    pub name: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    pub parent: Option<Relative>,
    pub children: Vec<Relative>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleBody {
    pub identity: AgentIdentity,
    /// Its souls, thread, vault versions, work commits, ledger and Claude sessions.
    #[serde(flatten)]
    pub lived: Lived,
    #[serde(default)]
    pub lineage: Lineage,
    /// The rules it was granted ("Approve and …"), as the CLI was given them.
    #[serde(default)]
    pub permission_rules: Vec<serde_json::Value>,
    /// Its unmerged branches, one per project it works on (a git bundle each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<super::carried::SoulBranch>,
}

/// The bundle of the identity `id` with its unmerged `branches`, as file bytes; `None` for an id
/// nobody has.
pub fn bundle(
    docs: &Docs,
    id: &str,
    (team, now): (&str, &crate::clock::Clock),
    branches: Vec<super::carried::SoulBranch>,
) -> Option<Vec<u8>> {
    let who = identity_by_id(docs, id)?;
    let id = who.stable_id();
    let relative = |rid: &str| Relative {
        id: rid.to_string(),
        name: identity_by_id(docs, rid).and_then(|w| w.name.clone()),
    };
    let body = BundleBody {
        identity: who.clone(),
        lived: Lived {
            souls: souls_of(docs, who).into_iter().cloned().collect(),
            messages: thread_of(docs, who).into_iter().cloned().collect(),
            vault: knowledge_versions(docs, &id).into_iter().cloned().collect(),
            commits: commits_of(docs, &id).into_iter().cloned().collect(),
            ledger: ledger_of(docs, &id).cloned(),
            sessions: sessions_of(docs, &id).into_iter().cloned().collect(),
        },
        lineage: Lineage {
            parent: who.parent_uuid.as_deref().map(relative),
            children: children_of(docs, &id)
                .into_iter()
                .map(|c| relative(&c.stable_id()))
                .collect(),
        },
        permission_rules: permissions(docs)
            .filter(|p| p.identity_id.as_deref() == Some(id.as_str()))
            .flat_map(|p| p.remembered.iter().cloned())
            .collect(),
        branches,
    };
    let body = serde_json::to_string(&body).ok()?;
    let header = BundleHeader {
        soul_bundle: VERSION,
        soulgrid: env!("CARGO_PKG_VERSION").to_string(),
        exported_at: now.now_iso(),
        team: team.to_string(),
        id,
        name: who.name.clone(),
        sha256: hex(&Sha256::digest(body.as_bytes())),
    };
    let mut out = serde_json::to_string(&header).ok()?.into_bytes();
    out.push(b'\n');
    out.extend_from_slice(body.as_bytes());
    out.push(b'\n');
    Some(out)
}

/// Reads a bundle, checking its version and its checksum; nothing is done with a bundle that
/// fails either.
pub fn read(bytes: &str) -> Result<(BundleHeader, BundleBody), PortableError> {
    let (first, rest) = bytes.split_once('\n').ok_or_else(|| {
        PortableError::Bad("a soul bundle is two lines: a header and a body".into())
    })?;
    let header: BundleHeader = serde_json::from_str(first).map_err(|e| {
        PortableError::Bad(format!("the first line is not a soul bundle header ({e})"))
    })?;
    if header.soul_bundle == 0 || header.soul_bundle > VERSION {
        return Err(PortableError::Version(header.soul_bundle, VERSION));
    }
    let body = rest.strip_suffix('\n').unwrap_or(rest);
    let found = hex(&Sha256::digest(body.as_bytes()));
    if found != header.sha256 {
        return Err(PortableError::Checksum {
            part: "body".into(),
            expected: header.sha256,
            found,
        });
    }
    let body: BundleBody = serde_json::from_str(body)
        .map_err(|e| PortableError::Bad(format!("the body cannot be read: {e}")))?;
    if body.identity.stable_id() != header.id {
        return Err(PortableError::Bad(format!(
            "the header names {} but the body holds {}",
            header.id,
            body.identity.stable_id()
        )));
    }
    Ok((header, body))
}

/// Brings the bundle `bytes` into the Hall of the store `rt` runs on: its id kept, its name
/// suffixed when someone seated here has it; a bundle brought before changes nothing.
pub async fn bring(rt: &crate::runtime::Runtime, bytes: &str) -> Result<Brought, PortableError> {
    use app::domain::docs::taken_names;
    use app::domain::names::choose;
    let (header, body) = read(bytes)?;
    let id = header.id.clone();
    let own = body
        .identity
        .name
        .clone()
        .unwrap_or_else(|| "Nameless".into());
    if let Some(why) = body.lived.contradiction(&id) {
        return Err(PortableError::Bad(format!(
            "the bundle contradicts itself: {why}"
        )));
    }
    if let Some(why) = body.lived.beyond_limits(&body.identity) {
        return Err(PortableError::Bad(format!(
            "the bundle holds more than an agent here may: {why}"
        )));
    }
    let mut body = body;
    body.lived.drop_unknown_fields(&mut body.identity);
    // Its rules are in the bundle for the record: what it may do without asking here is this
    // team's human's to grant, not a file's (a bundle could carry a bare `Bash`).
    if !body.identity.rules.is_empty() {
        tracing::info!(
            identity = %id,
            rules = body.identity.rules.len(),
            "a brought identity's rules are not brought into force"
        );
        body.identity.rules.clear();
    }
    let (here, chosen) = rt.store().with_docs(|d| {
        let here = identity_by_id(d, &id).and_then(|w| w.name.clone());
        let taken = taken_names(d, u8::MAX, &rt.names().lead, &rt.names().human);
        let chosen = std::iter::once(own.clone())
            .chain((2..100).map(|n| format!("{own} {n}")))
            .find_map(|candidate| choose(&candidate, &taken).ok());
        (here, chosen)
    });
    if let Some(name) = here {
        return Ok(Brought {
            id,
            name,
            renamed_from: None,
            already_here: true,
        });
    }
    let (name, inbox) =
        chosen.ok_or_else(|| PortableError::Bad(format!("no name like {own:?} is free here")))?;
    // Its branches read before anything is recorded: a bad one refuses the whole bundle.
    let branches = super::carried::decode(&std::mem::take(&mut body.branches))?;
    let agent = ImportedAgent {
        identity: body.identity,
        name: name.clone(),
        inbox,
        from_team: Some(header.team),
        lived: body.lived,
    };
    rt.recorder()
        .record(vec![EventKind::AgentImported(Box::new(agent))])
        .await?;
    // Its unfinished work: into a linked project of the same name, or waiting for one.
    if !branches.is_empty() {
        super::carried::keep_waiting(&rt.config().data_dir, &id, &name, &branches)?;
        rt.projects().bring_carried().await;
    }
    Ok(Brought {
        renamed_from: (name != own).then_some(own),
        id,
        name,
        already_here: false,
    })
}
