//! History you can carry, measured: time travel over a long log (any point in ≤ 300 ms), and
//! the memory of a team export of a large store (flat: it streams).

use std::path::Path;
use std::time::Instant;

use app::domain::events::EventKind;
use soulgrid::store::Store;

use crate::serve::message;
use crate::table::{thousands, Row};

/// A log of `total` events (messages and process reports of eight agents), then the documents
/// at points spread over it, timed: the first point (cold), then (once the boot's warm-up has
/// built the checkpoints) the median and slowest of ten points.
pub fn time_travel(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool) -> Row {
    use app::domain::process::ProcessState;
    let total: u64 = if quick { 10_000 } else { 100_000 };
    eprintln!("H1: time travel over {total} events…");
    let store = Store::open(dir).unwrap();
    rt.block_on(async {
        let kinds: Vec<EventKind> = (0..total)
            .map(|i| match i % 4 {
                0 | 1 => message(format!("past {i}")),
                2 => EventKind::AgentProcess {
                    seat: (i % 8) as u8,
                    state: ProcessState::Running,
                    reason: Some("using Bash".into()),
                    claude_session_id: None,
                    context_tokens: None,
                    cost_usd: None,
                    tool: Some("Bash".into()),
                    usage: None,
                },
                _ => EventKind::WorkState {
                    seat: (i % 8) as u8,
                    state: app::domain::work_cycle::WorkState::Bootstrap,
                },
            })
            .collect();
        for chunk in kinds.chunks(5000) {
            store.append_all("bench", chunk.to_vec()).await.unwrap();
        }
    });
    let start = Instant::now();
    rt.block_on(store.docs_at(total * 7 / 10)).unwrap();
    let cold = start.elapsed().as_secs_f64() * 1000.0;
    // What the boot's warm-up does.
    rt.block_on(store.docs_at(total)).unwrap();
    let mut took: Vec<f64> = Vec::new();
    for k in [7u64, 3, 9, 1, 5, 8, 2, 6, 4, 10] {
        let at = total * k / 10 - k * 37;
        let start = Instant::now();
        rt.block_on(store.docs_at(at)).unwrap();
        took.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    took.sort_by(|a, b| a.total_cmp(b));
    let (median, slowest) = (took[took.len() / 2], took[took.len() - 1]);
    let (kept, every) = store.history_checkpoints();
    Row::new(
        "H1",
        &format!("time travel: the documents at any of 10 points of a {}-event log", thousands(total as f64)),
        "≤ 300 ms (100,000 events)",
    )
    .measured(
        format!("median {median:.0} ms, slowest {slowest:.0} ms ({kept} checkpoints, every {every} events; the very first point, before any: {cold:.0} ms)"),
        slowest <= 300.0,
    )
}

/// A store of at least `mb` megabytes (messages of 2 KB, written straight into its event
/// table), then exported by a child process (`--export-child`): its peak resident memory
/// beside a small store's.
pub fn export_memory(dir: &Path, quick: bool) -> Row {
    let (small, large) = if quick { (5, 50) } else { (10, 1024) };
    eprintln!("H2: a team export of a {large} MB store…");
    let (small_mb, small_rss, _) = exported(&dir.join("small"), small);
    let (large_mb, large_rss, secs) = exported(&dir.join("large"), large);
    Row::new(
        "H2",
        &format!("team export of a {large_mb:.0} MB store: the exporting process's peak resident memory"),
        "flat: as for a small store",
    )
    .measured(
        format!("{large_rss:.0} MB (a {small_mb:.0} MB store: {small_rss:.0} MB); {secs:.1} s, {:.0} MB/s", large_mb / secs),
        large_rss <= small_rss * 1.5 + 4.0,
    )
}

fn exported(dir: &Path, mb: u64) -> (f64, f64, f64) {
    drop(Store::open(dir).unwrap()); // the schema
    let template = serde_json::to_value(app::domain::events::Event {
        id: 0,
        ts: 1_700_000_000_000,
        session_id: "bench".into(),
        kind: message("x".repeat(2000)),
    })
    .unwrap();
    let rows = mb * 1024 * 1024 / 4096; // a row takes a 4 KB page
    let mut conn = rusqlite::Connection::open(dir.join("soulgrid.db")).unwrap();
    for chunk in 0..rows.div_ceil(10_000) {
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx
                .prepare("INSERT INTO events (id, ts, session_id, type, seat, body) VALUES (?1, ?2, 'bench', 'user_message', 4, ?3)")
                .unwrap();
            for id in chunk * 10_000 + 1..=((chunk + 1) * 10_000).min(rows) {
                let mut event = template.clone();
                event["id"] = id.into();
                event["ts"] = (1_700_000_000_000 + id).into();
                insert
                    .execute(rusqlite::params![id as i64, id as i64, event.to_string()])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    drop(conn);
    let size = std::fs::metadata(dir.join("soulgrid.db")).unwrap().len() as f64 / 1048576.0;
    let start = Instant::now();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--export-child")
        .arg(dir)
        .output()
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rss: f64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(f64::NAN);
    (size, rss / 1024.0, secs)
}

/// The child of `export_memory`: exports the team in `dir` (to nowhere) and prints its peak
/// resident memory in kB.
pub fn export_child(dir: &Path) -> i32 {
    let mut sink = std::io::sink();
    if let Err(e) = soulgrid::portable::team::export(
        dir,
        ("bench", &soulgrid::clock::Clock::system()),
        &mut sink,
        &mut |_| {},
    ) {
        eprintln!("export: {e}");
        return 1;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    println!("{hwm}");
    0
}
