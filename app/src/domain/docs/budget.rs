//! A budget's document (`budget:team`, `budget:{identity}`): its limits per UTC day and month.
//! What they mean, and what was spent against them, is `domain::budget`'s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::Millis;

pub const TYPE_BUDGET: &str = "budget";

/// `budget:team`, or `budget:{identity}`.
pub fn budget_id(agent: Option<&str>) -> String {
    format!("{TYPE_BUDGET}:{}", agent.unwrap_or("team"))
}

/// A limit, per day and per month (none: no limit), in micro-dollars.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetDoc {
    #[serde(rename = "_id")]
    pub id: String,
    /// The identity it limits; none for the team's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_day_micro_usd: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_month_micro_usd: Option<u64>,
    pub set_at: Millis,
    /// The levels told lately (`day:2026-11-27:near`): each is told once per period.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub told: Vec<String>,
    /// The last level told, with its event: what a hidden tab notifies once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_told: Option<ToldLevel>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A level told (`budget_crossed`): its words, and whether the limit is reached (else near). A
/// near level never takes the place of a reached one that still holds (one turn can cross the
/// day's limit and the month's 80 % at once: the notification says the agent is stopped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToldLevel {
    pub event_id: u64,
    /// Its key in `told` (`day:2026-11-27:reached`).
    #[serde(default)]
    pub told: String,
    pub words: String,
    #[serde(default)]
    pub reached: bool,
}
