//! Stopping an agent means stopping everything it started: the CLI runs in its own process
//! group (`process_group(0)` at spawn), and its Bash tool calls and background jobs stay in
//! that group. A stop signals the whole group: `SIGTERM`, a bounded grace, then `SIGKILL`,
//! whatever the processes do with the first signal.
//!
//! In a sandbox the group is bubblewrap's: a `SIGTERM` to it ends the sandbox at once, and with
//! it (its PID namespace gone) every process inside, killed. So there the first signal goes to
//! the processes inside instead (bubblewrap's own two excepted; the relay inside passes it
//! by), and bubblewrap ends when the agent's program does.

use std::time::Duration;

use tokio::process::Child;

/// An agent's process group; its id is the CLI's pid (or bubblewrap's, `sandboxed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group(i32, bool);

impl Group {
    pub fn of(child: &Child, sandboxed: bool) -> Option<Group> {
        child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|pid| *pid > 1)
            .map(|pid| Group(pid, sandboxed))
    }

    /// Asks the agent to stop: `SIGTERM` to the group, or in a sandbox to what runs inside.
    fn ask_to_stop(self) {
        if !self.1 {
            self.signal(libc::SIGTERM);
            return;
        }
        // bubblewrap (the group's leader) and its init in the sandbox's namespace are the first
        // two generations; the agent's program and all it started are below them.
        let inside = super::contain::descendants(self.0 as u32, 2);
        for pid in inside {
            // SAFETY: kill(2) on a process below our own child, found just now.
            unsafe { libc::kill(pid as i32, libc::SIGTERM) };
        }
    }

    /// Sends `signal` to every process of the group; false when none is left.
    fn signal(self, signal: i32) -> bool {
        // SAFETY: kill(2) with a negative pid signals the process group we created for this
        // agent (its id is the pid of our own child, never 0 or 1).
        unsafe { libc::kill(-self.0, signal) == 0 }
    }

    /// Kills whatever is left of the group (background jobs of a CLI that has exited).
    pub fn kill_rest(self) {
        if self.signal(libc::SIGKILL) {
            tracing::debug!(group = self.0, "killed what was left of the process group");
        }
    }
}

/// Stops the child and its group: `SIGTERM` to the group, up to `grace` for the child to exit,
/// then `SIGKILL` to the group. Returns within `grace` plus the time the kernel takes to reap
/// a killed process (bounded too: a child that cannot even be reaped is left to `kill_on_drop`).
pub async fn terminate(child: &mut Child, group: Option<Group>, grace: Duration) {
    match group {
        Some(g) => g.ask_to_stop(),
        None => {
            let _ = child.start_kill();
        }
    }
    if tokio::time::timeout(grace, child.wait()).await.is_err() {
        tracing::warn!(
            ?group,
            "the agent did not stop within {grace:?}; killing it"
        );
    }
    match group {
        Some(g) => g.kill_rest(),
        None => {
            let _ = child.start_kill();
        }
    }
    if tokio::time::timeout(Duration::from_secs(2), child.wait())
        .await
        .is_err()
    {
        tracing::error!(?group, "a killed agent process was not reaped within 2 s");
    }
}
