//! Which part of a team this server plays (`cluster`): the only server, the leader, or a
//! follower; and what `/healthz` says of it. Read by the façade (`boot_as`), the state and the
//! HTTP layer; set by `cluster`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::data_dir::DataDirLock;

/// The part a server boots for.
pub enum Part {
    /// The one server of its team (SQLite, or PostgreSQL without others).
    Single,
    /// The leader, holding the lease with `fence`.
    Leader {
        fence: i64,
        role: Arc<Role>,
        lock: Arc<DataDirLock>,
    },
    /// A follower.
    Follower {
        role: Arc<Role>,
        lock: Arc<DataDirLock>,
    },
}

impl Part {
    pub fn role(&self) -> Arc<Role> {
        match self {
            Part::Single => Arc::new(Role::single()),
            Part::Leader { role, .. } | Part::Follower { role, .. } => role.clone(),
        }
    }

    /// The data directory's lock, taken once for every part of a cluster's server.
    pub fn lock(&self) -> Option<Arc<DataDirLock>> {
        match self {
            Part::Single => None,
            Part::Leader { lock, .. } | Part::Follower { lock, .. } => Some(lock.clone()),
        }
    }
}

/// Whether this server leads, and where the leader answers.
#[derive(Debug)]
pub struct Role {
    /// Several servers share the team (`run`); else this is the only one.
    replicated: bool,
    leader: AtomicBool,
    leader_address: RwLock<Option<String>>,
}

impl Role {
    pub fn single() -> Role {
        Role {
            replicated: false,
            leader: AtomicBool::new(true),
            leader_address: RwLock::new(None),
        }
    }

    /// A follower of the leader at `address` (none known: writes are answered 503).
    pub fn follower(address: Option<String>) -> Arc<Role> {
        Self::replicated(false, address)
    }

    pub(crate) fn replicated(leader: bool, address: Option<String>) -> Arc<Role> {
        Arc::new(Role {
            replicated: true,
            leader: AtomicBool::new(leader),
            leader_address: RwLock::new(address),
        })
    }

    pub fn is_follower(&self) -> bool {
        !self.leader.load(Ordering::SeqCst)
    }

    /// Where the leader answers (`http://host:port`), when a follower knows of one.
    pub fn leader_address(&self) -> Option<String> {
        self.leader_address
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn set_leader_address(&self, address: Option<String>) {
        *self
            .leader_address
            .write()
            .unwrap_or_else(|p| p.into_inner()) = address;
    }

    /// What `/healthz` says: `("leader" | "follower", the leader's address on a follower)`,
    /// when several servers share the team.
    pub fn shown(&self) -> Option<(&'static str, Option<String>)> {
        if !self.replicated {
            return None;
        }
        Some(match self.is_follower() {
            true => ("follower", self.leader_address()),
            false => ("leader", None),
        })
    }
}
