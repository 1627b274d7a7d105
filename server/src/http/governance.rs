//! Governance over HTTP: an identity's rules, the one approval queue and budgets (types from
//! `app::contract`).

use app::contract::{
    budget_views, BudgetView, NewBudget, NewRule, PermissionsAt, QueuedRequest, RulesView,
};
use app::domain::docs::{identity, permissions};
use app::domain::permissions::PermissionState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::extract::{AppJson, AppPath, AppQuery};
use crate::error::AppError;
use crate::runtime::{BudgetChange, BudgetError, Kept, RuleChangeError};
use crate::state::AppState;

impl From<RuleChangeError> for AppError {
    fn from(e: RuleChangeError) -> Self {
        match e {
            RuleChangeError::Unknown(_) | RuleChangeError::NoSuchRule { .. } => {
                AppError::NoSuch(e.to_string())
            }
            RuleChangeError::Parse(_) => AppError::BadRequest(e.to_string()),
            RuleChangeError::Store(_) => AppError::Unavailable(e.to_string()),
            RuleChangeError::Kept { .. } | RuleChangeError::Full { .. } => {
                AppError::Conflict(e.to_string())
            }
        }
    }
}

fn view(k: Kept) -> Json<RulesView> {
    Json(RulesView {
        version: k.version,
        rules: k.rules,
    })
}

/// `GET /api/agents/{id}/rules` → `{version, rules: [{n, rule, addedBy, addedAt}]}`.
pub async fn rules(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<RulesView>, AppError> {
    Ok(view(state.runtime.rules(&id)?))
}

/// `POST /api/agents/{id}/rules {"rule"}` → `201` and the rules after; `400` for a rule that
/// does not parse (with where), `409` for one it keeps already, `404` for an unknown id.
pub async fn add_rule(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    AppJson(body): AppJson<NewRule>,
) -> Result<(StatusCode, Json<RulesView>), AppError> {
    let kept = state.runtime.add_rule(&id, &body.rule).await?;
    Ok((StatusCode::CREATED, view(kept)))
}

/// `DELETE /api/agents/{id}/rules/{n}` → the rules after; `404` for no such rule.
pub async fn remove_rule(
    State(state): State<AppState>,
    AppPath((id, n)): AppPath<(String, u32)>,
) -> Result<Json<RulesView>, AppError> {
    Ok(view(state.runtime.remove_rule(&id, n).await?))
}

/// `GET /api/permissions[?state=waiting]`: the requests in that state (`waiting` is
/// `pending`), oldest first, each with its agent's name; `400` for a state there is not.
pub async fn list(
    State(state): State<AppState>,
    AppQuery(q): AppQuery<PermissionsAt>,
) -> Result<Json<Vec<QueuedRequest>>, AppError> {
    let wanted = match q.state.as_deref() {
        None => None,
        Some("waiting" | "pending") => Some(PermissionState::Pending),
        Some("allowed") => Some(PermissionState::Allowed),
        Some("denied") => Some(PermissionState::Denied),
        Some("cancelled") => Some(PermissionState::Cancelled),
        Some(other) => {
            return Err(AppError::BadRequest(format!(
                "no state {other:?}: waiting, allowed, denied or cancelled (or none for all)"
            )))
        }
    };
    let list = state.store.with_docs(|d| {
        let mut v: Vec<QueuedRequest> = permissions(d)
            .filter(|p| wanted.is_none_or(|s| p.state == s))
            .map(|p| QueuedRequest {
                request: p.clone(),
                agent: identity(d, p.seat)
                    .filter(|who| Some(who.stable_id()) == p.identity_id)
                    .and_then(|who| who.name.clone()),
            })
            .collect();
        v.sort_by_key(|q| (q.request.created_at, q.request.event_id));
        v
    });
    Ok(Json(list))
}

impl From<BudgetError> for AppError {
    fn from(e: BudgetError) -> Self {
        match e {
            BudgetError::Unknown(_) => AppError::NoSuch(e.to_string()),
            BudgetError::Bad(_) => AppError::BadRequest(e.to_string()),
            BudgetError::Store(_) => AppError::Unavailable(e.to_string()),
        }
    }
}

/// `POST /api/budgets {"agent"?, "perDayUsd"?, "perMonthUsd"?}` → the budgets after; `400` for
/// a limit of zero, negative or absurd, `404` for an unknown agent.
pub async fn set_budget(
    State(state): State<AppState>,
    AppJson(body): AppJson<NewBudget>,
) -> Result<Json<Vec<BudgetView>>, AppError> {
    state
        .runtime
        .set_budget(BudgetChange {
            agent: body.agent,
            per_day_usd: body.per_day_usd,
            per_month_usd: body.per_month_usd,
        })
        .await?;
    budgets(State(state)).await
}

/// `GET /api/budgets`: the team's (with its spend today and this month), then each identity's.
pub async fn budgets(State(state): State<AppState>) -> Result<Json<Vec<BudgetView>>, AppError> {
    let now = state.runtime.clock().now_ms();
    Ok(Json(state.store.with_docs(|d| budget_views(d, now))))
}
