//! P6: the page. Server-side rendering of a full team with long threads, and the size of the
//! wasm the browser downloads (its time to hydrate is measured in Chromium: `browser.rs`).

use std::path::Path;
use std::time::{Duration, Instant};

use app::domain::events::EventKind;

use crate::serve::{request, serve_sim, stop, until};
use crate::table::{thousands, Row, Spread};

/// Nine agents (a summoned team and its lead), `per` messages in each one's thread, then
/// `GET /` timed, whole response read, on a fresh connection each time.
pub fn ssr(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool) -> Row {
    let per = if quick { 100 } else { 1000 };
    eprintln!("P6: server-side rendering with 9 agents and {per} messages each…");
    let row = Row::new(
        "P6a",
        &format!("server-side rendering of the page (GET /, whole response) with 9 agents and {} messages each", thousands(per as f64)),
        "≤ 2 ms",
    );
    let (state, port) = serve_sim(rt, dir);
    let named = rt.block_on(async {
        request(port, "POST", "/api/agents/summon", Some("{}")).await;
        until(Duration::from_secs(60), async || {
            state.store.with_docs(|d| {
                (0..9u8)
                    .filter(|s| *s != 4)
                    .all(|s| app::domain::docs::identity(d, s).is_some_and(|i| i.name.is_some()))
            })
        })
        .await
    });
    if !named {
        stop(rt, &state);
        return row.not_run("the simulated team did not register its names");
    }
    rt.block_on(async {
        let kinds: Vec<EventKind> = (0..per * 9)
            .map(|i| EventKind::UserMessage {
                message_id: soulgrid::store::new_message_id(),
                speaker_name: "Bench".into(),
                seat: (i % 9) as u8,
                text: format!(
                    "message {i}: a line of the thread, about as long as people write them"
                ),
                target_agent: None,
            })
            .collect();
        for chunk in kinds.chunks(2000) {
            state
                .store
                .append_all("bench", chunk.to_vec())
                .await
                .unwrap();
        }
    });
    let runs = if quick { 10 } else { 50 };
    let mut took = Vec::new();
    let mut bytes = 0;
    rt.block_on(async {
        request(port, "GET", "/", None).await; // warm-up
        for _ in 0..runs {
            let start = Instant::now();
            let (status, body) = request(port, "GET", "/", None).await;
            took.push(start.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(status, 200, "GET / answered {status}");
            bytes = body.len();
        }
    });
    stop(rt, &state);
    let spread = Spread::of(took).unwrap();
    row.measured(
        format!("{} ({} KB of HTML)", spread.show(), bytes / 1024),
        spread.p95 <= 2.0,
    )
}

/// The wasm in the site's `pkg/`, gzipped as a server would send it; beside it, when given,
/// the same page's wasm without the console's views (`bench/viewless`): what any page of this
/// design carries before it draws anything, so the difference is what the views cost.
pub fn wasm_size(site_root: Option<&Path>, viewless: Option<&Path>) -> Row {
    let row = Row::new("P6b", "the page's wasm, gzip -9", "≤ 300 KB");
    let Some(root) = site_root else {
        return row.not_run("no site root (--site-root or LEPTOS_SITE_ROOT)");
    };
    // The page's own (`soulgrid.*.wasm`), and the parts split off (`split_*.wasm`, and
    // `chunk_*.wasm` for code they share: the agent page's, an agent's diff, the bodies of the
    // panels drawn closed), each fetched when it is first shown.
    let (mut page, mut parts) = (None, Vec::new());
    for path in std::fs::read_dir(root.join("pkg"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
    {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.extension().is_none_or(|x| x != "wasm") {
            continue;
        }
        match name.starts_with("soulgrid.") {
            true => page = Some(path),
            false => parts.push(path),
        }
    }
    let Some(wasm) = page else {
        return row.not_run(&format!("no .wasm in {}/pkg", root.display()));
    };
    let (raw, gz) = match sizes(&wasm) {
        Ok(s) => s,
        Err(e) => return row.not_run(&e),
    };
    let split = match parts
        .iter()
        .map(|p| sizes(p))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(s) if s.is_empty() => String::new(),
        Ok(s) => format!(
            "; the {} parts split off (the agent page, an agent's diff, the panels drawn closed), each fetched when first shown: {} KB",
            s.len(),
            s.iter().map(|(_, gz)| gz).sum::<u64>() / 1024
        ),
        Err(e) => format!("; the parts split off: not measured ({e})"),
    };
    let row = row.measured(
        format!("{} KB ({} KB before gzip){split}", gz / 1024, raw / 1024),
        gz <= 300 * 1024,
    );
    match viewless.map(sizes) {
        Some(Ok((bare_raw, bare_gz))) => row.ratio(format!(
            "the same page without the console's views (`bench/viewless`: leptos, its router, \
             the snapshot read and the live replica with its reducer): {} KB ({} KB before \
             gzip), so the views are {} KB of it",
            bare_gz / 1024,
            bare_raw / 1024,
            gz.saturating_sub(bare_gz) / 1024
        )),
        Some(Err(e)) => row.ratio(format!("the page without its views: not measured ({e})")),
        None => row.ratio(
            "the page without its views: not measured (`make bench` builds it: --viewless)".into(),
        ),
    }
}

/// A file's size and its size gzipped (`gzip -9`), in bytes.
fn sizes(wasm: &Path) -> Result<(u64, u64), String> {
    let raw = std::fs::metadata(wasm)
        .map_err(|e| format!("{}: {e}", wasm.display()))?
        .len();
    let out = std::process::Command::new("gzip")
        .arg("-9c")
        .arg(wasm)
        .output()
        .map_err(|e| format!("gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip {}: {}", wasm.display(), out.status));
    }
    Ok((raw, out.stdout.len() as u64))
}
