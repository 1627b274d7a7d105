//! An identity's rules: added (numbered by the rules version after it) and removed by number,
//! where the identity is (seated or in the Hall). A rule that does not parse, one the identity
//! already keeps, or one past [`MAX_RULES`] changes nothing (the server refuses them first).

use super::super::events::{Event, EventKind};
use super::super::rules::{parse, KeptRule, MAX_RULES};
use super::writes::Writes;

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
        _ => {}
    }
}
