//! P8's floor: what the parts of one message's path that are not the server cost on this
//! machine, measured in the same run: the simulated CLI alone (a message on its stdin → its
//! reply's line on its stdout, no server reading it), and one fsync'd commit of one row.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::serve::sim;
use soulgrid::runtime::protocol::user_message;

use crate::serve::message;
use crate::store::{raw_db, RAW_ROWS};
use crate::table::Spread;

/// The simulated CLI as the server starts the lead (the same flags, in a folder of its own):
/// `rounds` messages one after another, each timed from its line written to the reply's
/// `assistant` line read (the line P8's reply event comes from). `None` if it did not answer.
pub fn sim_alone(dir: &Path, rounds: usize) -> Option<Spread> {
    std::fs::create_dir_all(dir.join(".soulgrid-sim")).ok()?;
    let mut child = Command::new(sim())
        .args(soulgrid::runtime::process::STREAM_JSON)
        .args(["--session-id", "00000000-0000-4000-8000-000000000008"])
        .args(["--append-system-prompt", "You are the lead of this team."])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let mut lines = BufReader::new(child.stdout.take()?).lines();
    let mut took = Vec::new();
    let mut answered = true;
    // The first rounds start the process: not what is measured (as in P8).
    'rounds: for i in 0..rounds + 3 {
        let line = user_message(&format!("p8 {i}"), &format!("floor-{i}"));
        let start = Instant::now();
        if stdin.write_all(format!("{line}\n").as_bytes()).is_err() {
            answered = false;
            break;
        }
        let mut replied = None;
        loop {
            let Some(Ok(out)) = lines.next() else {
                answered = false;
                break 'rounds;
            };
            let at = start.elapsed();
            let kind = serde_json::from_str::<serde_json::Value>(&out)
                .ok()
                .and_then(|v| v["type"].as_str().map(str::to_owned));
            match kind.as_deref() {
                Some("assistant") if replied.is_none() => replied = Some(at),
                Some("result") => break,
                _ => {}
            }
        }
        match replied {
            Some(t) if i >= 3 => took.push(t.as_secs_f64() * 1000.0),
            Some(_) => {}
            None => {
                answered = false;
                break;
            }
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answered.then_some(())?;
    Spread::of(took)
}

/// One message-sized row per fsync'd transaction (as the store commits), each commit timed.
pub fn commit_alone(dir: &Path, rounds: usize) -> Option<Spread> {
    let mut conn = raw_db(dir, "commit.db", RAW_ROWS);
    let body = serde_json::to_string(&message("x".repeat(40))).ok()?;
    let mut took = Vec::new();
    for i in 0..rounds {
        let start = Instant::now();
        let tx = conn.transaction().ok()?;
        tx.prepare_cached("INSERT INTO t (id, body) VALUES (?1, ?2)")
            .ok()?
            .execute(rusqlite::params![i as i64, body])
            .ok()?;
        tx.commit().ok()?;
        took.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    Spread::of(took)
}
