//! The accept loop, with the bounds a server facing slow or hostile clients needs (axum's own
//! `serve` has none of them): a request's headers must arrive within `--header-timeout`, its
//! body must not stall for `--body-timeout` (the router's layer), at most `--max-connections`
//! are open at once (the rest wait in the listen queue, holding no descriptor of ours), and a
//! shutdown waits at most `--shutdown-grace` for the requests under way before it drops every
//! connection still open.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

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
    let connections = TaskTracker::new();
    // Set when shutdown begins: each connection finishes the request it is in, then closes.
    let closing = CancellationToken::new();
    // Set when the grace is over: what is still open is dropped.
    let dropped = CancellationToken::new();
    tokio::pin!(shutdown);
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
        // Each request knows both ends of its connection (`peer`: whose process is asking).
        let Ok(local) = stream.local_addr() else {
            continue;
        };
        let peer = super::peer::Peer { remote, local };
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: axum::extract::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(peer);
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
