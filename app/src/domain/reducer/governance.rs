//! The human's governance: budgets (each set whole, as it is now), and an identity's rules:
//! added under the number the server gave (the rules version it makes) and removed by number,
//! where the identity is (seated or in the Hall). A rule the identity already keeps (or its
//! number), or one past [`MAX_RULES`], changes nothing (the server refuses them first); rules
//! are not parsed again here, so no later parser renumbers them.

use super::super::budget::{budget, budget_id, BudgetDoc, ToldLevel, BUDGET_PROBLEM};
use super::super::docs::{identities, Doc, Problem};
use super::super::events::{Event, EventKind};
use super::super::rules::{KeptRule, MAX_RULES};
use super::super::time::{day_key, month_key};
use super::writes::Writes;

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::RuleAdded { .. } | EventKind::RuleRemoved { .. } => rules(w, event),
        EventKind::BudgetSet { .. } => budget_set(w, event),
        EventKind::BudgetCrossed { .. } => budget_crossed(w, event),
        _ => {}
    }
}

/// A rule added or removed.
fn rules(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::RuleAdded {
            identity_id,
            rule,
            by,
            n,
        } => w.update_by_id(identity_id, |d| {
            let rule = rule.trim();
            let kept = d.rules.iter().any(|k| k.rule == rule || Some(k.n) == *n);
            if kept || d.rules.len() >= MAX_RULES || rule.is_empty() {
                return;
            }
            d.rules_version = n.unwrap_or(d.rules_version + 1).max(d.rules_version + 1);
            d.rules.push(KeptRule {
                n: d.rules_version,
                rule: rule.to_string(),
                added_by: by.clone(),
                added_at: event.ts,
            });
        }),
        EventKind::RuleRemoved { identity_id, n, .. } => w.update_by_id(identity_id, |d| {
            let before = d.rules.len();
            d.rules.retain(|k| k.n != *n);
            if d.rules.len() != before {
                d.rules_version += 1;
            }
        }),
        _ => {}
    }
}

/// A budget set, whole.
fn budget_set(w: &mut Writes, event: &Event) {
    let EventKind::BudgetSet {
        agent,
        per_day_micro_usd,
        per_month_micro_usd,
    } = &event.kind
    else {
        return;
    };
    let id = budget_id(agent.as_deref());
    // What was told of a limit that did not change still holds.
    let before = budget(w.docs, agent.as_deref());
    let kept_told: Vec<String> = before
        .map(|b| {
            let same_day = b.per_day_micro_usd == *per_day_micro_usd;
            let same_month = b.per_month_micro_usd == *per_month_micro_usd;
            b.told
                .iter()
                .filter(|t| {
                    (same_day && t.starts_with("day:")) || (same_month && t.starts_with("month:"))
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let last_told = budget(w.docs, agent.as_deref()).and_then(|b| b.last_told.clone());
    w.put(
        id.clone(),
        Doc::Budget(Box::new(BudgetDoc {
            id,
            agent: agent.clone(),
            per_day_micro_usd: *per_day_micro_usd,
            per_month_micro_usd: *per_month_micro_usd,
            set_at: event.ts,
            told: kept_told,
            last_told,
            extra: Default::default(),
        })),
    );
    // What the seats this budget governs said of the old limits no longer holds (the
    // team's governs every seat).
    let seats: Vec<_> = identities(w.docs)
        .filter(|d| agent.as_ref().is_none_or(|a| *a == d.stable_id()))
        .filter(|d| {
            d.last_problem
                .as_ref()
                .is_some_and(|p| p.message.starts_with(BUDGET_PROBLEM))
        })
        .map(|d| d.grid_position)
        .collect();
    for seat in seats {
        w.update(seat, |d| d.last_problem = None);
    }
}

/// A budget level crossed (told once per level and period).
fn budget_crossed(w: &mut Writes, event: &Event) {
    let EventKind::BudgetCrossed {
        agent,
        seat,
        told,
        words,
        reached,
    } = &event.kind
    else {
        return;
    };
    if let Some(b) = budget(w.docs, agent.as_deref()).filter(|b| !b.told.contains(told)) {
        let mut b = b.clone();
        // Only this day's and this month's are kept: an older period told nothing
        // that still counts, and a month's word lives as long as its month.
        let (day, month) = (day_key(event.ts), month_key(event.ts));
        b.told
            .retain(|t| t.contains(&format!(":{day}:")) || t.contains(&format!(":{month}:")));
        b.told.push(told.clone());
        let reached_holds = b
            .last_told
            .as_ref()
            .is_some_and(|t| t.reached && b.told.contains(&t.told));
        if *reached || !reached_holds {
            b.last_told = Some(ToldLevel {
                event_id: event.id,
                told: told.clone(),
                words: words.clone(),
                reached: *reached,
            });
        }
        w.put(b.id.clone(), Doc::Budget(Box::new(b)));
    }
    if let Some(seat) = seat {
        let level = if *reached { "reached" } else { "near" };
        w.update(*seat, |d| {
            d.last_problem = Some(Problem {
                message: format!("{BUDGET_PROBLEM}{level}: {words}"),
                at: event.ts,
                detail: None,
            })
        });
    }
}
