//! Budgets in the console: the team's spend today in the header (marked at 80 % and 100 % of
//! its limit), and **Budgets** beside the grid: the team's limits and each agent's, with what
//! was spent today and this month, set per UTC day and month. Drawn from the live replica (the
//! ledgers and budget documents); the time is the browser's, read once a minute, so nothing is
//! drawn before hydration that the server would draw differently.

use leptos::prelude::*;

use crate::contract::endpoints as e;
use crate::contract::{budget_views, BudgetView, NewBudget};
use crate::domain::docs::identities;
use crate::domain::Millis;

fn views(now: RwSignal<Option<Millis>>) -> Memo<Vec<BudgetView>> {
    let live = crate::live::use_live();
    Memo::new(move |_| match now.get() {
        Some(now) => live.docs.with(|d| budget_views(d, now)),
        None => Vec::new(),
    })
}

fn money(usd: f64) -> String {
    match usd {
        u if u > 0.0 && u < 0.01 => format!("${u:.4}"),
        u => format!("${u:.2}"),
    }
}

/// The team's spend today, in the header.
#[component]
pub fn TeamSpend() -> impl IntoView {
    let budgets = views(crate::ui::when::minute());
    let team = Memo::new(move |_| budgets.with(|b| b.first().cloned()));
    // Each part its own memo: a turn's cost changes the figure's text, nothing else.
    let shown = Memo::new(move |_| team.with(Option::is_some));
    let level = Memo::new(move |_| {
        team.with(|t| match t.as_ref().map(|t| (&t.reached, &t.near)) {
            Some((Some(_), _)) => "reached",
            Some((None, Some(_))) => "near",
            _ => "under",
        })
    });
    let title = Memo::new(move |_| {
        team.with(|t| {
            t.as_ref()
                .and_then(|t| t.reached.clone().or_else(|| t.near.clone()))
                .unwrap_or_else(|| "What the team spent today (UTC)".into())
        })
    });
    let spent = Memo::new(move |_| {
        team.with(|t| {
            t.as_ref()
                .map(|t| money(t.spent_today_usd))
                .unwrap_or_default()
        })
    });
    let of = Memo::new(move |_| {
        team.with(|t| {
            t.as_ref()
                .and_then(|t| t.per_day_usd)
                .map(|l| format!(" of {}", money(l)))
                .unwrap_or_default()
        })
    });
    move || {
        shown.get().then(|| {
            view! {
                <span class="team-spend" data-level=move || level.get() title=move || title.get()>
                    "Today " <b>{move || spent.get()}</b> {move || of.get()}
                </span>
            }
        })
    }
}

/// The budgets panel; its body is fetched when first opened (`ui::lazy`).
#[component]
pub fn Budgets() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <super::lazy::LazyDetails class="panel budgets" open=open load=move || budgets_body(open)>
            "Budgets"
        </super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn budgets_body(open: RwSignal<bool>) -> AnyView {
    view! { <Body open=open/> }.into_any()
}

/// The panel's body, while `open` (`Budgets`).
#[component]
fn Body(open: RwSignal<bool>) -> impl IntoView {
    let live = crate::live::use_live();
    let budgets = views(crate::ui::when::minute());
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let who = RwSignal::new(String::new());
    let day = RwSignal::new(String::new());
    let month = RwSignal::new(String::new());
    let named = Memo::new(move |_| {
        live.docs.with(|d| {
            identities(d)
                .filter(|i| i.status().is_visible())
                .filter_map(|i| Some((i.stable_id(), i.name.clone()?)))
                .collect::<Vec<_>>()
        })
    });
    let set = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        // An empty field keeps the limit as it is; the server says what is wrong with a number.
        let read = |s: RwSignal<String>| -> Result<Option<Option<f64>>, String> {
            let text = s.get_untracked();
            match text.trim() {
                "" => Ok(None),
                t => t
                    .parse::<f64>()
                    .map(|v| Some(Some(v)))
                    .map_err(|_| format!("{t:?} is not an amount in dollars")),
            }
        };
        let (per_day_usd, per_month_usd) = match (read(day), read(month)) {
            (Ok(d), Ok(m)) => (d, m),
            (Err(e), _) | (_, Err(e)) => return error.set(Some(e)),
        };
        let body = NewBudget {
            agent: Some(who.get_untracked()).filter(|w| !w.is_empty()),
            per_day_usd,
            per_month_usd,
        };
        action.run(
            async move { crate::api::call::<e::SetBudget>(&(), &body).await.map(drop) },
            move || {
                day.set(String::new());
                month.set(String::new());
            },
        );
    };
    // Drawn while the panel is open only: a turn's cost changes nothing on the page otherwise.
    let rows = move || {
        if !open.get() {
            return None;
        }
        let rows = budgets
            .get()
            .into_iter()
            .map(|b| {
                let whose = match (&b.agent, &b.name) {
                    (None, _) => "The team".to_string(),
                    (Some(_), Some(n)) => n.clone(),
                    (Some(id), None) => id.clone(),
                };
                let level = match (&b.reached, &b.near) {
                    (Some(_), _) => "reached",
                    (None, Some(_)) => "near",
                    _ => "under",
                };
                let limit = |l: Option<f64>| l.map_or("no limit".to_string(), money);
                view! {
                    <tr data-level=level data-agent=b.agent.clone().unwrap_or_default()>
                        <th scope="row">{whose}</th>
                        <td>{money(b.spent_today_usd)} " of " {limit(b.per_day_usd)}</td>
                        <td>{money(b.spent_this_month_usd)} " of " {limit(b.per_month_usd)}</td>
                        <td class="budget-word">{b.reached.clone().or(b.near.clone())}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(rows)
    };
    view! {
        <p class="hint">
            "Spend from each turn's cost, per UTC day and month. At 80 % the seat says so; at "
            "100 % the agent finishes its turn and gets no new one (its mail waits) until you "
            "raise the limit or the period turns."
        </p>
        <div class="table-scroll">
            <table class="budget-table">
                <thead><tr><th scope="col">"Whose"</th><th scope="col">"Today"</th>
                    <th scope="col">"This month"</th><th scope="col"></th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <form class="set-budget" on:submit=set>
            <select aria-label="Whose budget" on:change=move |ev| who.set(event_target_value(&ev))>
                <option value="">"The team"</option>
                {move || named.get().into_iter().map(|(id, name)| view! {
                    <option value=id>{name}</option>
                }).collect_view()}
            </select>
            <input type="number" min="0" step="any" aria-label="US dollars per day" placeholder="$ per day"
                prop:value=move || day.get() on:input=move |ev| day.set(event_target_value(&ev))/>
            <input type="number" min="0" step="any" aria-label="US dollars per month" placeholder="$ per month"
                prop:value=move || month.get() on:input=move |ev| month.set(event_target_value(&ev))/>
            <button type="submit" disabled=move || busy.get()>"Set"</button>
        </form>
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
