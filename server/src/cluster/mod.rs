//! Several servers on one PostgreSQL database (`--database postgres://…`): each serves the
//! team's pages, `/api/docs` and event streams from the log; exactly one, the leader, runs the
//! team (agent processes, inboxes, watchers, timers, backups), holding the lease row
//! (`store::lease`) whose token fences its appends. The others follow the log (`store::tail`)
//! and forward what they cannot answer to the leader (`forward`), or answer 503 with
//! `Retry-After` while there is none.
//!
//! [`run`] takes the part this server can have and serves it, then the next: a follower that
//! takes a lapsed lease stops serving and starts again as the leader, as a restart does (the
//! dead leader's session ended, its agents woken from soul and transcript); a leader that
//! cannot renew its lease before it lapses stops its runtime first, then follows.
//!
//! - `mod.rs`: the part and role, and the loop from one part to the next.
//! - `forward.rs`: what a follower answers itself, and the forwarding of the rest.

pub mod forward;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use leptos::prelude::LeptosOptions;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::data_dir::DataDirLock;
use crate::state::AppState;
use crate::store::lease::Lease;

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

/// This server's name in the lease, kept in its data directory: a server restarted on it (the
/// directory's lock says the one before is gone) takes its own lease back at once.
fn owner(data_dir: &std::path::Path) -> anyhow::Result<String> {
    let file = data_dir.join("server-id");
    if let Ok(id) = std::fs::read_to_string(&file) {
        if let Ok(id) = uuid::Uuid::parse_str(id.trim()) {
            return Ok(id.to_string());
        }
    }
    let id = uuid::Uuid::new_v4().to_string();
    std::fs::write(&file, format!("{id}\n"))
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", file.display()))?;
    Ok(id)
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

    fn replicated(leader: bool, address: Option<String>) -> Arc<Role> {
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

    fn set_leader_address(&self, address: Option<String>) {
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

/// Runs the lease's blocking calls off the async threads.
async fn blocking<T: Send + 'static>(
    lease: &Arc<Lease>,
    f: impl FnOnce(&Lease) -> Result<T, crate::store::StoreError> + Send + 'static,
) -> Result<T, crate::store::StoreError> {
    let lease = lease.clone();
    tokio::task::spawn_blocking(move || f(&lease))
        .await
        .map_err(|_| crate::store::StoreError::Closed)?
}

/// Serves this server's part, then the next, until `stop`: a leader records its session's end
/// and lets the lease go, so a follower takes it at once.
pub async fn run(
    config: &Config,
    leptos: LeptosOptions,
    url: &str,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    // Before the lease: a second server on this data directory stops here.
    let lock = {
        let dir = config.data_dir.clone();
        Arc::new(tokio::task::spawn_blocking(move || DataDirLock::take(&dir)).await??)
    };
    let owner = owner(&config.data_dir)?;
    let address = format!("http://{}", config.advertise.unwrap_or(config.addr));
    let lease = {
        let (url, owner, address, span) = (url.to_string(), owner.clone(), address, config.lease);
        Arc::new(
            tokio::task::spawn_blocking(move || Lease::connect(&url, &owner, &address, span))
                .await?
                .map_err(|e| anyhow::anyhow!("the lease in PostgreSQL: {e}"))?,
        )
    };
    let mut taken = None;
    // A part that fails once another was served (the database gone a while) is tried again,
    // with backoff; the first one failing is a startup error.
    let mut served = false;
    let mut backoff = Duration::from_millis(200);
    while !stop.is_cancelled() {
        let part = async {
            let token = match taken.take() {
                Some(t) => Some(t),
                None => blocking(&lease, |l| l.take()).await?,
            };
            match token {
                Some(fence) => lead(config, leptos.clone(), (&lease, &lock), fence, &stop)
                    .await
                    .map(|()| None),
                None => follow(config, leptos.clone(), (&lease, &lock), &stop).await,
            }
        };
        match part.await {
            Ok(next) => {
                (taken, served, backoff) = (next, true, Duration::from_millis(200));
            }
            Err(e) if served => {
                tracing::error!(error = %e, retry_in = ?backoff, "this server could not go on (is the database there?); it tries again");
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Serves as the leader until `stop` or until the lease is lost.
async fn lead(
    config: &Config,
    leptos: LeptosOptions,
    (lease, lock): (&Arc<Lease>, &Arc<DataDirLock>),
    fence: i64,
    stop: &CancellationToken,
) -> anyhow::Result<()> {
    tracing::info!(token = fence, "this server leads the team");
    let role = Role::replicated(true, None);
    let part = Part::Leader {
        fence,
        role,
        lock: lock.clone(),
    };
    let state = crate::boot_as(config, leptos, crate::clock::Clock::system(), part).await?;
    let lost = CancellationToken::new();
    keep(lease.clone(), fence, lost.clone(), state.shutdown.clone());
    let (stop, lease) = (stop.clone(), lease.clone());
    let ended = state.clone();
    serve(config, state, async move {
        tokio::select! {
            _ = stop.cancelled() => {
                crate::shut_down(&ended).await;
                if let Err(e) = blocking(&lease, move |l| l.release(fence)).await {
                    tracing::warn!(error = %e, "the lease could not be let go: another server takes it when it lapses");
                }
            }
            _ = lost.cancelled() => {
                tracing::error!("the lease was lost: the runtime stops; this server follows");
                // Its appends are fenced off already: nothing more of this session is stored.
                ended.runtime.stop_all("the lease was lost").await;
                ended.shutdown.cancel();
                ended.runtime.containment().close();
            }
        }
    })
    .await
}

/// Renews the lease every third of its span; when a renewal fails or comes too late to be
/// sure, `lost` (before the lease lapses on the database's clock: the time counts from when
/// the renewal was sent).
fn keep(lease: Arc<Lease>, fence: i64, lost: CancellationToken, shutdown: CancellationToken) {
    let span = lease.span();
    tokio::spawn(async move {
        let mut held_until = Instant::now() + span;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(span / 3) => {}
            }
            let sent = Instant::now();
            let renewed =
                tokio::time::timeout(span / 3, blocking(&lease, move |l| l.renew(fence))).await;
            match renewed {
                Ok(Ok(true)) => held_until = sent + span,
                Ok(Ok(false)) => {
                    lost.cancel();
                    return;
                }
                Ok(Err(e)) => tracing::warn!(error = %e, "the lease could not be renewed"),
                Err(_) => tracing::warn!("renewing the lease takes too long"),
            }
            // A margin for the stop itself.
            if Instant::now() + span / 4 >= held_until {
                lost.cancel();
                return;
            }
        }
    });
}

/// Serves as a follower until `stop`, or until it takes the lease: its token.
async fn follow(
    config: &Config,
    leptos: LeptosOptions,
    (lease, lock): (&Arc<Lease>, &Arc<DataDirLock>),
    stop: &CancellationToken,
) -> anyhow::Result<Option<i64>> {
    let holder = blocking(lease, |l| l.holder()).await?;
    let role = Role::replicated(false, holder.filter(|h| h.live).map(|h| h.address));
    tracing::info!(leader = ?role.leader_address(), "this server follows the team");
    let part = Part::Follower {
        role: role.clone(),
        lock: lock.clone(),
    };
    let state = crate::boot_as(config, leptos, crate::clock::Clock::system(), part).await?;
    let taken = Arc::new(std::sync::Mutex::new(None));
    let done = CancellationToken::new();
    // Watches the lease: who leads, and whether it lapsed (then takes it).
    tokio::spawn({
        let (lease, taken, done, stop) = (lease.clone(), taken.clone(), done.clone(), stop.clone());
        let every = (lease.span() / 3).max(Duration::from_millis(100));
        async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = done.cancelled() => return,
                    _ = tokio::time::sleep(every) => {}
                }
                match blocking(&lease, |l| l.holder()).await {
                    Ok(Some(h)) if h.live => role.set_leader_address(Some(h.address)),
                    Ok(_) => {
                        role.set_leader_address(None);
                        match blocking(&lease, |l| l.take()).await {
                            Ok(Some(token)) => {
                                *taken.lock().unwrap_or_else(|p| p.into_inner()) = Some(token);
                                done.cancel();
                                return;
                            }
                            Ok(None) => {}
                            Err(e) => tracing::warn!(error = %e, "taking the lease failed"),
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "reading the lease failed"),
                }
            }
        }
    });
    let (stop, ended) = (stop.clone(), state.clone());
    let until = done.clone();
    serve(config, state, async move {
        tokio::select! {
            _ = stop.cancelled() => {}
            _ = until.cancelled() => tracing::info!("the lease lapsed and this server took it: it leads from now on"),
        }
        ended.shutdown.cancel();
    })
    .await?;
    done.cancel();
    let token = *taken.lock().unwrap_or_else(|p| p.into_inner());
    Ok(token)
}

/// Serves `state` on the configured address until `until` ends (then gracefully).
async fn serve(
    config: &Config,
    state: AppState,
    until: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // The address a part before this one served on is let go as it ends: bind again, a while.
    let deadline = Instant::now() + Duration::from_secs(10);
    let listener = loop {
        match tokio::net::TcpListener::bind(config.addr).await {
            Ok(l) => break l,
            Err(e) if Instant::now() < deadline => {
                tracing::debug!(error = %e, "the address is not free yet");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => anyhow::bail!("cannot listen on {}: {e}", config.addr),
        }
    };
    tracing::info!(
        role = if state.role.is_follower() {
            "follower"
        } else {
            "leader"
        },
        "soulgrid listening on http://{}",
        config.addr
    );
    let router = crate::http::router(state);
    crate::http::serve::serve(listener, router, config.http.clone(), until).await?;
    Ok(())
}
