//! P1's reference: the server's part of it. The lead's status report (a marker line on its
//! stdout) read, its `agent_status` event stored with its fsync and sent, until the event is on
//! the stream; what is left of P1 after it is Chromium's (the event handed from its network
//! process to the page, applied, drawn). Measured as P1 is, from the event's `ts` (the store's
//! clock when it took the event, in whole milliseconds: up to 1 ms more than it was).

use std::path::Path;
use std::time::Duration;

use app::domain::docs::identity;

use crate::serve::{request, serve_sim, stop, until, watch};
use crate::table::Spread;

/// The server's part of P1, as the P1 row's reference; `None` when it could not be measured
/// (said on stderr).
pub fn server_share(
    rt: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    dir: &Path,
    quick: bool,
) -> Option<String> {
    let rounds = if quick { 5 } else { 50 };
    eprintln!("P1: {rounds} pairs of status reports from the lead, to their events on the stream…");
    let (state, port) = serve_sim(rt, dir);
    let name = client.block_on(async {
        let (status, body) = request(port, "POST", "/api/agents/summon", Some("{}")).await;
        if status != 202 && status != 200 {
            eprintln!("    SUMMON answered {status}: {body}");
            return None;
        }
        let named = || {
            state
                .store
                .with_docs(|d| identity(d, 0).and_then(|i| i.name.clone()))
        };
        until(Duration::from_secs(30), async || named().is_some()).await;
        named()
    });
    let Some(name) = name else {
        stop(rt, &state);
        eprintln!("    seat 1 was never named");
        return None;
    };
    let after = state.store.last_event_id();
    // The `ts` of each `agent_status` event on the stream.
    let (watcher, mut seen_rx) = watch(client, port, after, |data| {
        let v = serde_json::from_str::<serde_json::Value>(data).ok()?;
        (v["type"].as_str()? == "agent_status").then(|| v["ts"].as_u64())?
    });
    let took = client.block_on(async {
        let mut took = Vec::new();
        for _ in 0..rounds {
            // Listed, then not: the lead's belief about seat 1 changes each time, as in P1.
            for text in [format!("status: {name}"), "status:".to_string()] {
                let body = serde_json::json!({ "text": text }).to_string();
                let (status, said) = request(port, "POST", "/api/send", Some(&body)).await;
                if status != 202 {
                    eprintln!("    /api/send answered {status}: {said}");
                    return None;
                }
                match tokio::time::timeout(Duration::from_secs(10), seen_rx.recv()).await {
                    Ok(Some((ts, at))) => took.push(at as f64 / 1000.0 - ts as f64),
                    _ => {
                        eprintln!("    a status report did not come on the stream");
                        return None;
                    }
                }
            }
        }
        Some(took)
    });
    drop(seen_rx);
    watcher.abort();
    stop(rt, &state);
    let spread = Spread::of(took?)?;
    Some(format!(
        "the server's part (the status event's ts → on SSE): {}",
        spread.show()
    ))
}
