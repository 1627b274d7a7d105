//! What an identity knows: its vault and the commits of its work cycle.

use serde::{Deserialize, Serialize};

/// One file of a knowledge vault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeFile {
    pub path: String,
    pub text: String,
}

/// One version of a knowledge vault: who wrote it, when, why, and the files it changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeVersion {
    pub version: u32,
    pub created_at: crate::domain::Millis,
    pub author: crate::domain::docs::Author,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub files: Vec<String>,
}

/// `GET /api/agents/{id}/knowledge[?version=N]`: the vault's files (the current version, or
/// version N) and every version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeView {
    pub version: u32,
    pub files: Vec<KnowledgeFile>,
    pub versions: Vec<KnowledgeVersion>,
}

/// `PUT /api/agents/{id}/knowledge/{path}`: the human's text for one vault file (empty:
/// the file is removed).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnowledgeEdit {
    pub text: String,
}

/// The vault version an edit made (the current one when it changed nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeSaved {
    pub version: u32,
}

/// `POST /api/agents/{id}/knowledge/capture`: the vault taken from the awake agent's folder now
/// (as a work-state change takes it), and what came of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeCaptured {
    /// The vault's current version after the capture (unchanged when nothing was new).
    pub version: u32,
    /// The files the capture changed (none: nothing new since `version`).
    pub changed: Vec<String>,
    /// What the folder held that the vault cannot keep, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// When it was taken, on the server's clock.
    pub at: crate::domain::Millis,
}

/// `GET /api/agents/{id}/commits`: one commit of the work cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitView {
    pub sha: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    pub summary: String,
    pub time: crate::domain::Millis,
    pub files: Vec<String>,
    /// Made by the agent (else by the server at a validated transition).
    pub by_agent: bool,
}

/// The vault of the identity `id` at `version` (the current one when `None`); `None` for an
/// id nobody has or a version it never had.
pub fn knowledge_view(
    docs: &crate::domain::docs::Docs,
    id: &str,
    version: Option<u32>,
) -> Option<KnowledgeView> {
    use crate::domain::docs::identity_by_id;
    use crate::domain::knowledge::{knowledge_at, knowledge_versions};
    let who = identity_by_id(docs, id)?;
    let version = version.unwrap_or(who.vault_version);
    let files = match version {
        0 => Vec::new(),
        v => knowledge_at(docs, id, v)?
            .files
            .iter()
            .map(|(path, text)| KnowledgeFile {
                path: path.clone(),
                text: text.clone(),
            })
            .collect(),
    };
    Some(KnowledgeView {
        version,
        files,
        versions: knowledge_versions(docs, id)
            .into_iter()
            .map(|v| KnowledgeVersion {
                version: v.version,
                created_at: v.created_at,
                author: v.author,
                author_name: v.author_name.clone(),
                reason: v.reason.clone(),
                files: v.changed.clone(),
            })
            .collect(),
    })
}

/// The work-cycle commits of the identity `id`, oldest first.
pub fn commits_view(docs: &crate::domain::docs::Docs, id: &str) -> Option<Vec<CommitView>> {
    crate::domain::docs::identity_by_id(docs, id)?;
    Some(
        crate::domain::knowledge::commits_of(docs, id)
            .into_iter()
            .map(|c| CommitView {
                sha: c.sha.clone(),
                state: c.state.clone(),
                summary: c.summary.clone(),
                time: c.created_at,
                files: c.files.clone(),
                by_agent: c.by_agent,
            })
            .collect(),
    )
}
