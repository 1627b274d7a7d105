//! Who is at the other end of a loopback connection. The agents run commands on this machine, as
//! the same user: a command of theirs (`curl -X POST 127.0.0.1:3000/api/...`) could approve its
//! own requests, add itself rules or raise its budget. A mutating request whose client socket is
//! held by a process of this server's own tree (the agents' CLIs and whatever they started; not
//! the server itself) is refused (`security::guard`).
//!
//! What it does not catch: a process that left the tree (a double fork re-parents it to init)
//! or a request relayed by another program. Closing those needs a secret the browser holds and
//! agents cannot read.

use std::net::SocketAddr;

/// The two ends of a connection, put on each of its requests by the accept loop (`serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub remote: SocketAddr,
    pub local: SocketAddr,
}

/// The process of this server's tree (never the server itself) that holds the client's end of
/// the connection, if any. Only on Linux (`/proc`); elsewhere, none. The socket table is read
/// last, and only when a process of the tree holds a socket at all: it is the costly part
/// (measured in this sandbox: 3.4 ms a read of `/proc/net/tcp`; the rest, with nine children,
/// some microseconds). Blocking: call it off the async runtime.
pub fn agent_process(peer: Peer) -> Option<u32> {
    if !peer.remote.ip().is_loopback() {
        return None;
    }
    #[cfg(target_os = "linux")]
    {
        let me = std::process::id();
        let held: Vec<(u32, u64)> = linux::descendants(me)
            .into_iter()
            .filter(|&pid| pid != me)
            .flat_map(|pid| linux::sockets(pid).into_iter().map(move |s| (pid, s)))
            .collect();
        if held.is_empty() {
            return None;
        }
        let inode = linux::client_socket(peer)?;
        held.into_iter()
            .find(|&(_, s)| s == inode)
            .map(|(pid, _)| pid)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::VecDeque;

    use super::Peer;

    /// The inode of the client's socket: the entry of `/proc/net/tcp{,6}` whose local port is
    /// the client's and whose remote port is the server's.
    pub fn client_socket(peer: Peer) -> Option<u64> {
        let (client, server) = (peer.remote.port(), peer.local.port());
        ["/proc/net/tcp", "/proc/net/tcp6"]
            .into_iter()
            .find_map(|table| {
                let text = std::fs::read_to_string(table).ok()?;
                text.lines().skip(1).find_map(|line| {
                    let f: Vec<&str> = line.split_whitespace().collect();
                    let port = |field: &str| {
                        let hex = field.rsplit(':').next()?;
                        u16::from_str_radix(hex, 16).ok()
                    };
                    let (local, remote) = (port(f.get(1)?)?, port(f.get(2)?)?);
                    (local == client && remote == server)
                        .then(|| f.get(9)?.parse().ok())
                        .flatten()
                        .filter(|&inode: &u64| inode != 0)
                })
            })
    }

    /// `root` and every process below it, from each thread's `children` (a child is listed
    /// under the thread that started it).
    pub fn descendants(root: u32) -> Vec<u32> {
        let mut seen = vec![root];
        let mut queue = VecDeque::from([root]);
        while let Some(pid) = queue.pop_front() {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for task in tasks.flatten() {
                let children =
                    std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
                for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                    if !seen.contains(&child) {
                        seen.push(child);
                        queue.push_back(child);
                    }
                }
            }
        }
        seen
    }

    /// The inodes of the sockets `pid` has open.
    pub fn sockets(pid: u32) -> Vec<u64> {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            return Vec::new();
        };
        fds.flatten()
            .filter_map(|fd| {
                let to = std::fs::read_link(fd.path()).ok()?;
                let to = to.to_str()?;
                to.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
            })
            .collect()
    }
}
