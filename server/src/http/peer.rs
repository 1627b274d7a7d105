//! Who is at the other end of a connection from this machine. The agents run commands here, as
//! the same user: a command of theirs (`curl -X POST 127.0.0.1:3000/api/...`) could approve its
//! own requests, add itself rules or raise its budget. A mutating request whose client socket is
//! held by a process of this server's own tree (the agents' CLIs and what they run; not the
//! server itself) is refused (`security::guard`). A speed bump, not a wall: docs/SECURITY.md
//! lists what it does not catch (a process that left the tree, a socket handed to another
//! process, a relay); a wall needs a secret the browser holds and agents cannot read.

use std::net::{IpAddr, SocketAddr};

/// The header a follower puts on each request it hands to the leader (`forward`): the two ends
/// of the connection it carried the request on (`remote local`), so the leader can tell whether
/// its first client is one of the leader's agents' processes (a relay through a follower). It
/// can only make the leader refuse more, never less: the leader checks its own connection too,
/// and a follower replaces whatever a client put there.
pub const RELAYED: &str = "x-soulgrid-peer";

/// The two ends of a connection (as the accepted socket sees them), put on each of its requests
/// by the accept loop (`serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub remote: SocketAddr,
    pub local: SocketAddr,
}

impl Peer {
    /// As [`RELAYED`] carries it.
    pub fn header(&self) -> String {
        format!("{} {}", self.remote, self.local)
    }

    pub fn from_header(value: &str) -> Option<Peer> {
        let (remote, local) = value.split_once(' ')?;
        Some(Peer {
            remote: remote.parse().ok()?,
            local: local.parse().ok()?,
        })
    }
}

/// The process of this server's tree (never the server itself) that holds the client's end of
/// the connection. Only on Linux (`/proc`); elsewhere, none. Blocking: call it off the async runtime. The socket
/// table is read once (in this sandbox a read of `/proc/net/tcp` took 3.4 ms), then the tree's
/// descriptors until the holder is found.
pub fn agent_process(peer: Peer) -> Option<u32> {
    holder(peer, Some(peer.local.ip()))
}

/// As [`agent_process`], for the connection a follower says it carried the request on
/// ([`RELAYED`]), whatever address it came from (an agent may reach a follower at any of this
/// machine's addresses): a client's socket found in this machine's table by both ends is this
/// machine's.
pub fn relayed_agent_process(relayed: Peer) -> Option<u32> {
    holder(relayed, None)
}

/// `this_machine`: the address a client of this machine comes from besides loopback (`None`:
/// any; the socket table decides).
fn holder(peer: Peer, this_machine: Option<IpAddr>) -> Option<u32> {
    let remote = peer.remote.ip().to_canonical();
    // From this machine: loopback, or the server's own address (a LAN bind).
    if let Some(here) = this_machine {
        if !(remote.is_loopback() || remote == here.to_canonical()) {
            return None;
        }
    }
    #[cfg(target_os = "linux")]
    {
        let inode = linux::client_socket(peer)?;
        let me = std::process::id();
        linux::descendants(me)
            .into_iter()
            .filter(|&pid| pid != me && !linux::unexeced_fork(pid))
            .find(|&pid| linux::holds(pid, inode))
    }
    #[cfg(not(target_os = "linux"))]
    None
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::VecDeque;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

    use super::Peer;

    /// An address of `/proc/net/tcp{,6}`: `0100007F:1F90` (each 32-bit word in the host's
    /// byte order).
    fn address(field: &str) -> Option<SocketAddr> {
        let (ip, port) = field.split_once(':')?;
        let port = u16::from_str_radix(port, 16).ok()?;
        let word = |i: usize| -> Option<[u8; 4]> {
            let hex = ip.get(i * 8..i * 8 + 8)?;
            Some(u32::from_str_radix(hex, 16).ok()?.to_ne_bytes())
        };
        let ip = match ip.len() {
            8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
            32 => {
                let mut b = [0u8; 16];
                for i in 0..4 {
                    b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
                }
                IpAddr::V6(Ipv6Addr::from(b))
            }
            _ => return None,
        };
        Some(SocketAddr::new(ip, port))
    }

    fn same(a: SocketAddr, b: SocketAddr) -> bool {
        a.port() == b.port() && a.ip().to_canonical() == b.ip().to_canonical()
    }

    /// The inode of the client's socket: the entry whose local end is the client's and whose
    /// remote end is the server's (in `tcp6` when the server's socket is IPv6, IPv4 clients of a
    /// dual-stack socket included).
    pub fn client_socket(peer: Peer) -> Option<u64> {
        let table = match peer.local.is_ipv4() {
            true => "/proc/net/tcp",
            false => "/proc/net/tcp6",
        };
        let text = std::fs::read_to_string(table).ok()?;
        text.lines().skip(1).find_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (local, remote) = (address(f.get(1)?)?, address(f.get(2)?)?);
            (same(local, peer.remote) && same(remote, peer.local))
                .then(|| f.get(9)?.parse().ok())
                .flatten()
                .filter(|&inode: &u64| inode != 0)
        })
    }

    /// `root` and every process below it: from each thread's `children` (a child is listed
    /// under the thread that started it), or, where the kernel has no such file, from every
    /// process's parent.
    pub fn descendants(root: u32) -> Vec<u32> {
        let has_children_files = std::fs::read_dir(format!("/proc/{root}/task"))
            .ok()
            .and_then(|mut t| t.next())
            .and_then(Result::ok)
            .is_some_and(|t| t.path().join("children").exists());
        let parents: Vec<(u32, u32)> = match has_children_files {
            true => Vec::new(),
            false => std::fs::read_dir("/proc")
                .map(|all| {
                    all.flatten()
                        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                        .filter_map(|pid| {
                            crate::runtime::process::contain::proc_stat(pid)
                                .map(|(_, ppid, _)| (pid, ppid))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        };
        let children = |pid: u32| -> Vec<u32> {
            if !has_children_files {
                return parents
                    .iter()
                    .filter(|(_, p)| *p == pid)
                    .map(|(c, _)| *c)
                    .collect();
            }
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                return Vec::new();
            };
            tasks
                .flatten()
                .flat_map(|task| {
                    std::fs::read_to_string(task.path().join("children"))
                        .unwrap_or_default()
                        .split_whitespace()
                        .filter_map(|c| c.parse().ok())
                        .collect::<Vec<u32>>()
                })
                .collect()
        };
        let mut seen = vec![root];
        let mut queue = VecDeque::from([root]);
        while let Some(pid) = queue.pop_front() {
            for child in children(pid) {
                if !seen.contains(&child) {
                    seen.push(child);
                    queue.push_back(child);
                }
            }
        }
        seen
    }

    /// A child of this process between its fork and its exec (it runs this binary still, with a
    /// copy of every descriptor, the server's own clients' sockets among them): not an agent.
    pub fn unexeced_fork(pid: u32) -> bool {
        let exe = |p: String| std::fs::read_link(p).ok();
        let parent = crate::runtime::process::contain::proc_stat(pid).map(|(_, ppid, _)| ppid);
        parent == Some(std::process::id())
            && exe(format!("/proc/{pid}/exe")).is_some()
            && exe(format!("/proc/{pid}/exe")) == exe("/proc/self/exe".into())
    }

    /// Whether `pid` has the socket `inode` open. A process whose descriptors cannot be read (an
    /// undumpable or set-uid one: `sudo` waiting for a password) counts as not holding it: a
    /// speed bump must not stop the human whenever an agent runs one.
    pub fn holds(pid: u32, inode: u64) -> bool {
        let wanted = format!("socket:[{inode}]");
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|to| to.as_os_str() == wanted.as_str())
            })
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn addresses_of_the_socket_tables_are_read_in_the_hosts_byte_order() {
            let v4 = u32::from_ne_bytes([127, 0, 0, 1]);
            assert_eq!(
                address(&format!("{v4:08X}:1F90")),
                Some("127.0.0.1:8080".parse().unwrap())
            );
            let words: String = [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]
                .chunks(4)
                .map(|c| format!("{:08X}", u32::from_ne_bytes([c[0], c[1], c[2], c[3]])))
                .collect();
            let mapped = address(&format!("{words}:0050")).unwrap();
            assert_eq!(mapped.port(), 80);
            assert!(same(mapped, "127.0.0.1:80".parse().unwrap()));
            assert_eq!(address("zz:1"), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relayed_connection_is_said_in_a_header_and_read_back() {
        for (remote, local) in [
            ("127.0.0.1:41234", "127.0.0.1:3000"),
            ("[::1]:5000", "[::ffff:10.0.0.2]:3000"),
        ] {
            let peer = Peer {
                remote: remote.parse().unwrap(),
                local: local.parse().unwrap(),
            };
            assert_eq!(Peer::from_header(&peer.header()), Some(peer));
        }
        for bad in ["", "127.0.0.1:1", "a b", "127.0.0.1:1 127.0.0.1:x"] {
            assert_eq!(Peer::from_header(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_client_of_another_machine_is_no_agent_process_here() {
        let far = Peer {
            remote: "192.0.2.7:41234".parse().unwrap(),
            local: "198.51.100.1:3000".parse().unwrap(),
        };
        assert_eq!(agent_process(far), None);
        assert_eq!(relayed_agent_process(far), None);
    }
}
