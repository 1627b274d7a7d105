//! Budgets: a spend limit per agent and for the team, per UTC day and per UTC month, in US
//! dollars, counted from each turn's `result` cost (the ledger keeps each identity's spend of
//! its current day and month). At 80 % the seat says so and the human is told; at 100 % the
//! agent finishes its turn and is given no new one (its mail waits) until the limit is raised
//! or the period turns.

use serde::{Deserialize, Serialize};

pub use super::docs::{budget_id, BudgetDoc, ToldLevel, TYPE_BUDGET};
use super::docs::{Doc, Docs, LedgerDoc, TYPE_LEDGER};
use super::time::{day_key, month_key};
use super::Millis;

/// The highest limit taken, in US dollars: anything above is a typo, not a budget.
pub const MAX_USD: f64 = 100_000.0;

/// How a seat's problem about a budget begins (a refusal, or a level told): cleared when a
/// budget is set.
pub const BUDGET_PROBLEM: &str = "budget ";

/// The share of a limit at which the seat and the human are told.
pub const WARN_AT: f64 = 0.8;

/// A period a limit counts over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Day,
    Month,
}

impl Period {
    pub fn word(self) -> &'static str {
        match self {
            Period::Day => "today",
            Period::Month => "this month",
        }
    }
}

/// How far a spend has come against a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Under,
    /// 80 % or more.
    Near,
    /// 100 % or more.
    Reached,
}

/// One limit and what was spent against it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The identity's limit, or the team's (`None`).
    pub agent: Option<String>,
    pub period: Period,
    pub spent_micro_usd: u64,
    pub limit_micro_usd: u64,
}

impl Standing {
    pub fn level(&self) -> Level {
        let share = self.spent_micro_usd as f64 / self.limit_micro_usd.max(1) as f64;
        if share >= 1.0 {
            Level::Reached
        } else if share >= WARN_AT {
            Level::Near
        } else {
            Level::Under
        }
    }

    /// "the team's daily budget: $4.10 of $5.00 today".
    pub fn words(&self) -> String {
        let whose = match &self.agent {
            Some(_) => "its",
            None => "the team's",
        };
        let kind = match self.period {
            Period::Day => "daily",
            Period::Month => "monthly",
        };
        format!(
            "{whose} {kind} budget: {} of {} {}",
            usd(self.spent_micro_usd),
            usd(self.limit_micro_usd),
            self.period.word()
        )
    }
}

/// `$4.10`; under a cent, to the hundredth of a cent (`$0.0024`).
pub fn usd(micro: u64) -> String {
    let dollars = micro as f64 / 1_000_000.0;
    match micro {
        1..10_000 => format!("${dollars:.4}"),
        _ => format!("${dollars:.2}"),
    }
}

/// A limit as the human gave it, checked: more than zero, at most [`MAX_USD`]; in
/// micro-dollars.
pub fn limit(usd: f64, field: &str) -> Result<u64, String> {
    if !usd.is_finite() || usd <= 0.0 {
        return Err(format!(
            "{field} must be more than $0 (leave it out, or null, for no limit)"
        ));
    }
    if usd > MAX_USD {
        return Err(format!(
            "{field} of ${usd} is more than ${MAX_USD}: a typo?"
        ));
    }
    match (usd * 1_000_000.0).round() as u64 {
        0 => Err(format!("{field} must be at least $0.000001")),
        micro => Ok(micro),
    }
}

/// The budget `agent` (none: the team's), if one was set.
pub fn budget<'a>(docs: &'a Docs, agent: Option<&str>) -> Option<&'a BudgetDoc> {
    docs.get(&budget_id(agent)).and_then(Doc::as_budget)
}

/// Every budget, the team's first.
pub fn budgets(docs: &Docs) -> Vec<&BudgetDoc> {
    let mut v: Vec<&BudgetDoc> = docs
        .range(format!("{TYPE_BUDGET}:")..format!("{TYPE_BUDGET};"))
        .filter_map(|(_, d)| d.as_budget())
        .collect();
    v.sort_by_key(|b| b.agent.is_some());
    v
}

/// What one identity spent in the day and the month of `now`.
pub fn spent(l: &LedgerDoc, now: Millis) -> (u64, u64) {
    let day = match l.spend_day.as_deref() == Some(day_key(now).as_str()) {
        true => l.day_micro_usd,
        false => 0,
    };
    let month = match l.spend_month.as_deref() == Some(month_key(now).as_str()) {
        true => l.month_micro_usd,
        false => 0,
    };
    (day, month)
}

/// What the whole team spent in the day and the month of `now`.
pub fn team_spent(docs: &Docs, now: Millis) -> (u64, u64) {
    docs.range(format!("{TYPE_LEDGER}:")..format!("{TYPE_LEDGER};"))
        .filter_map(|(_, d)| d.as_ledger())
        .map(|l| spent(l, now))
        .fold((0, 0), |(d, m), (a, b)| (d + a, m + b))
}

/// Every limit that counts for the identity `agent` at `now` (its own, and the team's), with
/// what was spent against it: the one furthest along first.
pub fn standings(docs: &Docs, agent: &str, now: Millis) -> Vec<Standing> {
    // A fork without a budget of its own shares its forebear's: that limit counts the spend
    // of the forebear and of every fork it governs, so forking never buys a new allowance.
    let owner = governed_by(docs, agent);
    let mut v = match limited(docs, &owner) {
        true => against(docs, Some(&owner), family_spent(docs, &owner, now)),
        false => Vec::new(),
    };
    v.extend(team_standings(docs, now));
    v.sort_by(|a, b| {
        let share = |s: &Standing| s.spent_micro_usd as f64 / s.limit_micro_usd.max(1) as f64;
        share(b).total_cmp(&share(a))
    });
    v
}

/// The team's limits at `now`, with what the whole team spent against them.
pub fn team_standings(docs: &Docs, now: Millis) -> Vec<Standing> {
    against(docs, None, team_spent(docs, now))
}

/// The limits of `who`'s budget (none: the team's) against its spend of the day and month.
fn against(docs: &Docs, who: Option<&str>, (day, month): (u64, u64)) -> Vec<Standing> {
    let Some(b) = budget(docs, who) else {
        return Vec::new();
    };
    [
        (Period::Day, b.per_day_micro_usd, day),
        (Period::Month, b.per_month_micro_usd, month),
    ]
    .into_iter()
    .filter_map(|(period, limit, spent)| {
        Some(Standing {
            agent: who.map(str::to_string),
            period,
            spent_micro_usd: spent,
            limit_micro_usd: limit?,
        })
    })
    .collect()
}

/// Whether `agent` has a budget with a limit (one whose limits were all removed is none).
fn limited(docs: &Docs, agent: &str) -> bool {
    budget(docs, Some(agent))
        .is_some_and(|b| b.per_day_micro_usd.is_some() || b.per_month_micro_usd.is_some())
}

/// What `owner` and every identity whose budget is `owner`'s spent in the day and month of
/// `now`.
fn family_spent(docs: &Docs, owner: &str, now: Millis) -> (u64, u64) {
    super::life::every_identity(docs)
        .map(|i| i.stable_id())
        .filter(|id| id == owner || governed_by(docs, id) == owner)
        .filter_map(|id| super::life::ledger_of(docs, &id).map(|l| spent(l, now)))
        .fold((0, 0), |(d, m), (a, b)| (d + a, m + b))
}

/// Whose budget the identity `agent` counts against: its own if it has one, else its nearest
/// forebear's that has one (a fork's parent, that one's, …), else its own (none set).
pub fn governed_by(docs: &Docs, agent: &str) -> String {
    let mut at = agent.to_string();
    // Bounded: a lineage is never a circle, but a log is not trusted to say so.
    for _ in 0..64 {
        if limited(docs, &at) {
            return at;
        }
        let parent = super::life::every_identity(docs)
            .find(|i| i.stable_id() == at)
            .and_then(|i| i.parent_uuid.clone());
        let Some(parent) = parent else { break };
        let found = super::life::every_identity(docs)
            .find(|i| i.stable_id() == parent || i.uuid.as_deref() == Some(&parent));
        match found {
            Some(p) => at = p.stable_id(),
            None => break,
        }
    }
    agent.to_string()
}

/// The limit the identity `agent` has reached at `now`, if any: it is given no new turn.
pub fn reached(docs: &Docs, agent: &str, now: Millis) -> Option<Standing> {
    standings(docs, agent, now)
        .into_iter()
        .find(|s| s.level() == Level::Reached)
}
