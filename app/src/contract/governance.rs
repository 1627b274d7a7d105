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

/// `POST /api/budgets {"agent"?, "perDayUsd"?, "perMonthUsd"?}`: the identity's budget (no
/// agent: the team's). A limit left out stays as it was; `null` removes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewBudget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub per_day_usd: Option<Option<f64>>,
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub per_month_usd: Option<Option<f64>>,
}

/// A field that is there (`Some`), even as `null` (`Some(None)`); absent is `None`.
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

/// A budget and what was spent against it, today and this month (UTC).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetView {
    /// The identity (none: the team).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_day_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_month_usd: Option<f64>,
    pub spent_today_usd: f64,
    pub spent_this_month_usd: f64,
    /// The limit reached, in words (no new turn until it is raised or its period turns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<String>,
    /// At 80 % of a limit, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
}

/// The team's budget (always, with its spend) and each identity's that has one, at `now`.
pub fn budget_views(
    docs: &crate::domain::docs::Docs,
    now: crate::domain::Millis,
) -> Vec<BudgetView> {
    use crate::domain::budget::{
        budget, budgets, spent, standings, team_spent, team_standings, Level,
    };
    let usd = |m: u64| m as f64 / 1_000_000.0;
    let limits = |b: Option<&crate::domain::budget::BudgetDoc>| {
        (
            b.and_then(|b| b.per_day_micro_usd).map(usd),
            b.and_then(|b| b.per_month_micro_usd).map(usd),
        )
    };
    let (day, month) = team_spent(docs, now);
    let (per_day_usd, per_month_usd) = limits(budget(docs, None));
    let team = team_standings(docs, now);
    let team_level = |level: Level| team.iter().find(|s| s.level() == level).map(|s| s.words());
    let mut v = vec![BudgetView {
        agent: None,
        name: None,
        per_day_usd,
        per_month_usd,
        spent_today_usd: usd(day),
        spent_this_month_usd: usd(month),
        reached: team_level(Level::Reached),
        near: team_level(Level::Near),
    }];
    for b in budgets(docs).into_iter().filter(|b| b.agent.is_some()) {
        let id = b.agent.clone().unwrap_or_default();
        let who = crate::domain::docs::identity_by_id(docs, &id);
        let (d, m) = crate::domain::life::ledger_of(docs, &id).map_or((0, 0), |l| spent(l, now));
        let own = standings(docs, &id, now);
        let level = |level: Level| {
            own.iter()
                .find(|s| s.agent.is_some() && s.level() == level)
                .map(|s| s.words())
        };
        let (per_day_usd, per_month_usd) = limits(Some(b));
        v.push(BudgetView {
            name: who.and_then(|w| w.name.clone()),
            agent: Some(id),
            per_day_usd,
            per_month_usd,
            spent_today_usd: usd(d),
            spent_this_month_usd: usd(m),
            reached: level(Level::Reached),
            near: level(Level::Near),
        });
    }
    v
}
