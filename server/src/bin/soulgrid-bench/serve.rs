//! What the figures share: a server in this process on a free port, a plain SSE client, the
//! events they append, and the CPU time of named threads.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app::domain::events::EventKind;
use leptos::prelude::LeptosOptions;
use soulgrid::state::AppState;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A message from the human to the lead.
pub fn message(text: String) -> EventKind {
    EventKind::UserMessage {
        message_id: soulgrid::store::new_message_id(),
        speaker_name: "Bench".into(),
        seat: 4,
        text,
        target_agent: None,
    }
}

/// Microseconds since the epoch: a clock two processes on this machine share.
pub fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_micros() as u64
}

/// CPU seconds used so far by this process's threads whose name starts with one of `prefixes`.
pub fn thread_cpu(prefixes: &[&str]) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut total = 0.0;
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if prefixes.iter().any(|p| comm.trim().starts_with(p)) {
            total += cpu_of(&task.path().join("stat"));
        }
    }
    total
}

/// CPU seconds (user and system) in a `/proc` `stat` file (a process's or a thread's); NaN
/// when it cannot be read.
fn cpu_of(stat: &std::path::Path) -> f64 {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // Fields after the ")" that ends the name: utime is the 12th, stime the 13th.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return f64::NAN;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| f.get(i).and_then(|v| v.parse::<u64>().ok()))
        .sum();
    ticks as f64 / 100.0 // USER_HZ on Linux
}

/// The human's login every server of the bench is given (`--token`); its requests carry it.
pub const LOGIN: &str = "bench-login-token";

/// A server on a free port in this process, on `data_dir`, with `extra` flags.
pub async fn serve(data_dir: &Path, extra: &[&str]) -> (AppState, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (addr, dir) = (format!("127.0.0.1:{port}"), data_dir.display().to_string());
    let mut args = vec![
        "soulgrid",
        "--addr",
        &addr,
        "--data-dir",
        &dir,
        "--human-name",
        "Bench",
        "--token",
        LOGIN,
    ];
    args.extend_from_slice(extra);
    let config = <soulgrid::config::Config as clap::Parser>::try_parse_from(args).unwrap();
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

/// A follower of the team in the PostgreSQL database `url` (`cluster`): it serves the log from
/// its replica and runs nothing.
pub async fn serve_follower(data_dir: &Path, url: &str) -> (AppState, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (addr, dir) = (format!("127.0.0.1:{port}"), data_dir.display().to_string());
    let args = [
        "soulgrid",
        "--addr",
        &addr,
        "--data-dir",
        &dir,
        "--database",
        url,
        "--token",
        LOGIN,
    ];
    let config = <soulgrid::config::Config as clap::Parser>::try_parse_from(args).unwrap();
    std::fs::create_dir_all(data_dir).unwrap();
    let lock = std::sync::Arc::new(soulgrid::data_dir::DataDirLock::take(data_dir).unwrap());
    let part = soulgrid::role::Part::Follower {
        role: soulgrid::role::Role::follower(None),
        lock,
    };
    let state = soulgrid::boot_as(
        &config,
        LeptosOptions::builder().output_name("soulgrid").build(),
        soulgrid::clock::Clock::system(),
        part,
    )
    .await
    .unwrap();
    let router = soulgrid::http::router(state.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (state, port)
}

/// A server as [`serve`] makes one, whose agents are the simulated CLI beside this program
/// (and sleep at once: no distil turn).
pub fn serve_sim(rt: &tokio::runtime::Runtime, data_dir: &Path) -> (AppState, u16) {
    let sim = sim().display().to_string();
    rt.block_on(serve(
        data_dir,
        &["--claude-cmd", &sim, "--distill-timeout", "0s"],
    ))
}

pub fn stop(rt: &tokio::runtime::Runtime, state: &AppState) {
    rt.block_on(soulgrid::shut_down(state));
}

/// Watches the stream from after `after` on `client`: each event's data line that `pick` finds
/// something in comes out of the receiver with when it was read (microseconds since the epoch).
/// The watch ends when the receiver is dropped (at its next chunk) or aborted.
pub fn watch<T: Send + 'static>(
    client: &tokio::runtime::Runtime,
    port: u16,
    after: u64,
    mut pick: impl FnMut(&str) -> Option<T> + Send + 'static,
) -> (
    tokio::task::JoinHandle<()>,
    tokio::sync::mpsc::UnboundedReceiver<(T, u64)>,
) {
    let (seen_tx, seen_rx) = tokio::sync::mpsc::unbounded_channel();
    let watcher = client.spawn(async move {
        sse_client(port, after, |chunk| {
            let now = now_micros();
            for data in chunk.lines().filter_map(|l| l.strip_prefix("data: ")) {
                if let Some(found) = pick(data) {
                    let _ = seen_tx.send((found, now));
                }
            }
            !seen_tx.is_closed()
        })
        .await;
    });
    (watcher, seen_rx)
}

/// Opens `GET /api/events?after=N` and calls `on_data` with each run of whole lines of the
/// body until it returns false (or the stream ends).
pub async fn sse_client(port: u16, after: u64, mut on_data: impl FnMut(&str) -> bool) {
    sse_bytes(port, after, |bytes| {
        on_data(&String::from_utf8_lossy(bytes))
    })
    .await
}

/// [`sse_client`] without the text: whole lines as bytes, copied once (the fan-out's many
/// subscribers share one core, so what a line costs them is part of what is measured).
pub async fn sse_bytes(port: u16, after: u64, on_data: impl FnMut(&[u8]) -> bool) {
    sse_bytes_as(port, after, None, on_data).await
}

/// As [`sse_bytes`], with a watch link's token (a spectator's stream) when given.
pub async fn sse_bytes_as(
    port: u16,
    after: u64,
    watch: Option<&str>,
    mut on_data: impl FnMut(&[u8]) -> bool,
) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let watch = watch.map(|t| format!("&watch={t}")).unwrap_or_default();
    // HTTP/1.0: the body is not chunked, so it can be scanned as plain SSE text.
    let req =
        format!("GET /api/events?after={after}{watch} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {LOGIN}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    // What has come and is not handed over yet (the part of a line after the last newline).
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    loop {
        let start = buf.len();
        if buf.capacity() - start < 16 * 1024 {
            buf.reserve(64 * 1024);
        }
        let n = s.read_buf(&mut buf).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        // Hand over whole lines only.
        if let Some(end) = memchr::memrchr(b'\n', &buf[start..]).map(|i| start + i) {
            if !on_data(&buf[..=end]) {
                return;
            }
            buf.drain(..=end);
        }
    }
}

/// CPU seconds (user and system) that the process `pid` has used.
pub fn process_cpu(pid: u32) -> f64 {
    cpu_of(std::path::Path::new(&format!("/proc/{pid}/stat")))
}

/// A plain HTTP/1.1 request on a fresh connection: the status and the body (status 0: nobody
/// answered).
pub async fn request(port: u16, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return (0, String::new());
    };
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {LOGIN}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut out = Vec::new();
    if s.write_all(req.as_bytes()).await.is_err() || s.read_to_end(&mut out).await.is_err() {
        return (0, String::new());
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Waits until `ready` holds, checking every 20 ms, at most `limit`; false if it never did.
pub async fn until(limit: Duration, mut ready: impl AsyncFnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if ready().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// The simulated CLI beside this program.
pub fn sim() -> std::path::PathBuf {
    std::env::current_exe()
        .unwrap()
        .with_file_name("soulgrid-sim")
}
