//! Containment of everything an agent starts. Its process group is not enough: Claude Code
//! runs its Bash tool's shell detached (a session and process group of its own), so a killed
//! group left servers, watchers and `sleep &` running after a stop.
//!
//! - **A cgroup** where the machine has a writable cgroup v2 hierarchy: each agent process is
//!   moved into `soulgrid-{server pid}/agent-{seat}-{n}` before it runs anything (in the child,
//!   between fork and exec), so whatever it starts, in any session, is born inside; a stop
//!   writes `cgroup.kill` (every process in it, at once) and removes the cgroup once empty.
//!   Cgroups a server left behind when it was killed are emptied and removed at start.
//! - **Otherwise, a scan**: each agent process carries [`TAG_VAR`] in its environment, which
//!   its descendants inherit; a stop kills every process that carries its tag, and every
//!   descendant of such a process, until none is left (bounded). A process that scrubbed its
//!   environment and left the tagged tree escapes the scan: the cgroup is the containment, the
//!   scan a fallback. The server's log says which one it uses.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use app::domain::Seat;

/// The environment variable that tags an agent's processes (the scan's way to find them).
/// (Not `SOULGRID_CONTAINMENT`: that is the flag's, and a `soulgrid` run from an agent's
/// shell would read the tag as its value.)
pub const TAG_VAR: &str = "SOULGRID_AGENT_TAG";

pub use crate::runtime::config::ContainmentMode as Mode;

/// The server's own cgroup for agents (`…/soulgrid-{pid}`), if it could make one.
#[derive(Debug)]
pub struct Containment {
    root: Option<PathBuf>,
}

/// Places are numbered across the process: two runtimes in one process (tests) never share
/// a cgroup or a tag.
static NEXT_PLACE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The cgroup v2 mount point and the server's own cgroup path in it.
fn own_cgroup() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mounts.lines().find_map(|l| {
        let (left, right) = l.split_once(" - ")?;
        (right.split_whitespace().next() == Some("cgroup2"))
            .then(|| left.split_whitespace().nth(4).map(PathBuf::from))?
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    Some(mount.join(path.trim_start_matches('/')))
}

impl Containment {
    pub fn new(mode: Mode) -> Containment {
        let root = match mode {
            Mode::Scan => None,
            Mode::Auto => own_cgroup().and_then(|own| {
                clean_left_behind(&own);
                let root = own.join(format!("soulgrid-{}", std::process::id()));
                match std::fs::create_dir(&root) {
                    Ok(()) if root.join("cgroup.kill").exists() => Some(root),
                    Ok(()) => {
                        let _ = std::fs::remove_dir(&root);
                        None
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Some(root),
                    Err(_) => None,
                }
            }),
        };
        match &root {
            Some(r) => tracing::info!(cgroup = %r.display(), "agents are contained in cgroups"),
            None => tracing::info!(
                "no writable cgroup v2 hierarchy: agents' processes are found by a scan at each stop"
            ),
        }
        Containment { root }
    }

    pub fn uses_cgroups(&self) -> bool {
        self.root.is_some()
    }

    /// A place for one process of `seat`, made before it is spawned.
    pub fn place(&self, seat: Seat) -> Place {
        let n = NEXT_PLACE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tag = format!("{}-{seat}-{n}", std::process::id());
        let cgroup = self.root.as_ref().and_then(|root| {
            let dir = root.join(format!("agent-{seat}-{n}"));
            // The server's cgroup too, if another runtime of this process closed it meanwhile.
            match std::fs::create_dir_all(&dir) {
                Ok(()) => Some(dir),
                Err(e) => {
                    tracing::warn!(seat, error = %e, "no cgroup for the agent; its processes are found by a scan");
                    None
                }
            }
        });
        Place { tag, cgroup }
    }

    /// At shutdown, after every agent stopped: the server's cgroup goes (kept while another
    /// runtime of this process still has agents in it).
    pub fn close(&self) {
        if let Some(root) = &self.root {
            let _ = std::fs::remove_dir(root);
        }
    }
}

/// Cgroups of servers that are gone (killed, crashed): whatever runs in them is killed, and
/// they are removed.
fn clean_left_behind(own: &Path) {
    let Ok(entries) = std::fs::read_dir(own) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("soulgrid-")
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let Ok(agents) = std::fs::read_dir(entry.path()) else {
            continue;
        };
        for agent in agents.flatten().filter(|a| a.path().is_dir()) {
            let _ = std::fs::write(agent.path().join("cgroup.kill"), "1");
            wait_empty(&agent.path(), Duration::from_secs(2));
            let _ = std::fs::remove_dir(agent.path());
        }
        let _ = std::fs::remove_dir(entry.path());
        tracing::info!(cgroup = %entry.path().display(), "removed the cgroup a stopped server left");
    }
}

/// Waits (bounded) until no process is left in `cgroup`.
fn wait_empty(cgroup: &Path, limit: Duration) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        let events = std::fs::read_to_string(cgroup.join("cgroup.events")).unwrap_or_default();
        if events.lines().any(|l| l.trim() == "populated 0") || events.is_empty() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Where one agent process and everything it starts live.
#[derive(Debug)]
pub struct Place {
    tag: String,
    cgroup: Option<PathBuf>,
}

impl Place {
    /// Readies `cmd` to start inside: the tag in its environment, and (with a cgroup) the
    /// child moving itself into it before it runs anything.
    pub fn prepare(&self, cmd: &mut tokio::process::Command) {
        cmd.env(TAG_VAR, &self.tag);
        let Some(procs) = self
            .cgroup
            .as_ref()
            .and_then(|c| CString::new(c.join("cgroup.procs").as_os_str().as_bytes()).ok())
        else {
            return;
        };
        // SAFETY: the closure runs in the child between fork and exec, and calls only
        // async-signal-safe functions (open, write, close) on memory prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd >= 0 {
                    // "0" moves the writing process itself.
                    libc::write(fd, b"0".as_ptr().cast(), 1);
                    libc::close(fd);
                }
                Ok(())
            });
        }
    }

    /// Kills every process the agent's process started (and it, if it still runs), wherever
    /// it went. Blocking, bounded.
    pub fn kill_all(&self) {
        if let Some(cgroup) = &self.cgroup {
            let _ = std::fs::write(cgroup.join("cgroup.kill"), "1");
            if !wait_empty(cgroup, Duration::from_secs(2)) {
                tracing::warn!(cgroup = %cgroup.display(), "processes were left in an agent's cgroup after it was killed");
            }
            let _ = std::fs::remove_dir(cgroup);
        }
        // Always, after a cgroup's kill too: a process whose move into its cgroup failed (the
        // write in `prepare` cannot report it) runs outside it, tagged.
        // The scan: until two scans in a row find nothing that carries the tag or descends from
        // one that does (a process between fork and exec, or one /proc was not listing at that
        // instant, is met by the next), bounded.
        let mut quiet = 0;
        for _ in 0..20 {
            let found = scan(&self.tag);
            if found.is_empty() {
                quiet += 1;
                if quiet == 2 {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            quiet = 0;
            for pid in &found {
                // SAFETY: kill(2) with SIGKILL on a process that carries this agent's tag or
                // descends from its process (found in /proc just now); never 0, 1 or negative.
                unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        tracing::warn!(
            tag = self.tag,
            "processes of a stopped agent could not all be killed"
        );
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(c) = &self.cgroup {
            let _ = std::fs::remove_dir(c);
        }
    }
}

/// A process's state letter, parent and process group, from `/proc/{pid}/stat`.
pub fn proc_stat(pid: u32) -> Option<(char, u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, ppid, pgrp))
}

/// The live processes below `root`, from `from` generations down (`1`: its children and all
/// below them): from every process's parent in `/proc`.
pub fn descendants(root: u32, from: usize) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(u32, u32)> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| proc_stat(pid).filter(|s| s.0 != 'Z').map(|s| (pid, s.1)))
        .collect();
    let mut found = Vec::new();
    let mut generation = vec![root];
    for depth in 1.. {
        generation = parents
            .iter()
            .filter(|(_, parent)| generation.contains(parent))
            .map(|(pid, _)| *pid)
            .collect();
        if generation.is_empty() {
            break;
        }
        if depth >= from {
            found.extend(&generation);
        }
    }
    found
}

/// Live processes that carry `tag`, or descend from one that does: from `/proc`.
fn scan(tag: &str) -> Vec<u32> {
    let me = std::process::id();
    let wanted = format!("{TAG_VAR}={tag}");
    let mut parents: Vec<(u32, u32)> = Vec::new();
    let mut found: Vec<u32> = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid <= 1 || pid == me {
            continue;
        }
        let Some((state, ppid, _)) = proc_stat(pid) else {
            continue;
        };
        if state == 'Z' {
            continue;
        }
        parents.push((pid, ppid));
        let tagged = matches!(
            crate::fsafe::read_bounded(&entry.path().join("environ"), 1 << 20),
            Ok(crate::fsafe::Found::Bytes(env)) if env.split(|b| *b == 0).any(|v| v == wanted.as_bytes())
        );
        if tagged {
            found.push(pid);
        }
    }
    // Descendants of what was found tagged (one that scrubbed its environment).
    let mut frontier: Vec<u32> = found.clone();
    while let Some(p) = frontier.pop() {
        for (child, _) in parents.iter().filter(|(_, pp)| *pp == p) {
            if !found.contains(child) {
                found.push(*child);
                frontier.push(*child);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tagged process in a session of its own, started by a child that then exited: found by
    /// the scan, and killed.
    #[test]
    fn the_scan_finds_a_detached_grandchild_by_its_tag() {
        let place = Place {
            tag: format!("test-{}", uuid::Uuid::new_v4().simple()),
            cgroup: None,
        };
        let marker = format!("{}", 900_000 + std::process::id() % 90_000);
        let status = std::process::Command::new("bash")
            .args(["-c", &format!("(setsid sleep {marker} >/dev/null 2>&1 &)")])
            .env(TAG_VAR, &place.tag)
            .status()
            .unwrap();
        assert!(status.success());
        let sleeper = || {
            scan(&place.tag).into_iter().find(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&marker))
            })
        };
        let until = std::time::Instant::now() + Duration::from_secs(10);
        let pid = loop {
            if let Some(p) = sleeper() {
                break p;
            }
            assert!(std::time::Instant::now() < until, "the sleeper started");
            std::thread::sleep(Duration::from_millis(10));
        };
        place.kill_all();
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| !s.contains(") Z "))
        {
            assert!(
                std::time::Instant::now() < until,
                "the sleeper was killed: {pid} {:?} {:?}",
                std::fs::read_to_string(format!("/proc/{pid}/cmdline")),
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
