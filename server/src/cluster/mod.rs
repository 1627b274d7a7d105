//! Several servers on one PostgreSQL database (`--database postgres://…`): each serves the
//! team's pages, `/api/docs` and event streams from the log; exactly one, the leader, runs the
//! team (agent processes, inboxes, watchers, timers, backups), holding the lease row
//! (`store::lease`) whose token fences its appends. The others follow the log (`store::tail`)
//! and forward what they cannot answer to the leader (`forward`), or answer 503 with
//! `Retry-After` while there is none.
//!
//! [`run`] listens once, then takes the part this server can have and serves it, then the
//! next: a follower that takes a lapsed lease stops following and starts again as the leader,
//! as a restart does (the dead leader's session ended, its agents woken from soul and
//! transcript); a leader that cannot renew its lease before it lapses stops its runtime first,
//! then follows. Between parts, and while the database cannot be reached (tried again with
//! backoff), the listener answers every request with a 503 that says so (`http::switch`).
//!
//! The part a server boots for and the role `/healthz` says are `crate::role`'s (the façade and
//! the HTTP layer read them); what a follower answers itself and hands on is
//! `http::forward`'s.

use std::sync::Arc;
use std::time::{Duration, Instant};

use leptos::prelude::LeptosOptions;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::data_dir::DataDirLock;
use crate::http::switch::Switch;
use crate::role::{Part, Role};
use crate::state::AppState;
use crate::store::lease::Lease;

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
    let advertised = config.advertise.unwrap_or(config.addr);
    if advertised.ip().is_unspecified() {
        anyhow::bail!(
            "--addr {} is every address: give --advertise host:port, where the other servers of the team reach this one",
            config.addr
        );
    }
    let address = format!("http://{advertised}");
    // One listener for every part, answering 503 between them.
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.addr))?;
    tracing::info!("soulgrid listening on http://{}", config.addr);
    let switch = Switch::new("this server is starting");
    let closed = CancellationToken::new();
    let serving = tokio::spawn(crate::http::serve::serve(
        listener,
        switch.router(),
        config.http.clone(),
        closed.clone().cancelled_owned(),
    ));
    let ran = parts(config, leptos, url, (owner, address, lock), &switch, &stop).await;
    closed.cancel();
    serving.await??;
    ran
}

/// Plays one part after the other until `stop`.
async fn parts(
    config: &Config,
    leptos: LeptosOptions,
    url: &str,
    (owner, address, lock): (String, String, Arc<DataDirLock>),
    switch: &Switch,
    stop: &CancellationToken,
) -> anyhow::Result<()> {
    let lease = {
        let (url, owner, address, span) = (url.to_string(), owner.clone(), address, config.lease);
        Arc::new(
            tokio::task::spawn_blocking(move || Lease::connect(&url, &owner, &address, span))
                .await?
                .map_err(|e| anyhow::anyhow!("the lease in PostgreSQL: {e}"))?,
        )
    };
    let mut held: Option<Holding> = None;
    // A part that fails once another was served (the database gone a while) is tried again,
    // with backoff; the first one failing is a startup error.
    let mut served = false;
    let mut backoff = Duration::from_millis(200);
    while !stop.is_cancelled() {
        let part = async {
            let holding = match held.take() {
                Some(h) => Some(h),
                None => {
                    let asked = Instant::now();
                    blocking(&lease, |l| l.take())
                        .await?
                        .map(|token| Holding::start(lease.clone(), token, asked))
                }
            };
            match holding {
                Some(h) => lead(config, leptos.clone(), (&lease, &lock), h, switch, stop)
                    .await
                    .map(|()| None),
                None => follow(config, leptos.clone(), (&lease, &lock), switch, stop).await,
            }
        };
        match part.await {
            Ok(next) => {
                (held, served, backoff) = (next, true, Duration::from_millis(200));
            }
            Err(e) if served => {
                switch.between("this server cannot reach the team's database now; it tries again");
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
    // Stopped just after taking it: let it go, as a leader does.
    if let Some(h) = held {
        let token = h.token;
        let _ = blocking(&lease, move |l| l.release(token)).await;
    }
    Ok(())
}

/// The lease, held: renewed every third of its span from the moment it was asked for, until
/// dropped; `lost` when a renewal fails or cannot be known in time (a quarter of the span
/// before it would lapse on the database's clock, the time counted from each request's
/// sending: the stop takes place while the lease is still this server's).
struct Holding {
    token: i64,
    lost: CancellationToken,
    done: CancellationToken,
}

impl Holding {
    fn start(lease: Arc<Lease>, token: i64, asked: Instant) -> Holding {
        let (lost, done) = (CancellationToken::new(), CancellationToken::new());
        let span = lease.span();
        tokio::spawn({
            let (lost, done) = (lost.clone(), done.clone());
            async move {
                let mut held_until = asked + span;
                let mut next = asked + span / 3;
                loop {
                    let deadline = held_until - span / 4;
                    tokio::select! {
                        _ = done.cancelled() => return,
                        _ = tokio::time::sleep_until(next.min(deadline).into()) => {}
                    }
                    if Instant::now() >= deadline {
                        lost.cancel();
                        return;
                    }
                    let sent = Instant::now();
                    let left = deadline.saturating_duration_since(sent);
                    let renewed =
                        tokio::time::timeout(left, blocking(&lease, move |l| l.renew(token))).await;
                    match renewed {
                        Ok(Ok(true)) => held_until = sent + span,
                        Ok(Ok(false)) => {
                            lost.cancel();
                            return;
                        }
                        Ok(Err(e)) => tracing::warn!(error = %e, "the lease could not be renewed"),
                        Err(_) => tracing::warn!("renewing the lease takes too long"),
                    }
                    next = Instant::now() + span / 3;
                }
            }
        });
        Holding { token, lost, done }
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        self.done.cancel();
    }
}

/// Serves as the leader until `stop` or until the lease is lost.
async fn lead(
    config: &Config,
    leptos: LeptosOptions,
    (lease, lock): (&Arc<Lease>, &Arc<DataDirLock>),
    holding: Holding,
    switch: &Switch,
    stop: &CancellationToken,
) -> anyhow::Result<()> {
    let fence = holding.token;
    if holding.lost.is_cancelled() {
        tracing::warn!(
            token = fence,
            "the lease was lost before this server could lead"
        );
        return Ok(());
    }
    tracing::info!(token = fence, "this server leads the team");
    let role = Role::replicated(true, None);
    let part = Part::Leader {
        fence,
        role,
        lock: lock.clone(),
    };
    let state = crate::boot_as(config, leptos, crate::clock::Clock::system(), part).await?;
    switch.set(crate::http::router(state.clone()));
    tracing::info!(role = "leader", "serving");
    tokio::select! {
        _ = stop.cancelled() => {
            // Nothing new reaches the runtime after its session's end.
            switch.between("this server is stopping");
            crate::shut_down(&state).await;
            if let Err(e) = blocking(lease, move |l| l.release(fence)).await {
                tracing::warn!(error = %e, "the lease could not be let go: another server takes it when it lapses");
            }
        }
        _ = holding.lost.cancelled() => {
            tracing::error!("the lease was lost: the runtime stops; this server follows");
            switch.between("this server no longer leads the team; another takes over in moments");
            stop_runtime(&state).await;
        }
    }
    drop(holding);
    Ok(())
}

/// Stops the leader's runtime without recording anything more (its appends are fenced off
/// already, or will be).
async fn stop_runtime(state: &AppState) {
    state.runtime.stop_all("this server no longer leads").await;
    state.shutdown.cancel();
    state.runtime.containment().close();
}

/// Serves as a follower until `stop`, or until it takes the lease (held from then on).
async fn follow(
    config: &Config,
    leptos: LeptosOptions,
    (lease, lock): (&Arc<Lease>, &Arc<DataDirLock>),
    switch: &Switch,
    stop: &CancellationToken,
) -> anyhow::Result<Option<Holding>> {
    let holder = blocking(lease, |l| l.holder()).await?;
    let role = Role::replicated(false, holder.filter(|h| h.live).map(|h| h.address));
    tracing::info!(leader = ?role.leader_address(), "this server follows the team");
    let part = Part::Follower {
        role: role.clone(),
        lock: lock.clone(),
    };
    let state = crate::boot_as(config, leptos, crate::clock::Clock::system(), part).await?;
    switch.set(crate::http::router(state.clone()));
    tracing::info!(role = "follower", "serving");
    let taken = Arc::new(std::sync::Mutex::new(None));
    let done = CancellationToken::new();
    // However this ends (serving failed too), the watcher stops.
    let _watching = done.clone().drop_guard();
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
                        let asked = Instant::now();
                        match blocking(&lease, |l| l.take()).await {
                            // Taken as the server stops, or after it stopped following: let go.
                            Ok(Some(token)) if stop.is_cancelled() || done.is_cancelled() => {
                                let _ = blocking(&lease, move |l| l.release(token)).await;
                                return;
                            }
                            Ok(Some(token)) => {
                                // Renewed from now on, while this server stops following.
                                let held = Holding::start(lease.clone(), token, asked);
                                *taken.lock().unwrap_or_else(|p| p.into_inner()) = Some(held);
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
    tokio::select! {
        _ = stop.cancelled() => switch.between("this server is stopping"),
        _ = done.cancelled() => {
            tracing::info!("the lease lapsed and this server took it: it leads from now on");
            switch.between("this server is taking the lead of the team");
        }
    }
    state.shutdown.cancel();
    done.cancel();
    let held = taken.lock().unwrap_or_else(|p| p.into_inner()).take();
    Ok(held)
}
