//! What an identity used over its whole life (the ledger) and each Claude session it lived in.

use crate::ui::when::When;
use leptos::prelude::*;

use crate::contract::SessionView;
use crate::domain::life::LedgerView;

#[component]
pub fn Ledger(ledger: LedgerView) -> impl IntoView {
    let tools = if ledger.tool_calls.is_empty() {
        "none".to_string()
    } else {
        ledger
            .tool_calls
            .iter()
            .map(|(tool, n)| format!("{tool} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let row = |label: &'static str, key: &'static str, value: String| {
        view! { <dt>{label}</dt><dd data-ledger=key>{value}</dd> }
    };
    view! {
        <dl class="ledger">
            {row("Cost", "cost", format!("${:.4}", ledger.cost_usd))}
            {row("Tokens in / out", "tokens", format!("{} / {}", ledger.input_tokens, ledger.output_tokens))}
            {row("Turns", "turns", ledger.turns.to_string())}
            {row("Tool calls", "tools", tools)}
            {row("Permission requests approved / denied", "permissions",
                format!("{} / {}", ledger.permissions_approved, ledger.permissions_denied))}
            {row("Messages sent / received", "messages",
                format!("{} / {}", ledger.messages_sent, ledger.messages_received))}
        </dl>
    }
}

#[component]
pub fn Sessions(sessions: Vec<SessionView>) -> impl IntoView {
    if sessions.is_empty() {
        return view! { <p class="muted">"No Claude session yet."</p> }.into_any();
    }
    let rows = sessions
        .into_iter()
        .rev()
        .map(|s| {
            let ended = match (s.ended_at, s.end_reason.clone()) {
                (Some(at), why) => view! {
                    <When at=at/>
                    {why.map(|why| format!(" ({why})"))}
                }
                .into_any(),
                (None, _) => "running".into_any(),
            };
            let short: String = s.claude_session_id.chars().take(8).collect();
            view! {
                <tr data-session=s.claude_session_id.clone()>
                    <td><code title=s.claude_session_id.clone()>{short}</code></td>
                    <td><When at=s.started_at/></td>
                    <td>{ended}</td>
                    <td>{s.processes}</td>
                    <td>{s.turns}</td>
                    <td>{format!("{} / {}", s.input_tokens, s.output_tokens)}</td>
                    <td>{s.tool_calls}</td>
                    <td>{format!("${:.4}", s.cost_usd)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="sessions">
                <thead>
                    <tr>
                        <th scope="col">"Session"</th>
                        <th scope="col">"Started"</th>
                        <th scope="col">"Ended"</th>
                        <th scope="col">"Processes"</th>
                        <th scope="col">"Turns"</th>
                        <th scope="col">"Tokens in / out"</th>
                        <th scope="col">"Tool calls"</th>
                        <th scope="col">"Cost"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
