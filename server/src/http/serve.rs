//! The accept loop, with the bounds a server facing slow or hostile clients needs (axum's own
//! `serve` has none of them): a request's headers must arrive within `--header-timeout`, its
//! body must not stall for `--body-timeout` (the router's layer), at most `--max-connections`
//! are open at once (the rest wait in the listen queue, holding no descriptor of ours), and a
//! shutdown waits at most `--shutdown-grace` for the requests under way before it drops every
//! connection still open. Connections that have shown no credential yet ([`Unproven`]) share a
//! small part of the room: past it, the oldest of them is closed, so idle or half-sent
//! anonymous connections never keep the human out.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use crate::config::HttpLimits;

/// Serves `app` on `listener` until `shutdown` resolves, then as [`HttpLimits`] says.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let app = app.layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
        limits.body_timeout,
    ));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let builder = Arc::new(builder);
    let room = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let unproven = Arc::new(Unproven::default());
    let connections = TaskTracker::new();
    // Set when shutdown begins: each connection finishes the request it is in, then closes.
    let closing = CancellationToken::new();
    // Set when the grace is over: what is still open is dropped.
    let dropped = CancellationToken::new();
    tokio::pin!(shutdown);
    // Anonymous connections past their share go, while the room is full too.
    tokio::spawn(unproven.clone().sweep_until(closing.clone()));
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => break,
            p = room.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let (stream, remote) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => (stream, remote),
                Err(e) => {
                    // Out of descriptors, or a connection reset before it was accepted: the
                    // loop goes on (a moment later, so a full table is not spun on).
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let admission = unproven.admit(remote.ip());
        let close = admission.close.clone();
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: axum::extract::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(admission.clone());
                req
            },
        ));
        let (builder, closing, dropped) = (builder.clone(), closing.clone(), dropped.clone());
        connections.spawn(async move {
            let _permit = permit;
            let conn = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                // Anonymous past its share: dropped.
                _ = close.cancelled() => return,
                _ = closing.cancelled() => conn.as_mut().graceful_shutdown(),
            }
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = dropped.cancelled() => {}
            }
        });
    }
    drop(listener);
    closing.cancel();
    connections.close();
    if tokio::time::timeout(limits.shutdown_grace, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            open = connections.len(),
            "connections still open after the shutdown grace are dropped"
        );
        dropped.cancel();
        connections.wait().await;
    }
    Ok(())
}

/// How many connections that have shown no credential are kept once past [`GRACE`]; past it,
/// the oldest go.
pub const ANONYMOUS_SLOTS: usize = 64;
/// Of those, how many from one address.
pub const PER_ADDRESS: usize = 16;
/// How long a new connection has to show its credential before it counts as anonymous (a
/// browser's or a client's first request comes at once).
pub const GRACE: Duration = Duration::from_millis(500);
/// How often the anonymous connections past their share are looked for.
const SWEEP_EVERY: Duration = Duration::from_millis(50);

/// The connections that have shown no credential yet, oldest first.
#[derive(Default)]
pub struct Unproven {
    open: Mutex<Vec<Waiting>>,
    next: std::sync::atomic::AtomicU64,
}

struct Waiting {
    id: u64,
    ip: IpAddr,
    since: Instant,
    close: CancellationToken,
}

/// A connection's place among the [`Unproven`], in each of its requests' extensions: the
/// security guard [`proves`](Admission::prove) it once a request shows a credential; it leaves
/// when the connection ends.
#[derive(Clone)]
pub struct Admission {
    id: u64,
    close: CancellationToken,
    unproven: Arc<Unproven>,
    _left: Arc<Left>,
}

/// Takes a connection off the list when its last request and the connection are gone.
struct Left(u64, std::sync::Weak<Unproven>);

impl Drop for Left {
    fn drop(&mut self) {
        if let Some(u) = self.1.upgrade() {
            u.remove(self.0);
        }
    }
}

impl Admission {
    /// This connection showed a credential: it is never closed for being anonymous.
    pub fn prove(&self) {
        self.unproven.remove(self.id);
    }
}

impl Unproven {
    /// A new connection from `ip`, anonymous until proven.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Admission {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let close = CancellationToken::new();
        let waiting = Waiting {
            id,
            ip,
            since: Instant::now(),
            close: close.clone(),
        };
        self.lock().push(waiting);
        Admission {
            id,
            close,
            unproven: self.clone(),
            _left: Arc::new(Left(id, Arc::downgrade(self))),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn remove(&self, id: u64) {
        self.lock().retain(|w| w.id != id);
    }

    /// Sweeps every [`SWEEP_EVERY`] until `stop`.
    async fn sweep_until(self: Arc<Self>, stop: CancellationToken) {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = every.tick() => self.sweep(Instant::now()),
            }
        }
    }

    /// Closes the oldest anonymous connections past [`GRACE`] beyond [`PER_ADDRESS`] from one
    /// address and [`ANONYMOUS_SLOTS`] in all.
    pub fn sweep(&self, now: Instant) {
        let mut open = self.lock();
        let old = |w: &Waiting| now.duration_since(w.since) >= GRACE;
        let mut per_ip: HashMap<IpAddr, usize> = HashMap::new();
        for w in open.iter().filter(|w| old(w)) {
            *per_ip.entry(w.ip).or_default() += 1;
        }
        let mut over = open
            .iter()
            .filter(|w| old(w))
            .count()
            .saturating_sub(ANONYMOUS_SLOTS);
        // Oldest first: an address past its share loses its own oldest, then the oldest of
        // all go until the anonymous are within theirs.
        let mut closed = 0;
        open.retain(|w| {
            if !old(w) {
                return true;
            }
            let mut mine = per_ip.get(&w.ip).copied().unwrap_or(0);
            let go = mine > PER_ADDRESS || over > 0;
            if go {
                mine -= 1;
                per_ip.insert(w.ip, mine);
                over = over.saturating_sub(1);
                w.close.cancel();
                closed += 1;
            }
            !go
        });
        if closed > 0 {
            tracing::debug!(closed, "anonymous connections past their share were closed");
        }
    }
}
