//! The accept loop's bounds on clients (http/serve.rs): a half-sent request, a stalled body, a
//! handler that never ends at shutdown, and more connections than the cap. Each failed before:
//! axum's `serve` waited on all of them for ever.

use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;
use soulgrid::http::serve::{serve, HttpLimits};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Long enough that no bound here is met by a slow machine instead of the server.
const PATIENCE: Duration = Duration::from_secs(20);

fn app() -> Router {
    Router::new()
        .route("/", get(|| async { "hello" }))
        .route("/echo", post(|body: String| async move { body }))
        .route("/forever", get(std::future::pending::<&'static str>))
}

struct Running {
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(limits: HttpLimits) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(serve(listener, app(), limits, async move {
        let _ = rx.await;
    }));
    Running {
        port,
        stop: Some(tx),
        done,
    }
}

impl Running {
    async fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).await.unwrap()
    }

    /// Shuts down; how the serve loop ended, within `PATIENCE`.
    async fn shut_down(mut self) -> Result<(), String> {
        let _ = self.stop.take().unwrap().send(());
        match tokio::time::timeout(PATIENCE, &mut self.done).await {
            Ok(r) => r.unwrap().map_err(|e| e.to_string()),
            Err(_) => Err("still serving".into()),
        }
    }
}

fn limits() -> HttpLimits {
    HttpLimits {
        header_timeout: Duration::from_secs(60),
        body_timeout: Duration::from_secs(60),
        shutdown_grace: Duration::from_secs(60),
        max_connections: 64,
    }
}

/// Reads until the server closes; what it sent.
async fn read_to_close(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(PATIENCE, s.read_to_end(&mut out))
        .await
        .expect("the server closed the connection")
        .ok();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn a_request_whose_headers_never_end_is_dropped() {
    let server = start(HttpLimits {
        header_timeout: Duration::from_millis(300),
        ..limits()
    })
    .await;
    let mut s = server.connect().await;
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let said = read_to_close(&mut s).await;
    assert!(!said.contains("hello"), "{said}");
    // An idle connection that never sends anything, too.
    let mut idle = server.connect().await;
    read_to_close(&mut idle).await;
    server.shut_down().await.unwrap();
}

#[tokio::test]
async fn a_body_that_stalls_is_dropped() {
    let server = start(HttpLimits {
        body_timeout: Duration::from_millis(300),
        ..limits()
    })
    .await;
    let mut s = server.connect().await;
    s.write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nten bytes.")
        .await
        .unwrap();
    let said = read_to_close(&mut s).await;
    assert!(!said.contains("ten bytes."), "never echoed: {said}");
    // A body that arrives is served.
    let mut s = server.connect().await;
    s.write_all(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
    )
    .await
    .unwrap();
    assert!(read_to_close(&mut s).await.ends_with("hello"));
    server.shut_down().await.unwrap();
}

#[tokio::test]
async fn shutdown_drops_what_is_still_open_after_its_grace() {
    let server = start(HttpLimits {
        shutdown_grace: Duration::from_millis(300),
        ..limits()
    })
    .await;
    // A handler that never ends, a half-sent request, and an idle keep-alive connection.
    let mut forever = server.connect().await;
    forever
        .write_all(b"GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut half = server.connect().await;
    half.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
    let mut kept = server.connect().await;
    kept.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    server
        .shut_down()
        .await
        .expect("serving ended after the grace");
    for s in [&mut forever, &mut half, &mut kept] {
        read_to_close(s).await;
    }
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_closes() {
    let server = start(HttpLimits {
        max_connections: 2,
        ..limits()
    })
    .await;
    let a = server.connect().await;
    let _b = server.connect().await;
    let mut third = server.connect().await;
    third
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    // Not served while two are open (the kernel holds it in the listen queue).
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.read(&mut byte)).await;
    assert!(early.is_err(), "served past the cap");
    drop(a);
    let said = read_to_close(&mut third).await;
    assert!(said.ends_with("hello"), "served once one closed: {said:?}");
    server.shut_down().await.unwrap();
}

/// The server itself: a client that sent half a request and waits kept it running after
/// SIGTERM (its graceful shutdown waited for the request for ever).
#[tokio::test]
async fn sigterm_ends_the_server_with_a_half_sent_request_open() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        crate::common::ServerProcess::start_with(dir.path(), &["--shutdown-grace", "1s"]).await;
    let mut half = TcpStream::connect(("127.0.0.1", server.port))
        .await
        .unwrap();
    half.write_all(b"POST /api/send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{")
        .await
        .unwrap();
    let mut slow = TcpStream::connect(("127.0.0.1", server.port))
        .await
        .unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
    // Both reached the server before it is told to stop.
    crate::common::raw_request(server.port, "GET", "/healthz", None)
        .await
        .expect("serving");
    server.stop().await;
}
