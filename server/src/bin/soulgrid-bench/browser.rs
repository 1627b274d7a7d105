//! P1, P2 and P6's time to hydrated are measured in Chromium by `end2end/tests/perf.spec.ts`
//! (`make bench` runs it against the release build first); it writes its samples to a JSON
//! file, `{"p1": [ms…], "p1_in_page": [ms…], "p2": [ms…], "p2_in_page": [ms…], "hydrated": [ms…],
//! "queue_next": [ms…], "wire_bytes": [n], "wire_raw_bytes": [n], "phone_fcp": [ms…],
//! "phone_hydrated": [ms…], "phone_tap": [ms…], "phone_drawn": [ms…], "radar_in_browser": [ms…],
//! "build": "release"}`, read here (`queue_next`,
//! G1, from `perf-queue.spec.ts`; P6d and P6e from `perf-phone.spec.ts`). `p1_in_page` and `p2_in_page` are their figures' part in the
//! page: the event's arrival at the `EventSource` → the change in the page.

use std::path::Path;

use serde::Deserialize;

use crate::table::{ms, Row, Spread};

#[derive(Debug, Default, Deserialize)]
struct Samples {
    #[serde(default)]
    p1: Vec<f64>,
    #[serde(default)]
    p2: Vec<f64>,
    #[serde(default)]
    p1_in_page: Vec<f64>,
    #[serde(default)]
    p2_in_page: Vec<f64>,
    #[serde(default)]
    hydrated: Vec<f64>,
    /// `end2end/tests/perf-queue.spec.ts`: an answer in the approval queue → the next focused.
    #[serde(default)]
    queue_next: Vec<f64>,
    /// `perf-phone.spec.ts`: a first visit's bytes as sent, and uncompressed (one sample).
    #[serde(default)]
    wire_bytes: Vec<f64>,
    #[serde(default)]
    wire_raw_bytes: Vec<f64>,
    /// The wasm's part of the first visit, as sent.
    #[serde(default)]
    wire_wasm_bytes: Vec<f64>,
    /// `perf-phone.spec.ts`, on the phone profile: first paint, hydrated, the first tap.
    #[serde(default)]
    phone_fcp: Vec<f64>,
    #[serde(default)]
    phone_hydrated: Vec<f64>,
    #[serde(default)]
    phone_tap: Vec<f64>,
    /// The tap → the chosen conversation drawn (the frame after the tap's answer).
    #[serde(default)]
    phone_drawn: Vec<f64>,
    /// Navigation start → the wasm's last byte arrived, on the phone profile.
    #[serde(default)]
    phone_wasm_end: Vec<f64>,
    /// `perf-radar.spec.ts`: a write in a worktree → the projects panel shows it (W2's part in
    /// the browser).
    #[serde(default)]
    radar_in_browser: Vec<f64>,
    #[serde(default)]
    build: String,
}

pub fn rows(file: Option<&Path>) -> Vec<Row> {
    let p1 = Row::new(
        "P1",
        "a marker line on a simulated agent's stdout → the seat's state changed in Chromium",
        "p95 ≤ 16 ms (one frame)",
    );
    let p2 = Row::new(
        "P2",
        "a reply appended to the human's inbox file (with the lock protocol) → rendered in Chromium",
        "p95 ≤ 25 ms",
    );
    let p6 = Row::new(
        "P6c",
        "the page's time to hydrated in Chromium (navigation start → data-hydrated)",
        "p95 ≤ 300 ms",
    );
    let g1 = Row::new(
        "G1",
        "100 permission requests in the approval queue: `a` on the focused one → the next one focused, in Chromium",
        "p95 ≤ 16 ms (one frame)",
    );
    let p6d = Row::new(
        "P6d",
        "the page's bytes over the wire on a first visit (all that `/` loads, as served to Chromium)",
        "≤ 350 KB",
    );
    let p6e = Row::new(
        "P6e",
        "a first visit on a mid-range phone profile (4× CPU slowdown, 1.6 Mbps / 150 ms, empty cache): navigation start → data-hydrated; the first tap on a face → answered (the face pressed and the sheet open, drawn; judged), and → its conversation drawn (the frame after; said, not judged)",
        "p95 ≤ 2.5 s; tap p95 ≤ 100 ms",
    );
    let samples = match file.map(std::fs::read_to_string) {
        None => {
            let why = "no browser figures (make bench runs Chromium first)";
            return [p1, p2, p6, g1, p6d, p6e]
                .into_iter()
                .map(|r| r.not_run(why))
                .collect();
        }
        Some(Err(e)) => {
            let why = format!("the browser figures cannot be read: {e}");
            return [p1, p2, p6, g1, p6d, p6e]
                .into_iter()
                .map(|r| r.not_run(&why))
                .collect();
        }
        Some(Ok(text)) => serde_json::from_str::<Samples>(&text).unwrap_or_default(),
    };
    let build = if samples.build.is_empty() {
        "?".to_string()
    } else {
        samples.build.clone()
    };
    let row = |row: Row, values: Vec<f64>, limit: f64, p95: bool| match Spread::of(values) {
        None => row.not_run("no samples"),
        Some(s) => {
            let at = if p95 { s.p95 } else { s.p50 };
            row.measured(format!("{} ({build} build)", s.show()), at <= limit)
        }
    };
    // The part in the page, said after the whole.
    let in_page = |mut row: Row, values: Vec<f64>| {
        if let Some(s) = Spread::of(values) {
            row.measured.push_str(&format!(
                "; in the page (the event's arrival → the change): p50 {} / p95 {} ms",
                ms(s.p50),
                ms(s.p95)
            ));
        }
        row
    };
    let (p6d, p6e) = (wire(p6d, &samples, &build), phone(p6e, &samples, &build));
    vec![
        in_page(row(p1, samples.p1, 16.0, true), samples.p1_in_page),
        in_page(row(p2, samples.p2, 25.0, true), samples.p2_in_page),
        row(p6, samples.hydrated, 300.0, true),
        row(g1, samples.queue_next, 16.0, true),
        p6d,
        p6e,
    ]
}

/// W2 in the browser: a write in a worktree → the projects panel shows it, and the build it
/// was measured on; `None` without samples.
pub fn radar(file: Option<&Path>) -> Option<(Spread, String)> {
    let samples: Samples = serde_json::from_str(&std::fs::read_to_string(file?).ok()?).ok()?;
    Some((Spread::of(samples.radar_in_browser)?, samples.build))
}

fn wire(row: Row, samples: &Samples, build: &str) -> Row {
    let (Some(&sent), Some(&raw)) = (samples.wire_bytes.first(), samples.wire_raw_bytes.first())
    else {
        return row.not_run("no samples");
    };
    let row = row.measured(
        format!(
            "{} KB ({} KB uncompressed; {build} build)",
            (sent / 1024.0).round(),
            (raw / 1024.0).round()
        ),
        sent <= 350.0 * 1024.0,
    );
    match samples.wire_wasm_bytes.first() {
        Some(&wasm) => {
            let rest = sent - wasm;
            row.ratio(format!(
                "the wasm is {} KB of it, everything else {} KB: within 350 KB the wasm would \
                 have to be {} KB as sent (P6b: what it is made of)",
                (wasm / 1024.0).round(),
                (rest / 1024.0).round(),
                ((350.0 * 1024.0 - rest).max(0.0) / 1024.0).round()
            ))
        }
        None => row,
    }
}

fn phone(row: Row, samples: &Samples, build: &str) -> Row {
    let (Some(hydrated), Some(tap)) = (
        Spread::of(samples.phone_hydrated.clone()),
        Spread::of(samples.phone_tap.clone()),
    ) else {
        return row.not_run("no samples (measured on the release build only)");
    };
    let drawn = Spread::of(samples.phone_drawn.clone())
        .map(|d| {
            format!(
                ", its conversation drawn p50 {} / p95 {} ms",
                ms(d.p50),
                ms(d.p95)
            )
        })
        .unwrap_or_default();
    let fcp = Spread::of(samples.phone_fcp.clone())
        .map(|f| format!("; first paint p50 {} / p95 {} ms", ms(f.p50), ms(f.p95)))
        .unwrap_or_default();
    let row = row.measured(
        format!(
            "hydrated p50 {} / p95 {} ms; tap p50 {} / p95 {} ms{drawn}{fcp} (n={}, {build} build)",
            ms(hydrated.p50),
            ms(hydrated.p95),
            ms(tap.p50),
            ms(tap.p95),
            hydrated.n
        ),
        hydrated.p95 <= 2500.0 && tap.p95 <= 100.0,
    );
    // Why hydrated is where it is: the wasm's last byte, and what comes after it.
    let (Some(arrived), Some(&wasm)) = (
        Spread::of(samples.phone_wasm_end.clone()),
        samples.wire_wasm_bytes.first(),
    ) else {
        return row;
    };
    if arrived.p95 <= 0.0 {
        return row;
    }
    let after = (hydrated.p95 - arrived.p95).max(0.0);
    let budget = 2500.0 - after;
    row.ratio(format!(
        "the wasm's last byte (its {} KB as sent) arrived p50 {} / p95 {} ms after navigation \
         start, {} ms before hydrated (compiled and run at 4×): hydrated by 2.5 s needs it in by \
         {} ms, about {} KB at this network's rate",
        (wasm / 1024.0).round(),
        ms(arrived.p50),
        ms(arrived.p95),
        ms(after),
        ms(budget.max(0.0)),
        ((wasm / 1024.0) * budget.max(0.0) / arrived.p95).round()
    ))
}
