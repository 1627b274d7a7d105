//! Store and SSE benchmarks. Prints figures; asserts nothing.
//!
//!     cargo run --release -p soulgrid --bin soulgrid-bench [-- --quick]
//!
//! 1. durable appends/s with group commit under 64 concurrent appenders, beside the raw rate of
//!    batched, fsync'd SQLite inserts on the same disk;
//! 2. the time a fresh SSE client takes to receive 100,000 events from `after=0`;
//! 3. 1,000 SSE subscribers at 1,000 events/s: p50/p99 delivery latency and the server's CPU;
//! 4. time travel: the documents at points of a 100,000-event log;
//! 5. a team export of a 1 GB store: the exporting process's peak memory beside a small one's.
//!
//! The server runs in this process on its own runtime whose threads are named `bench-server`;
//! its CPU time is read from /proc for those threads and the store writer only.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use leptos::prelude::LeptosOptions;
use soulgrid::state::AppState;
use soulgrid::store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn message(text: String) -> EventKind {
    EventKind::UserMessage {
        message_id: uuid::Uuid::new_v4().simple().to_string(),
        speaker_name: "Bench".into(),
        seat: 4,
        text,
        target_agent: None,
    }
}

/// CPU seconds used so far by this process's threads whose name starts with one of `prefixes`.
fn thread_cpu(prefixes: &[&str]) -> f64 {
    let ticks = 100.0; // USER_HZ on Linux
    let mut total = 0u64;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !prefixes.iter().any(|p| comm.trim().starts_with(p)) {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        // Fields after the ")" that ends the name: utime is the 12th, stime the 13th.
        if let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) {
            let f: Vec<&str> = rest.split_whitespace().collect();
            total += f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            total += f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    total as f64 / ticks
}

fn raw_sqlite_rate(dir: &Path, rows: usize, batch: usize) -> f64 {
    let conn = rusqlite::Connection::open(dir.join("raw.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        .unwrap();
    let body = serde_json::to_string(&message("x".repeat(40))).unwrap();
    let start = Instant::now();
    let mut conn = conn;
    for chunk in 0..rows.div_ceil(batch) {
        let tx = conn.transaction().unwrap();
        for i in 0..batch.min(rows - chunk * batch) {
            tx.execute(
                "INSERT INTO t (id, body) VALUES (?1, ?2)",
                rusqlite::params![(chunk * batch + i) as i64, body],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    rows as f64 / start.elapsed().as_secs_f64()
}

async fn group_commit_rate(dir: &Path, appenders: usize, per: usize) -> f64 {
    let store = Store::open(dir).unwrap();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for a in 0..appenders {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..per {
                store
                    .append("bench", message(format!("{a}-{i}")))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (appenders * per) as f64 / start.elapsed().as_secs_f64()
}

async fn serve(data_dir: &Path) -> (AppState, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = <soulgrid::config::Config as clap::Parser>::try_parse_from([
        "soulgrid",
        "--addr",
        &format!("127.0.0.1:{port}"),
        "--data-dir",
        &data_dir.display().to_string(),
        "--human-name",
        "Bench",
    ])
    .unwrap();
    let state = soulgrid::boot(
        &config,
        LeptosOptions::builder().output_name("soulgrid").build(),
    )
    .await
    .unwrap();
    let router = soulgrid::http::router(state.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (state, port)
}

/// Opens `GET /api/events?after=N` and calls `on_data` with each chunk of the body.
async fn sse_client(port: u16, after: u64, mut on_data: impl FnMut(&str) -> bool) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    // HTTP/1.0: the body is not chunked, so it can be scanned as plain SSE text.
    let req = format!("GET /api/events?after={after} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 256 * 1024];
    let mut carry = String::new();
    loop {
        let n = s.read(&mut buf).await.unwrap();
        if n == 0 {
            return;
        }
        carry.push_str(&String::from_utf8_lossy(&buf[..n]));
        // Hand over whole lines only.
        if let Some(end) = carry.rfind('\n') {
            let done: String = carry.drain(..=end).collect();
            if !on_data(&done) {
                return;
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, dir] = args.as_slice() {
        if flag == "--export-child" {
            return export_child(Path::new(dir));
        }
    }
    let quick = args.iter().any(|a| a == "--quick");
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-server")
        .enable_all()
        .build()
        .unwrap();
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    println!(
        "soulgrid-bench on {} ({} cores){}",
        tmp.path().display(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if quick { ", quick" } else { "" }
    );

    // 1. Group commit against raw batched inserts.
    let (appenders, per) = if quick { (64, 20) } else { (64, 200) };
    let gc_dir = tmp.path().join("gc");
    let gc = server_rt.block_on(group_commit_rate(&gc_dir, appenders, per));
    let raw_dir = tmp.path().join("raw");
    std::fs::create_dir_all(&raw_dir).unwrap();
    let raw_batched = raw_sqlite_rate(&raw_dir, appenders * per, appenders);
    std::fs::remove_file(raw_dir.join("raw.db")).ok();
    let raw_single = raw_sqlite_rate(&raw_dir, if quick { 200 } else { 1000 }, 1);
    println!("1. durable appends, 64 concurrent appenders, group commit: {gc:>10.0} events/s");
    println!(
        "   raw SQLite inserts, 64 per fsync'd transaction:          {raw_batched:>10.0} rows/s"
    );
    println!(
        "   raw SQLite inserts, 1 per fsync'd transaction:           {raw_single:>10.0} rows/s"
    );
    println!(
        "   ratio group commit / raw batched: {:.2}",
        gc / raw_batched
    );

    // 2. A fresh client replaying the log.
    let total: u64 = if quick { 10_000 } else { 100_000 };
    let replay_dir = tmp.path().join("replay");
    let (state, port) = server_rt.block_on(serve(&replay_dir));
    server_rt.block_on(async {
        let kinds: Vec<_> = (0..total).map(|i| message(format!("replay {i}"))).collect();
        for chunk in kinds.chunks(2000) {
            state
                .store
                .append_all(&state.session.id(), chunk.to_vec())
                .await
                .unwrap();
        }
    });
    let last = state.store.last_event_id();
    let start = Instant::now();
    client_rt.block_on(async {
        let mut seen = 0u64;
        sse_client(port, 0, |chunk| {
            seen += chunk.lines().filter(|l| l.starts_with("id: ")).count() as u64;
            seen < last
        })
        .await;
    });
    let took = start.elapsed();
    println!(
        "2. fresh SSE client, {last} events from after=0: {:.2} s ({:.0} events/s)",
        took.as_secs_f64(),
        last as f64 / took.as_secs_f64()
    );
    soulgrid_stop(&server_rt, &state);

    // 3. Many subscribers, steady rate.
    let (subscribers, rate, seconds) = if quick {
        (100, 200u64, 2u64)
    } else {
        (1000, 1000u64, 5u64)
    };
    let fan_dir = tmp.path().join("fan");
    let (state, port) = server_rt.block_on(serve(&fan_dir));
    let after = state.store.last_event_id();
    let base = Instant::now();
    let latencies: Arc<std::sync::Mutex<Vec<u64>>> = Arc::default();
    let connected = Arc::new(AtomicU64::new(0));
    let expected = rate * seconds;
    let mut clients = Vec::new();
    for _ in 0..subscribers {
        let (lat, connected) = (latencies.clone(), connected.clone());
        clients.push(client_rt.spawn(async move {
            let mut mine = Vec::with_capacity(expected as usize);
            let mut first = true;
            sse_client(port, after, |chunk| {
                if first {
                    connected.fetch_add(1, Ordering::SeqCst);
                    first = false;
                }
                let now = base.elapsed().as_micros() as u64;
                for part in chunk.split("\"text\":\"t=").skip(1) {
                    if let Some(sent) = part.split('"').next().and_then(|v| v.parse::<u64>().ok()) {
                        mine.push(now.saturating_sub(sent));
                    }
                }
                (mine.len() as u64) < expected
            })
            .await;
            lat.lock().unwrap().extend(mine);
        }));
    }
    // Wait for the subscribers' streams to open (the first heartbeat or header counts).
    let deadline = Instant::now() + Duration::from_secs(30);
    while connected.load(Ordering::SeqCst) < subscribers && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let cpu_before = thread_cpu(&["bench-server", "store-writer"]);
    let wall = Instant::now();
    server_rt.block_on(async {
        let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
        for _ in 0..expected {
            tick.tick().await;
            let sent = base.elapsed().as_micros() as u64;
            state
                .store
                .append(&state.session.id(), message(format!("t={sent}")))
                .await
                .unwrap();
        }
    });
    client_rt.block_on(async {
        for c in clients {
            let _ = tokio::time::timeout(Duration::from_secs(60), c).await;
        }
    });
    let cpu = thread_cpu(&["bench-server", "store-writer"]) - cpu_before;
    let wall = wall.elapsed().as_secs_f64();
    let mut lat = latencies.lock().unwrap().clone();
    lat.sort_unstable();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0) as f64
            / 1000.0
    };
    println!(
        "3. {subscribers} subscribers, {rate} events/s for {seconds} s: {} of {} deliveries; latency p50 {:.2} ms, p99 {:.2} ms; server CPU {:.2} s over {:.2} s wall ({:.0}% of one core)",
        lat.len(),
        subscribers * expected,
        pct(0.50),
        pct(0.99),
        cpu,
        wall,
        100.0 * cpu / wall
    );
    soulgrid_stop(&server_rt, &state);

    // 4. Time travel: the documents at any point of a long log.
    let (cold, warm, slowest, n, kept) = time_travel(&server_rt, &tmp.path().join("past"), total);
    println!(
        "4. time travel over {total} events: the first point {cold:.0} ms (no checkpoint yet); once the checkpoints are built ({} kept, every {} events) any point in {warm:.0} ms (median), {slowest:.0} ms (slowest) of {n}",
        kept.0, kept.1
    );

    // 5. Exporting a large store: the exporting process's peak memory against a small store's.
    let (small, large) = if quick { (5, 50) } else { (10, 1024) };
    let (small_mb, small_rss, _) = export_memory(&tmp.path().join("export-small"), small);
    let (large_mb, large_rss, secs) = export_memory(&tmp.path().join("export-large"), large);
    println!(
        "5. team export: a {small_mb:.0} MB store, peak RSS {small_rss:.0} MB; a {large_mb:.0} MB store, peak RSS {large_rss:.0} MB, exported in {secs:.1} s ({:.0} MB/s)",
        large_mb / secs
    );
}

/// A store of about `mb` megabytes (messages of 2 KB, written straight into its event table),
/// then exported by a child process (`--export-child`): the store's size, the child's peak
/// resident memory (MB) and how long the export took.
fn export_memory(dir: &Path, mb: u64) -> (f64, f64, f64) {
    drop(Store::open(dir).unwrap()); // the schema
    let template = serde_json::to_value(app::domain::events::Event {
        id: 0,
        ts: 1_700_000_000_000,
        session_id: "bench".into(),
        kind: message("x".repeat(2000)),
    })
    .unwrap();
    let rows = mb * 1024 * 1024 / 2200;
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
fn export_child(dir: &Path) {
    let mut sink = std::io::sink();
    soulgrid::portable::team::export(dir, "bench", &mut sink, &mut |_| {}).unwrap();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    println!("{hwm}");
}

/// A log of `total` events (messages and process reports of eight agents), then the documents
/// at points spread over it, timed: the first point (cold), then (once the boot's warm-up has
/// built the checkpoints) the median and slowest of ten points, and the checkpoints kept.
fn time_travel(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    total: u64,
) -> (f64, f64, f64, usize, (usize, u64)) {
    use app::domain::process::ProcessState;
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
    let n = took.len();
    took.sort_by(|a, b| a.total_cmp(b));
    (
        cold,
        took[n / 2],
        took[n - 1],
        n,
        store.history_checkpoints(),
    )
}

fn soulgrid_stop(rt: &tokio::runtime::Runtime, state: &AppState) {
    rt.block_on(soulgrid::shut_down(state));
}
