//! P5: many SSE subscribers at a steady rate. The subscribers are another process (this
//! program with `--fan-out-child`), pinned to one core and single-threaded, so what they cost
//! is not counted as the server's and the server's CPU is its own: the threads of its runtime
//! and the store writer.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::serve::{message, now_micros, process_cpu, serve, sse_bytes_as, stop, thread_cpu};
use crate::table::{Row, Spread};

/// P5, or (`watch`) P5w: the same subscribers as spectators, each stream opened with a watch
/// link (every event as a spectator sees it, `domain::spectate`).
pub fn fan_out(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool, watch: bool) -> Row {
    fan_out_with(rt, dir, quick, watch, None)
}

/// P5pg: the store in the PostgreSQL database `url`, the subscribers split over the leader and
/// a follower of it (`postgres.rs`).
pub fn fan_out_on(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool, url: Option<&str>) -> Row {
    fan_out_with(rt, dir, quick, false, url)
}

#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
fn fan_out_with(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    quick: bool,
    watch: bool,
    postgres: Option<&str>,
) -> Row {
    let (subscribers, rate, seconds) = if quick {
        (100, 200u64, 2u64)
    } else {
        (1000, 1000u64, 5u64)
    };
    let (id, who) = match (watch, postgres) {
        (_, Some(_)) => (
            "P5pg",
            "SSE subscribers split over two servers on one PostgreSQL database (the leader, which writes, and a follower of it)",
        ),
        (false, None) => ("P5", "SSE subscribers"),
        (true, None) => ("P5w", "spectators on a watch link"),
    };
    eprintln!("{id}: {subscribers} {who} in another process, {rate} events/s for {seconds} s…");
    let row = Row::new(
        id,
        &format!("{subscribers} {who} at {rate} events/s for {seconds} s, the subscribers in another process pinned to one core: delivery latency; server CPU"),
        "p99 ≤ 50 ms, server ≤ 1 core",
    );
    let database: Vec<&str> = postgres.map_or(Vec::new(), |url| vec!["--database", url]);
    let (state, port) = rt.block_on(serve(dir, &database));
    let mut ports = port.to_string();
    let follower =
        postgres.map(|url| rt.block_on(crate::serve::serve_follower(&dir.join("follower"), url)));
    if let Some((_, p)) = &follower {
        ports.push_str(&format!(",{p}"));
    }
    let token = format!("sgw_bench{}", uuid::Uuid::new_v4().simple());
    if watch {
        let made = app::domain::events::EventKind::WatchMade {
            token_hash: soulgrid::secret::digest(&token),
            label: Some("bench".into()),
        };
        rt.block_on(state.store.append(&state.session.id(), made))
            .unwrap();
    }
    let after = state.store.last_event_id();
    // A follower catches up before its streams open (what it has is what they start from).
    if let Some((f, _)) = &follower {
        let start = Instant::now();
        while f.store.last_event_id() < after && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let expected = rate * seconds;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--fan-out-child", &ports, &after.to_string()])
        .args([subscribers.to_string(), expected.to_string()])
        .arg(if watch { token.as_str() } else { "-" })
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The child says when every subscriber's stream is open.
    if lines.next().and_then(Result::ok).as_deref() != Some("ready") {
        let _ = child.kill();
        let _ = child.wait();
        stop(rt, &state);
        return row.not_run("the subscribers did not connect");
    }
    // The server's runtime and the store's threads (its writer, `store-writer`, and the stage
    // that syncs and publishes what it committed, `store-sync`).
    let server_threads = ["bench-server", "store-"];
    let _keep = &follower;
    let cpu_before = thread_cpu(&server_threads);
    let client_before = process_cpu(child.id());
    let wall = Instant::now();
    rt.block_on(async {
        let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
        for _ in 0..expected {
            tick.tick().await;
            let text = format!("t={}", now_micros());
            state
                .store
                .append(&state.session.id(), message(text))
                .await
                .unwrap();
        }
    });
    let wall = wall.elapsed().as_secs_f64();
    let result = lines.next().and_then(Result::ok).unwrap_or_default();
    let cpu = thread_cpu(&server_threads) - cpu_before;
    // The subscribers' CPU until their last event (read before they exit).
    let client = process_cpu(child.id()) - client_before;
    let _ = child.wait();
    stop(rt, &state);
    if let Some((f, _)) = &follower {
        f.shutdown.cancel();
    }
    let (delivered, latencies) = result.split_once(';').unwrap_or(("0", ""));
    let delivered: u64 = delivered.parse().unwrap_or(0);
    let latencies: Vec<f64> = latencies
        .split(',')
        .filter_map(|v| v.parse::<f64>().ok())
        .collect();
    let Some(spread) = Spread::of(latencies) else {
        return row.not_run("nothing was delivered");
    };
    let cores = cpu / wall;
    row.measured(
        format!(
            "{}; {delivered} of {} delivered; server CPU {cpu:.2} s over {wall:.2} s ({:.0} % of one core); the subscribers' process {client:.2} s ({:.0} % of its core)",
            spread.show(),
            subscribers as u64 * expected,
            cores * 100.0,
            client / wall * 100.0
        ),
        spread.p99 <= 50.0 && cores <= 1.0 && delivered == subscribers as u64 * expected,
    )
}

/// The subscribers' process: pinned to the last core, one thread; says `ready` once every
/// stream is open, then, once all are in or a minute has passed, `DELIVERED;l1,l2,…`: how many
/// events arrived in all, and latencies in ms (every subscriber's every tenth event).
pub fn child(args: &[String]) -> i32 {
    let [ports, after, subscribers, expected, watch] = args else {
        eprintln!("--fan-out-child PORT[,PORT…] AFTER SUBSCRIBERS EXPECTED WATCH-TOKEN|-");
        return 2;
    };
    let watch: Option<String> = (watch != "-").then(|| watch.clone());
    let ports: Vec<u16> = ports.split(',').map(|p| p.parse().unwrap()).collect();
    let after: u64 = after.parse().unwrap();
    let (subscribers, expected): (usize, usize) =
        (subscribers.parse().unwrap(), expected.parse().unwrap());
    pin_to_last_core();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let samples = rt.block_on(async move {
        let (open_tx, mut open_rx) = tokio::sync::mpsc::channel::<()>(subscribers);
        let mut clients = Vec::new();
        for n in 0..subscribers {
            let open = open_tx.clone();
            let watch = watch.clone();
            let port = ports[n % ports.len()];
            clients.push(tokio::spawn(async move {
                let mut mine = Vec::with_capacity(expected / 10 + 1);
                let (mut seen, mut first) = (0usize, true);
                let marker = memchr::memmem::Finder::new(b"\"text\":\"t=");
                sse_bytes_as(port, after, watch.as_deref(), |chunk| {
                    if first {
                        let _ = open.try_send(());
                        first = false;
                    }
                    let now = now_micros();
                    for at in marker.find_iter(chunk) {
                        seen += 1;
                        if seen % 10 == 0 {
                            let digits = &chunk[at + marker.needle().len()..];
                            let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
                            let sent = std::str::from_utf8(&digits[..len])
                                .ok()
                                .and_then(|v| v.parse::<u64>().ok());
                            if let Some(sent) = sent {
                                mine.push(now.saturating_sub(sent) as f64 / 1000.0);
                            }
                        }
                    }
                    seen < expected
                })
                .await;
                (seen, mine)
            }));
        }
        for _ in 0..subscribers {
            if tokio::time::timeout(Duration::from_secs(30), open_rx.recv())
                .await
                .is_err()
            {
                return None;
            }
        }
        println!("ready");
        let (mut seen, mut all) = (0, Vec::new());
        for c in clients {
            if let Ok(Ok((theirs, mine))) = tokio::time::timeout(Duration::from_secs(60), c).await {
                seen += theirs;
                all.extend(mine);
            }
        }
        Some((seen, all))
    });
    match samples {
        Some((seen, all)) => {
            let text: Vec<String> = all.iter().map(|v| format!("{v:.3}")).collect();
            println!("{seen};{}", text.join(","));
            0
        }
        None => 1,
    }
}

fn pin_to_last_core() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it; the call only
    // reads it and applies to this process.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cores - 1, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}
