//! A real PostgreSQL for the tests: one temporary cluster per test process, made with `initdb`
//! in a temporary folder and started with `pg_ctl` on a free port of 127.0.0.1 the first time a
//! test asks for a database; each test gets a database of its own in it.
//!
//! The cluster stops itself: a keeper shell, in a process group of its own, holds the server
//! and waits on a pipe from this process; when this process ends (however it ends) the pipe
//! closes and the keeper stops the server (`-m immediate`) and removes the folder.
//!
//! PostgreSQL refuses to run as root: as root, the folder is given to the `postgres` user and
//! the commands run as it (`runuser`). The binaries are found in `$SOULGRID_PG_BIN`, else in
//! Debian's newest `/usr/lib/postgresql/*/bin`, else on `PATH` (`scripts/setup.sh --test`
//! installs Debian's `postgresql`).
//!
//! The tests' cluster does not sync (`fsync=off`: nothing here survives the process anyway);
//! `make bench` includes this file too and asks for a durable one ([`durable`]) before its
//! first database.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

struct Cluster {
    port: u16,
    /// Holds the pipe the keeper waits on: dropped only when this process ends.
    _keeper: Mutex<Child>,
}

static DURABLE: AtomicBool = AtomicBool::new(false);

/// This process's cluster syncs its commits, as a real one does (before the first database).
pub fn durable() {
    DURABLE.store(true, Ordering::SeqCst);
}

/// A new, empty database in this process's cluster: its URL.
pub fn database() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let port = cluster().port;
    let name = format!(
        "t{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    let admin = format!("postgres://soulgrid@127.0.0.1:{port}/postgres");
    let create = format!("CREATE DATABASE {name}");
    // The blocking client cannot run on a tokio thread.
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&admin, postgres::NoTls)
            .unwrap_or_else(|e| panic!("connecting to the test cluster: {e}"));
        c.batch_execute(&create)
            .unwrap_or_else(|e| panic!("{create}: {e}"));
    })
    .join()
    .unwrap();
    format!("postgres://soulgrid@127.0.0.1:{port}/{name}")
}

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(start)
}

fn bin(name: &str) -> PathBuf {
    if let Ok(dir) = std::env::var("SOULGRID_PG_BIN") {
        return PathBuf::from(dir).join(name);
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join(name).is_file())
        .collect();
    debian.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    debian
        .pop()
        .map_or_else(|| PathBuf::from(name), |b| b.join(name))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `program args…`, as the `postgres` user when this process is root.
fn as_owner(program: &std::path::Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn start() -> Cluster {
    // Removed here if the cluster does not start; by the keeper once it did.
    let temp = tempfile::Builder::new()
        .prefix("soulgrid-pg-")
        .tempdir()
        .unwrap();
    let dir = temp.path().to_path_buf();
    if is_root() {
        let owned = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(owned.success(), "chown of {} failed", dir.display());
    }
    let data = dir.join("data");
    let initdb = bin("initdb");
    let made = as_owner(&initdb)
        .args(["-D"])
        .arg(&data)
        .args(["-U", "soulgrid", "--auth=trust", "-E", "UTF8", "--no-sync"])
        .stdout(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "running {} failed ({e}): install PostgreSQL (scripts/setup.sh --test) or set SOULGRID_PG_BIN",
                initdb.display()
            )
        });
    assert!(
        made.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let fsync = if DURABLE.load(Ordering::SeqCst) {
        "on"
    } else {
        "off"
    };
    let pg_ctl = bin("pg_ctl");
    let options = format!(
        "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
         -c fsync={fsync} -c max_connections=400",
        dir.display()
    );
    // Started, it says so and waits for the pipe to close; then stops and cleans up.
    let script = r#"
        "$0" -D "$1/data" -o "$2" -l "$1/log" -w -t 60 start >/dev/null || { cat "$1/log" >&2; exit 1; }
        echo started
        read _ignored
        "$0" -D "$1/data" -m immediate -w stop >/dev/null
        rm -rf "$1"
    "#;
    let mut keeper = {
        let mut c = as_owner(std::path::Path::new("sh"));
        c.args(["-c", script])
            .arg(&pg_ctl)
            .arg(&dir)
            .arg(&options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        c.spawn().unwrap()
    };
    let mut line = String::new();
    BufReader::new(keeper.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(
        line.trim(),
        "started",
        "the test PostgreSQL did not start (its log was printed above)"
    );
    let _ = temp.keep();
    Cluster {
        port,
        _keeper: Mutex::new(keeper),
    }
}
