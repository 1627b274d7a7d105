//! An identity brought from another team (a soul bundle): everything it was, seated nowhere,
//! put in the Hall under the name and inbox it has here. Its id is kept; one already here is
//! not brought twice.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::docs::{
    AgentIdentity, ClaudeSessionDoc, KnowledgeDoc, LedgerDoc, MessageDoc, SoulDoc, WorkCommitDoc,
};
use super::fields::take_field;

/// Written with `lived`'s fields beside its own; read by hand (below) rather than with serde's
/// `flatten`, which buffers the whole object into its generic `Content` and compiled every
/// document type's reading once more for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedAgent {
    /// Its identity document as the other team had it.
    pub identity: AgentIdentity,
    /// Its name here: its own, or with a suffix when someone seated here has it.
    pub name: String,
    /// Its inbox here.
    pub inbox: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_team: Option<String>,
    #[serde(flatten)]
    pub lived: Lived,
}

impl<'de> Deserialize<'de> for ImportedAgent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut fields = Map::<String, Value>::deserialize(d)?;
        let mut read = || -> serde_json::Result<ImportedAgent> {
            Ok(ImportedAgent {
                identity: take_field(&mut fields, "identity")?,
                name: take_field(&mut fields, "name")?,
                inbox: take_field(&mut fields, "inbox")?,
                from_team: match fields.remove("fromTeam") {
                    Some(team) => Option::deserialize(team)?,
                    None => None,
                },
                lived: Lived::deserialize(Value::Object(std::mem::take(&mut fields)))?,
            })
        };
        read().map_err(D::Error::custom)
    }
}

/// What an identity lived, as it is carried from one team to another (in a soul bundle and in
/// the event that brings it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lived {
    /// Every soul version.
    #[serde(default)]
    pub souls: Vec<SoulDoc>,
    /// Its thread.
    #[serde(default)]
    pub messages: Vec<MessageDoc>,
    /// Every version of its knowledge vault.
    #[serde(default)]
    pub vault: Vec<KnowledgeDoc>,
    /// Its work commits.
    #[serde(default)]
    pub commits: Vec<WorkCommitDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<LedgerDoc>,
    /// The Claude sessions it lived in.
    #[serde(default)]
    pub sessions: Vec<ClaudeSessionDoc>,
}

impl Lived {
    /// Why it cannot be brought as it is: a soul version, or a vault version, past what a live
    /// agent's may hold (`None` when everything is within the limits). A bundle is refused
    /// rather than cut: it is somebody's whole life, and they can see what was too much.
    pub fn beyond_limits(&self, identity: &AgentIdentity) -> Option<String> {
        use super::docs::MAX_SOUL_BYTES;
        if let Some(s) = self.souls.iter().find(|s| s.text.len() > MAX_SOUL_BYTES) {
            return Some(format!(
                "its soul version {} has {} bytes; a soul may have {MAX_SOUL_BYTES}",
                s.version,
                s.text.len()
            ));
        }
        if let Some(a) = identity
            .individuation_artifact
            .as_ref()
            .filter(|a| a.len() > MAX_SOUL_BYTES)
        {
            return Some(format!(
                "its soul has {} bytes; a soul may have {MAX_SOUL_BYTES}",
                a.len()
            ));
        }
        for v in &self.vault {
            let (_, problems) = super::knowledge::within_limits(v.files.clone());
            if let Some(p) = problems.first() {
                return Some(format!("its knowledge version {}: {p}", v.version));
            }
        }
        None
    }

    /// Drops the fields this version does not know from everything in it (a bundle could
    /// carry any amount there, and every page would carry it on).
    pub fn drop_unknown_fields(&mut self, identity: &mut AgentIdentity) {
        identity.extra.clear();
        self.souls.iter_mut().for_each(|s| s.extra.clear());
        self.messages.iter_mut().for_each(|m| m.extra.clear());
        self.vault.iter_mut().for_each(|v| v.extra.clear());
        self.commits.iter_mut().for_each(|c| c.extra.clear());
        self.sessions.iter_mut().for_each(|s| s.extra.clear());
        if let Some(l) = &mut self.ledger {
            l.extra.clear();
        }
    }

    /// What in it contradicts itself for the identity `id` (a part that names another
    /// identity, a version, message, commit or session given twice), or `None` when it holds
    /// together. Such an agent is not brought.
    pub fn contradiction(&self, id: &str) -> Option<String> {
        let parts = (self.souls.iter())
            .map(|s| {
                (
                    "soul version",
                    s.identity_id.as_deref(),
                    s.version.to_string(),
                )
            })
            .chain(
                self.messages
                    .iter()
                    .map(|m| ("message", m.identity_id.as_deref(), m.id.clone())),
            )
            .chain(self.vault.iter().map(|v| {
                (
                    "vault version",
                    Some(v.identity_id.as_str()),
                    v.version.to_string(),
                )
            }))
            .chain(
                self.commits
                    .iter()
                    .map(|c| ("work commit", Some(c.identity_id.as_str()), c.sha.clone())),
            )
            .chain(self.sessions.iter().map(|s| {
                (
                    "Claude session",
                    Some(s.identity_id.as_str()),
                    s.claude_session_id.clone(),
                )
            }))
            .chain(
                self.ledger
                    .iter()
                    .map(|l| ("ledger", Some(l.identity_id.as_str()), String::new())),
            );
        let mut seen = std::collections::HashSet::new();
        for (part, of, key) in parts {
            let what = format!("{part} {key}");
            if let Some(of) = of.filter(|of| *of != id) {
                return Some(format!(
                    "its {} belongs to {of}, not to {id}",
                    what.trim_end()
                ));
            }
            if !seen.insert((part, key)) {
                return Some(format!("its {what} is given twice"));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn soul(version: u32, of: &str) -> SoulDoc {
        serde_json::from_value(json!({
            "_id": format!("soul:{of}:{version}"), "seat": 1, "version": version,
            "text": "I am", "createdAt": 1, "identityId": of
        }))
        .unwrap()
    }

    #[test]
    fn a_life_that_names_another_or_repeats_itself_contradicts_itself() {
        let mut lived = Lived {
            souls: vec![soul(1, "me"), soul(2, "me")],
            ..Lived::default()
        };
        assert_eq!(lived.contradiction("me"), None);
        lived.souls.push(soul(2, "me"));
        assert_eq!(
            lived.contradiction("me").as_deref(),
            Some("its soul version 2 is given twice")
        );
        lived.souls = vec![soul(1, "me"), soul(2, "you")];
        assert_eq!(
            lived.contradiction("me").as_deref(),
            Some("its soul version 2 belongs to you, not to me")
        );
    }
}
