//! The store on PostgreSQL (a cluster this program starts, syncing its commits as a real one
//! does: `tests/common/pg.rs`): P3pg, durable appends with group commit, beside P3's SQLite
//! figure; P5pg, 1,000 SSE subscribers split over the leader and a follower (which follows the
//! log by `LISTEN/NOTIFY`); F1, how long after the leader's `SIGKILL` a follower serves as the
//! leader.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use soulgrid::store::{Database, Options, Store};

use crate::pg;
use crate::table::{thousands, Row};

/// P3pg, with P3's figure (`sqlite`, events/s) beside it when it was measured in this run.
pub fn group_commit(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    quick: bool,
    sqlite: Option<f64>,
) -> Row {
    eprintln!("P3pg: group commit on PostgreSQL…");
    pg::durable();
    let (appenders, per) = if quick { (64, 20) } else { (64, 200) };
    let url = pg::database();
    let store = Store::open_with(
        dir,
        Options {
            database: Database::Postgres(url),
            ..Default::default()
        },
    )
    .unwrap();
    let rate = rt.block_on(crate::store::group_commit_rate(store, appenders, per));
    let raw = raw_rate(&pg::database(), appenders * per, appenders);
    let row = Row::new(
        "P3pg",
        "P3 on PostgreSQL 15 (a local cluster, fsync on): durable appends with group commit, 64 concurrent appenders",
        "P3's: ≥ 50,000 events/s",
    )
    .measured(format!("{} events/s", thousands(rate)), rate >= 50_000.0);
    let beside = sqlite.map_or(String::new(), |s| {
        format!(
            "; {:.0} % of P3 on SQLite in this run ({} events/s)",
            100.0 * rate / s,
            thousands(s)
        )
    });
    row.ratio(format!(
        "{:.0} % of raw batched inserts on the same cluster: an event row and a document row per event, {appenders} of each per durable transaction, one client ({} events/s){beside}",
        100.0 * rate / raw,
        thousands(raw)
    ))
}

/// The database's own pace for what a batch of group commit writes: one client inserting
/// `batch` event rows and `batch` document rows (each in one statement) per durable
/// transaction, `rows` in all: events/s.
fn raw_rate(url: &str, rows: usize, batch: usize) -> f64 {
    let url = url.to_string();
    // The blocking client runs a runtime of its own: off the bench's.
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.batch_execute(
            "CREATE TABLE e (id BIGINT PRIMARY KEY, body TEXT NOT NULL);
             CREATE TABLE d (id TEXT PRIMARY KEY, body TEXT NOT NULL);",
        )
        .unwrap();
        let body = serde_json::to_string(&crate::serve::message("x".repeat(40))).unwrap();
        let values = |n: usize| -> String {
            (0..n)
                .map(|r| format!("(${}, ${})", 2 * r + 1, 2 * r + 2))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let events = c
            .prepare(&format!(
                "INSERT INTO e (id, body) VALUES {}",
                values(batch)
            ))
            .unwrap();
        let docs = c
            .prepare(&format!(
                "INSERT INTO d (id, body) VALUES {}",
                values(batch)
            ))
            .unwrap();
        let start = Instant::now();
        for chunk in 0..rows / batch {
            let ids: Vec<i64> = (0..batch).map(|i| (chunk * batch + i) as i64).collect();
            let keys: Vec<String> = (0..batch)
                .map(|_| format!("message:{}", soulgrid::store::new_message_id()))
                .collect();
            let mut tx = c.transaction().unwrap();
            let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = Vec::new();
            for id in &ids {
                params.extend([id as &(dyn postgres::types::ToSql + Sync), &body]);
            }
            tx.execute(&events, &params).unwrap();
            params.clear();
            for key in &keys {
                params.extend([key as &(dyn postgres::types::ToSql + Sync), &body]);
            }
            tx.execute(&docs, &params).unwrap();
            tx.commit().unwrap();
        }
        (rows / batch * batch) as f64 / start.elapsed().as_secs_f64()
    })
    .join()
    .unwrap()
}

/// P5pg: subscribers split over two servers on one database, the leader writing.
pub fn fan_out(rt: &tokio::runtime::Runtime, dir: &Path, quick: bool) -> Row {
    pg::durable();
    let url = pg::database();
    crate::fanout::fan_out_on(rt, dir, quick, Some(&url))
}

/// The `soulgrid` binary beside this one.
fn soulgrid() -> std::path::PathBuf {
    std::env::current_exe().unwrap().with_file_name("soulgrid")
}

fn start(dir: &Path, port: u16, url: &str, lease: &str) -> Child {
    Command::new(soulgrid())
        .args(["--database", url, "--lease", lease])
        .args(["--claude-cmd", "/nonexistent/claude"])
        .env("SOULGRID_ADDR", format!("127.0.0.1:{port}"))
        .env("SOULGRID_DATA_DIR", dir)
        .env("SOULGRID_TOKEN", super::serve::LOGIN)
        .env("LEPTOS_OUTPUT_NAME", "soulgrid")
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting the soulgrid binary beside the bench")
}

/// Kills and reaps a server this program started.
fn end(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// What `/healthz` says this server is, if it answers.
fn role(port: u16) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let body = text.split_once("\r\n\r\n")?.1;
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    Some(v["role"].as_str()?.to_string())
}

fn wait_for(port: u16, want: &str, within: Duration) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < within {
        if role(port).as_deref() == Some(want) {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

/// F1: two servers on one database; the leader `SIGKILL`ed; until the follower answers as the
/// leader. Several times: the spread.
pub fn failover(dir: &Path, quick: bool) -> Row {
    let (lease, rounds) = (Duration::from_secs(5), if quick { 1 } else { 3 });
    eprintln!("F1: failover, {rounds} times…");
    let row = Row::new(
        "F1",
        "failover: two servers on one PostgreSQL database, the leader SIGKILLed, until the follower's /healthz says leader (a 5 s lease)",
        "≤ the lease + 5 s (10 s)",
    );
    if !soulgrid().is_file() {
        return row.not_run("no soulgrid binary beside the bench");
    }
    pg::durable();
    let mut times = Vec::new();
    for round in 0..rounds {
        let url = pg::database();
        let (a, b) = (free_port(), free_port());
        let (da, db) = (dir.join(format!("{round}a")), dir.join(format!("{round}b")));
        let mut leader = start(&da, a, &url, "5s");
        if wait_for(a, "leader", Duration::from_secs(30)).is_none() {
            end(&mut leader);
            return row.not_run("the first server did not lead");
        }
        let mut follower = start(&db, b, &url, "5s");
        if wait_for(b, "follower", Duration::from_secs(30)).is_none() {
            end(&mut leader);
            end(&mut follower);
            return row.not_run("the second server did not follow");
        }
        // A little after a renewal, at a point of the lease nobody chose.
        std::thread::sleep(Duration::from_millis(700 * (round as u64 + 1)));
        let _ = leader.kill();
        let _ = leader.wait();
        let took = wait_for(b, "leader", lease + Duration::from_secs(30));
        // SAFETY: kill(2) on the child this program started.
        unsafe { libc::kill(follower.id() as i32, libc::SIGTERM) };
        let _ = follower.wait();
        match took {
            Some(t) => times.push(t.as_secs_f64()),
            None => return row.not_run("the follower never led"),
        }
    }
    let worst = times.iter().cloned().fold(0.0, f64::max);
    let shown: Vec<String> = times.iter().map(|t| format!("{t:.1} s")).collect();
    row.measured(
        format!("{} (worst {worst:.1} s)", shown.join(", ")),
        worst <= (lease + Duration::from_secs(5)).as_secs_f64(),
    )
}
