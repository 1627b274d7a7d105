//! An identity's rules, as the human gives and takes them (`/api/agents/{id}/rules`): read and
//! refused here with where a rule does not parse, recorded as `rule_added` / `rule_removed`.
//! They are applied where requests arrive (`process::turn`), before anyone is asked.

use app::domain::docs::identity_by_id;
use app::domain::events::EventKind;
use app::domain::rules::{parse, KeptRule, MAX_RULES};

use crate::runtime::team::permissions::Permissions;

/// Why a rule could not be added or removed.
#[derive(Debug, thiserror::Error)]
pub enum RuleChangeError {
    #[error("no agent has the id {0:?}")]
    Unknown(String),
    #[error("the rule does not parse, {0}")]
    Parse(#[from] app::domain::rules::RuleError),
    #[error("{who} already has this rule (number {n})")]
    Kept { who: String, n: u32 },
    #[error("{who} keeps {MAX_RULES} rules already; remove one first")]
    Full { who: String },
    #[error("{who} has no rule number {n}")]
    NoSuchRule { who: String, n: u32 },
    #[error("the rule could not be stored: {0}")]
    Store(String),
}

/// An identity's rules and their version.
pub struct Kept {
    pub version: u32,
    pub rules: Vec<KeptRule>,
}

impl Permissions {
    /// The rules of the identity `id` (seated or in the Hall).
    pub fn rules(&self, id: &str) -> Result<Kept, RuleChangeError> {
        self.store
            .with_docs(|d| {
                identity_by_id(d, id).map(|who| Kept {
                    version: who.rules_version,
                    rules: who.rules.clone(),
                })
            })
            .ok_or_else(|| RuleChangeError::Unknown(id.to_string()))
    }

    /// Gives the identity `id` a rule, by the human; its rules after.
    pub async fn add_rule(&self, id: &str, rule: &str) -> Result<Kept, RuleChangeError> {
        let rule = rule.trim();
        parse(rule)?;
        // One change of rules at a time: each takes the next number.
        let _one = self.rule_changes.lock().await;
        let (who, kept) = self.who_and_rules(id)?;
        let n = self.rules(id)?.version + 1;
        if let Some(k) = kept.iter().find(|k| k.rule == rule) {
            return Err(RuleChangeError::Kept { who, n: k.n });
        }
        if kept.len() >= MAX_RULES {
            return Err(RuleChangeError::Full { who });
        }
        tracing::info!(identity = id, rule, "rule added");
        self.record_rule(EventKind::RuleAdded {
            identity_id: id.to_string(),
            rule: rule.to_string(),
            by: "human".into(),
            n: Some(n),
        })
        .await?;
        self.rules(id)
    }

    /// Takes rule number `n` from the identity `id`; its rules after.
    pub async fn remove_rule(&self, id: &str, n: u32) -> Result<Kept, RuleChangeError> {
        let _one = self.rule_changes.lock().await;
        let (who, kept) = self.who_and_rules(id)?;
        if !kept.iter().any(|k| k.n == n) {
            return Err(RuleChangeError::NoSuchRule { who, n });
        }
        tracing::info!(identity = id, n, "rule removed");
        self.record_rule(EventKind::RuleRemoved {
            identity_id: id.to_string(),
            n,
            by: "human".into(),
        })
        .await?;
        self.rules(id)
    }

    fn who_and_rules(&self, id: &str) -> Result<(String, Vec<KeptRule>), RuleChangeError> {
        self.store
            .with_docs(|d| {
                identity_by_id(d, id).map(|who| {
                    let name = who.name.clone().unwrap_or_else(|| "this agent".into());
                    (name, who.rules.clone())
                })
            })
            .ok_or_else(|| RuleChangeError::Unknown(id.to_string()))
    }

    async fn record_rule(&self, event: EventKind) -> Result<(), RuleChangeError> {
        self.recorder
            .record(vec![event])
            .await
            .map_err(|e| RuleChangeError::Store(e.to_string()))
    }
}
