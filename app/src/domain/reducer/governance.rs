//! The human's governance: budgets (each set whole, as it is now), and an identity's rules: added (numbered by the rules version after it) and removed by number,
//! where the identity is (seated or in the Hall). A rule that does not parse, one the identity
//! already keeps, or one past [`MAX_RULES`] changes nothing (the server refuses them first).

use super::super::budget::{budget, budget_id, BudgetDoc, BUDGET_PROBLEM};
use super::super::docs::{identities, Doc, Problem};
use super::super::events::{Event, EventKind};
use super::super::rules::{parse, KeptRule, MAX_RULES};
use super::writes::Writes;

/// The budget levels a budget remembers having told.
const TOLD_KEPT: usize = 8;

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::RuleAdded {
            identity_id,
            rule,
            by,
        } => w.update_by_id(identity_id, |d| {
            let rule = rule.trim();
            let kept = d.rules.iter().any(|k| k.rule == rule);
            if kept || d.rules.len() >= MAX_RULES || parse(rule).is_err() {
                return;
            }
            d.rules_version += 1;
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
        EventKind::BudgetSet {
            agent,
            per_day_micro_usd,
            per_month_micro_usd,
        } => {
            let id = budget_id(agent.as_deref());
            w.put(
                id.clone(),
                Doc::Budget(Box::new(BudgetDoc {
                    id,
                    agent: agent.clone(),
                    per_day_micro_usd: *per_day_micro_usd,
                    per_month_micro_usd: *per_month_micro_usd,
                    set_at: event.ts,
                    // A limit changed is told afresh.
                    told: Vec::new(),
                    extra: Default::default(),
                })),
            );
            // What the seats said of the old limits no longer holds.
            let seats: Vec<_> = identities(w.docs)
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
        EventKind::BudgetCrossed {
            agent,
            seat,
            told,
            words,
            reached,
        } => {
            if let Some(b) = budget(w.docs, agent.as_deref()).filter(|b| !b.told.contains(told)) {
                let mut b = b.clone();
                b.told.push(told.clone());
                let keep = b.told.len().saturating_sub(TOLD_KEPT);
                b.told.drain(..keep);
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
        _ => {}
    }
}
