//! The budgets room: the human sets limits (`POST /api/budgets`), and a watch follows the log:
//! a turn's cost that brings an agent (or the team) to 80 % or 100 % of a limit is recorded
//! once per period and level as `budget_crossed` (the seat says so, the human is told); a limit
//! raised, or a new UTC day, hands the waiting mail of running agents over again. The refusal
//! itself is the process room's (`Processes::within_budget`): no new turn while a limit is
//! reached.

use std::time::Duration;

use app::domain::budget::{budget, limit, standings, Level, Standing};
use app::domain::docs::{identity, identity_by_id};
use app::domain::events::EventKind;
use app::domain::Seat;

use crate::runtime::context::Context;
use crate::runtime::mail::postman::Postman;

/// Why a budget could not be set.
#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    #[error("no agent has the id {0:?}")]
    Unknown(String),
    #[error("{0}")]
    Bad(String),
    #[error("the budget could not be stored: {0}")]
    Store(String),
}

/// A change to a budget: each limit set (`Some(Some)`), cleared (`Some(None)`) or kept.
pub struct Change {
    pub agent: Option<String>,
    pub per_day_usd: Option<Option<f64>>,
    pub per_month_usd: Option<Option<f64>>,
}

/// The budgets room's owner. Cheap to clone.
#[derive(Clone)]
pub struct Budgets {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) postman: Postman,
}

impl Budgets {
    /// Sets a budget (the identity's, or the team's), checked: an unknown identity, a limit of
    /// zero, negative or absurd are refused with a sentence.
    pub async fn set(&self, change: Change) -> Result<(), BudgetError> {
        if let Some(id) = &change.agent {
            let known = self
                .ctx
                .store()
                .with_docs(|d| identity_by_id(d, id).is_some());
            if !known {
                return Err(BudgetError::Unknown(id.clone()));
            }
        }
        let checked =
            |v: Option<Option<f64>>, field: &str| -> Result<Option<Option<u64>>, BudgetError> {
                match v {
                    None => Ok(None),
                    Some(None) => Ok(Some(None)),
                    Some(Some(usd)) => limit(usd, field)
                        .map(|m| Some(Some(m)))
                        .map_err(BudgetError::Bad),
                }
            };
        let day = checked(change.per_day_usd, "perDayUsd")?;
        let month = checked(change.per_month_usd, "perMonthUsd")?;
        let now = self
            .ctx
            .store()
            .with_docs(|d| budget(d, change.agent.as_deref()).cloned());
        let event = EventKind::BudgetSet {
            per_day_micro_usd: day.unwrap_or(now.as_ref().and_then(|b| b.per_day_micro_usd)),
            per_month_micro_usd: month.unwrap_or(now.as_ref().and_then(|b| b.per_month_micro_usd)),
            agent: change.agent,
        };
        tracing::info!(?event, "budget set");
        self.ctx
            .recorder()
            .record(vec![event])
            .await
            .map_err(|e| BudgetError::Store(e.to_string()))
    }

    /// Follows the log for the life of the server (see the module's text).
    pub fn watch(&self) {
        let rooms = self.clone();
        let store = self.ctx.store().clone();
        let mut follow = store.follow(store.last_event_id());
        let shutdown = self.ctx.shutdown_token();
        self.ctx.spawn(async move {
            loop {
                let now = rooms.ctx.clock().now_ms();
                let next_day = app::domain::time::next_day(now);
                let until = Duration::from_millis(u64::try_from(next_day - now).unwrap_or(0));
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    // A new day: what waited for it goes.
                    _ = tokio::time::sleep(until + Duration::from_millis(5)) => rooms.hand_over().await,
                    r = follow.next(256) => match r {
                        Some(Ok(batch)) => {
                            let mut raised = false;
                            for e in batch.events() {
                                match &e.kind {
                                    EventKind::AgentProcess { seat, cost_usd: Some(_), .. } => {
                                        rooms.crossed(*seat, e.ts).await
                                    }
                                    EventKind::BudgetSet { .. } => raised = true,
                                    _ => {}
                                }
                            }
                            if raised {
                                rooms.hand_over().await;
                            }
                        }
                        Some(Err(e)) => tracing::warn!(error = %e, "the budget watch could not read the log"),
                        None => return,
                    },
                }
            }
        });
    }

    /// Records each limit of the agent in `seat` (and the team's) that its spend has brought to
    /// a new level this period.
    async fn crossed(&self, seat: Seat, ts: app::domain::Millis) {
        let events: Vec<EventKind> = self.ctx.store().with_docs(|d| {
            let Some(who) = identity(d, seat) else {
                return Vec::new();
            };
            standings(d, &who.stable_id(), ts)
                .into_iter()
                .filter(|s| s.level() != Level::Under)
                .filter(|s| {
                    let key = told_key(s, ts);
                    !budget(d, s.agent.as_deref()).is_some_and(|b| b.told.contains(&key))
                })
                .map(|s| crossed_event(&s, seat, ts))
                .collect()
        });
        if !events.is_empty() {
            let _ = self.ctx.recorder().record(events).await;
        }
    }

    /// Hands each running agent's waiting mail over (a limit was raised, or a day began); the
    /// lead's too, started for it if its mail waited while it could not be.
    async fn hand_over(&self) {
        let mut seats = self.postman.processes.running();
        if !seats.contains(&app::domain::LEAD_SEAT) {
            seats.push(app::domain::LEAD_SEAT);
        }
        for seat in seats {
            self.postman.deliver_mail(seat).await;
        }
    }
}

/// `day:2026-11-27:reached`: a level told once per period.
fn told_key(s: &Standing, ts: app::domain::Millis) -> String {
    let (period, key) = match s.period {
        app::domain::budget::Period::Day => ("day", app::domain::time::day_key(ts)),
        app::domain::budget::Period::Month => ("month", app::domain::time::month_key(ts)),
    };
    let level = match s.level() {
        Level::Reached => "reached",
        _ => "near",
    };
    format!("{period}:{key}:{level}")
}

fn crossed_event(s: &Standing, seat: Seat, ts: app::domain::Millis) -> EventKind {
    EventKind::BudgetCrossed {
        agent: s.agent.clone(),
        seat: s.agent.as_ref().map(|_| seat),
        told: told_key(s, ts),
        words: s.words(),
        reached: s.level() == Level::Reached,
    }
}
