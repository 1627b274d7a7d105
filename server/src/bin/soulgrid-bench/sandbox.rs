//! B1: what the agents' sandbox adds to an agent's start. The simulated CLI, as the server
//! starts an agent (the same flags, its folder in a data directory), started inside the sandbox
//! (bubblewrap, the places the server gives it) and outside it in turn, each start timed from
//! the spawn to its answer's first line for its first message.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use soulgrid::runtime::protocol::user_message;
use soulgrid::sandbox::{Bind, Places, Sandbox, SandboxMode};

use crate::serve::sim;
use crate::table::{Row, Spread};

/// One start of the simulated CLI by `sandbox` in `data`'s agent folder: ms to its answer.
fn one_start(sandbox: &Sandbox, data: &Path, i: usize) -> Option<f64> {
    let work = data.join("agents/4");
    std::fs::create_dir_all(work.join(".soulgrid-sim")).ok()?;
    let mut args: Vec<std::ffi::OsString> = soulgrid::runtime::process::STREAM_JSON
        .iter()
        .map(Into::into)
        .collect();
    let session = format!("00000000-0000-4000-8000-{i:012}");
    args.extend(
        [
            "--session-id",
            &session,
            "--append-system-prompt",
            "You lead.",
        ]
        .map(Into::into),
    );
    let places = Places {
        data_dir: data.to_path_buf(),
        binds: vec![Bind::Rw(work.clone()), Bind::Ro(sim())],
        egress: None,
    };
    let start = Instant::now();
    let mut child = sandbox
        .command(sim().as_os_str(), &args, &places)
        .current_dir(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let line = user_message("b1", &format!("b1-{i}"));
    stdin.write_all(format!("{line}\n").as_bytes()).ok()?;
    let answered = BufReader::new(child.stdout.take()?)
        .lines()
        .map_while(Result::ok)
        .any(|l| l.contains("\"assistant\""));
    let took = start.elapsed().as_secs_f64() * 1000.0;
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answered.then_some(took)
}

pub fn start_cost(dir: &Path, quick: bool) -> Row {
    let row = Row::new(
        "B1",
        "an agent's start in its sandbox: the simulated CLI spawned → its first answer's line, inside the sandbox (bubblewrap) against outside it, in turn",
        "p95 ≤ outside's + 150 ms",
    );
    let inside = match Sandbox::detect(SandboxMode::On) {
        Ok(s) => s,
        Err(e) => return row.not_run(&e),
    };
    let outside = Sandbox::off("B1's reference");
    let rounds = if quick { 4 } else { 30 };
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    for i in 0..rounds {
        let data = dir.join(format!("d{i}"));
        ins.extend(one_start(&inside, &data.join("in"), i));
        outs.extend(one_start(&outside, &data.join("out"), i));
    }
    match (Spread::of(ins), Spread::of(outs)) {
        (Some(i), Some(o)) => row
            .measured(format!("inside {}", i.show()), i.p95 <= o.p95 + 150.0)
            .ratio(format!(
                "outside {}: the sandbox adds p50 {:.1} / p95 {:.1} ms ({})",
                o.show(),
                i.p50 - o.p50,
                i.p95 - o.p95,
                inside.said()
            )),
        _ => row.not_run("the simulated CLI did not answer"),
    }
}
