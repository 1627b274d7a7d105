//! Governance: an identity's rules (`/api/agents/{id}/rules`) and the one approval queue
//! (`/api/permissions?state=waiting`).

use serde::{Deserialize, Serialize};

use super::endpoints::path_segment;
use super::params::Params;
use crate::domain::permissions::PermissionDoc;
use crate::domain::rules::KeptRule;

/// `POST /api/agents/{id}/rules {"rule"}`: e.g. `Bash(cargo test:*)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRule {
    pub rule: String,
}

/// An identity's rules, oldest first, and their version (each change is a new one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RulesView {
    pub version: u32,
    pub rules: Vec<KeptRule>,
}

/// An identity and one of its rules, by number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleAt {
    pub id: String,
    pub n: u32,
}

impl Params for RuleAt {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(&self.id), self.n.to_string()]
    }
}

/// `?state=waiting` (or `allowed`, `denied`, `cancelled`; none: every request).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionsAt {
    #[serde(default)]
    pub state: Option<String>,
}

impl Params for PermissionsAt {
    fn segments(&self) -> Vec<String> {
        Vec::new()
    }
    fn query(&self) -> Option<String> {
        self.state
            .as_ref()
            .map(|s| format!("state={}", path_segment(s)))
    }
}

/// One request in the queue: the request, and the agent that asked, by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedRequest {
    #[serde(flatten)]
    pub request: PermissionDoc,
    /// The asking agent's name (none for a newborn that has not chosen one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}
