//! P2's reference: the server's part of it. A reply appended to the human's inbox file, as
//! another program appends one (lock directory, temporary file, rename), until its event is on
//! the stream: what is left of P2 after it is Chromium's (the event read, applied, drawn).

use std::path::Path;
use std::time::Duration;

use crate::serve::{now_micros, serve_sim, stop, watch};
use crate::table::Spread;

/// Appends `text` from the lead to the inbox `file` with the lock protocol.
fn append(file: &Path, text: &str) -> std::io::Result<()> {
    let lock = file.with_extension("json.lock");
    while std::fs::create_dir(&lock).is_err() {
        std::thread::yield_now();
    }
    let written = (|| {
        let mut all: Vec<serde_json::Value> = match std::fs::read_to_string(file) {
            Ok(t) => serde_json::from_str(&t).unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        all.push(serde_json::json!({"from": "Julian", "text": text,
            "timestamp": "2026-11-23T10:00:00.000Z", "read": false}));
        let tmp = file.with_extension("json.tmp.bench");
        std::fs::write(&tmp, serde_json::to_vec(&all)?)?;
        std::fs::rename(&tmp, file)
    })();
    std::fs::remove_dir(&lock)?;
    written
}

/// The server's part of P2 (appended → its event on SSE), as the P2 row's reference; `None`
/// when it could not be measured (said on stderr).
pub fn server_share(
    rt: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    dir: &Path,
    quick: bool,
) -> Option<String> {
    let rounds = if quick { 10 } else { 100 };
    eprintln!("P2: {rounds} replies appended to the human's inbox, to their events on the stream…");
    let (state, port) = serve_sim(rt, dir);
    let inbox = dir.join("teams/soulgrid/inboxes/bench.json");
    let after = state.store.last_event_id();
    let (watcher, mut seen_rx) = watch(client, port, after, |data| {
        data.split("bench inbox ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<usize>().ok())
    });
    let took = client.block_on(async {
        let mut took = Vec::new();
        for i in 0..rounds {
            let start = now_micros();
            let file = inbox.clone();
            let text = format!("bench inbox {i}");
            if let Err(e) = tokio::task::spawn_blocking(move || append(&file, &text))
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e)))
            {
                eprintln!("    appending to {} failed: {e}", inbox.display());
                return None;
            }
            loop {
                match tokio::time::timeout(Duration::from_secs(10), seen_rx.recv()).await {
                    Ok(Some((seen, at))) if seen == i => {
                        took.push(at.saturating_sub(start) as f64 / 1000.0);
                        break;
                    }
                    Ok(Some(_)) => {}
                    _ => {
                        eprintln!("    reply {i} did not come on the stream");
                        return None;
                    }
                }
            }
            // Each reply alone, as a person's replies come.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Some(took)
    });
    drop(seen_rx);
    watcher.abort();
    stop(rt, &state);
    let spread = Spread::of(took?)?;
    Some(format!(
        "the server's part (appended → its event on SSE): {}",
        spread.show()
    ))
}
