//! Every performance figure of docs/PERFORMANCE.md in one run, each against its target, printed as one
//! table (`make bench` runs it on the release build after the browser figures). It asserts
//! nothing: a figure short of its target is a `FAIL` row, never a failed command.
//!
//!     soulgrid-bench [--quick] [--only P3,P5] [--browser FILE] [--site-root DIR] [--viewless FILE]
//!
//! `--quick` runs every figure small (the smoke `make test` runs); `--browser` reads the
//! samples `end2end/tests/perf.spec.ts` wrote; `--site-root` (or `LEPTOS_SITE_ROOT`) is where
//! the built wasm is; `--viewless` is P6b's reference, the page's wasm built without the
//! console's views (`bench/viewless`, which `make bench` builds). The servers run in this process on a runtime whose threads are named
//! `bench-server` (their CPU time is read from /proc), except for P7, which runs the `soulgrid`
//! binary beside this one; `soulgrid-sim` beside it is the simulated CLI.

mod browser;
mod external;
mod fanout;
mod floor;
mod history;
mod inbox;
mod marker;
mod page;
// The tests' PostgreSQL, started the same way (a temporary cluster that stops itself).
#[path = "../../../tests/common/pg.rs"]
mod pg;
mod postgres;
mod process;
mod projects;
mod sandbox;
mod serve;
mod store;
mod table;
mod tools;

use std::path::PathBuf;

struct Opts {
    quick: bool,
    /// Only these figures (`--only P3,P5`; a prefix names several: `P6`).
    only: Vec<String>,
    browser: Option<PathBuf>,
    site_root: Option<PathBuf>,
    /// P6b's reference: `bench/viewless` built as the page's wasm is.
    viewless: Option<PathBuf>,
}

impl Opts {
    fn parse(args: &[String]) -> Result<Opts, String> {
        let mut opts = Opts {
            quick: false,
            only: Vec::new(),
            browser: None,
            site_root: std::env::var_os("LEPTOS_SITE_ROOT").map(PathBuf::from),
            viewless: None,
        };
        let mut it = args.iter().skip(1);
        while let Some(arg) = it.next() {
            let mut value = || {
                it.next()
                    .map(PathBuf::from)
                    .ok_or(format!("{arg} needs a value"))
            };
            match arg.as_str() {
                "--quick" => opts.quick = true,
                "--only" => {
                    let list = value()?.display().to_string();
                    opts.only = list.split(',').map(|s| s.trim().to_uppercase()).collect();
                }
                "--browser" => opts.browser = Some(value()?),
                "--site-root" => opts.site_root = Some(value()?),
                "--viewless" => opts.viewless = Some(value()?),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(opts)
    }

    fn wants(&self, id: &str) -> bool {
        let id = id.to_uppercase();
        self.only.is_empty() || self.only.iter().any(|o| id.starts_with(o.as_str()))
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    // The children this program starts to measure from outside.
    match args.get(1).map(String::as_str) {
        Some("--export-child") if args.len() == 3 => {
            std::process::exit(history::export_child(std::path::Path::new(&args[2])))
        }
        Some("--fan-out-child") => std::process::exit(fanout::child(&args[2..])),
        _ => {}
    }
    let opts = match Opts::parse(&args) {
        Ok(opts) => opts,
        Err(e) => {
            eprintln!("soulgrid-bench: {e}");
            std::process::exit(2);
        }
    };
    // Made before the runtimes, so removed after them: a server's tasks still running when the
    // folder went would make parts of it again.
    let tmp = tempfile::tempdir().unwrap();
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-server")
        .enable_all()
        .build()
        .unwrap();
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()
        .unwrap();
    let dir = |name: &str| tmp.path().join(name);
    let q = opts.quick;
    let started = std::time::Instant::now();
    let mut rows = browser::rows(opts.browser.as_deref());
    rows.retain(|r| opts.wants(r.id));
    // P1's and P2's references, measured here: the server's part of each.
    if let Some(p1) = rows.iter_mut().find(|r| r.id == "P1") {
        if let Some(share) = marker::server_share(&server, &client, &dir("p1"), q) {
            p1.ratio = Some(share);
        }
    }
    if let Some(p2) = rows.iter_mut().find(|r| r.id == "P2") {
        if let Some(share) = inbox::server_share(&server, &client, &dir("p2"), q) {
            p2.ratio = Some(share);
        }
    }
    // P3's rate, for P3pg's comparison.
    let p3 = std::cell::Cell::new(None);
    let figures: [(&str, &dyn Fn() -> table::Row); 17] = [
        ("P3", &|| {
            let (row, rate) = store::group_commit(&server, &dir("p3"), q);
            p3.set(Some(rate));
            row
        }),
        ("P3pg", &|| {
            postgres::group_commit(&server, &dir("p3pg"), q, p3.get())
        }),
        ("P4", &|| store::catch_up(&server, &client, &dir("p4"), q)),
        ("P5", &|| fanout::fan_out(&server, &dir("p5"), q, false)),
        ("P5w", &|| fanout::fan_out(&server, &dir("p5w"), q, true)),
        ("P5pg", &|| postgres::fan_out(&server, &dir("p5pg"), q)),
        ("F1", &|| postgres::failover(&dir("f1"), q)),
        ("P6a", &|| page::ssr(&server, &dir("p6"), q)),
        ("P6b", &|| {
            page::wasm_size(opts.site_root.as_deref(), opts.viewless.as_deref())
        }),
        ("P7a", &|| process::memory(&server, &dir("p7a"), q)),
        ("P7b", &|| process::cold_start(&server, &dir("p7b"), q)),
        ("P8", &|| {
            process::message_path(&server, &client, &dir("p8"), q)
        }),
        ("H1", &|| history::time_travel(&server, &dir("h1"), q)),
        ("H2", &|| history::export_memory(&dir("h2"), q)),
        ("T1", &|| tools::round_trip(q)),
        ("E1", &|| external::round_trip(q)),
        ("B1", &|| sandbox::start_cost(&dir("b1"), q)),
    ];
    for (id, measure) in figures {
        if opts.wants(id) {
            rows.push(measure());
        }
    }
    if opts.wants("W1") || opts.wants("W2") {
        let mut w = projects::rows(&server, &client, &dir("w"), q);
        w.retain(|r| opts.wants(r.id));
        // Its part in the browser, measured by perf-radar.spec.ts: both must meet the target.
        if let (Some(w2), Some((s, build))) = (
            w.iter_mut().find(|r| r.id == "W2"),
            browser::radar(opts.browser.as_deref()),
        ) {
            w2.measured.push_str(&format!(
                "; in Chromium, on a one-file repository, until the projects panel shows it: {} ({build} build)",
                s.show()
            ));
            if s.p95 > 1000.0 {
                w2.verdict = table::Verdict::Fail;
            }
        }
        rows.extend(w);
    }
    println!(
        "soulgrid-bench{}: {} cores, {} GiB, {} (in {:.0} s)\n",
        if q {
            " --quick (small figures: a smoke, not the targets' sizes)"
        } else {
            ""
        },
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        memory_gib(),
        soulgrid::clock::Clock::system().now_iso(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", table::render(&rows));
}

fn memory_gib() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| (kb + 512 * 1024) / 1024 / 1024)
}
