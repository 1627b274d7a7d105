//! Room for those who belong (`http/serve.rs`): connections that have shown no credential
//! share a small part of `--max-connections`; past it their oldest are closed, so 512 idle or
//! half-sent anonymous connections do not keep the human waiting (8.8 s, a header timeout,
//! before: every slot was theirs).

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common;
use crate::SERIAL;

/// `GET /api/docs` with the login on a new connection: how long until its answer's status line.
async fn the_humans_request(at: &str) -> (Duration, String) {
    let started = Instant::now();
    let mut conn = tokio::net::TcpStream::connect(at).await.unwrap();
    let request = format!(
        "GET /api/docs HTTP/1.1\r\nHost: {at}\r\nAuthorization: Bearer {}\r\n\
         Connection: close\r\n\r\n",
        common::TOKEN
    );
    conn.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    conn.read_exact(&mut head).await.unwrap();
    (
        started.elapsed(),
        String::from_utf8_lossy(&head).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_connections_cannot_keep_the_human_out() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let served = common::Served::start(dir.path()).await;
    let at = served.at.clone();
    let slots = soulgrid::config::HttpLimits::default().max_connections;
    // As many as `--max-connections` (512): half say nothing, half send half a request, and
    // one made an anonymous request and keeps its connection open.
    let mut anonymous = Vec::new();
    for i in 0..slots {
        let mut conn = tokio::net::TcpStream::connect(&at).await.unwrap();
        if i % 2 == 1 {
            conn.write_all(b"GET /api/docs HTTP/1.1\r\nHost: ")
                .await
                .unwrap();
        }
        anonymous.push(conn);
    }
    // The human, while they are open (and one more made an anonymous request and keeps its
    // connection): served well within the header timeout (10 s) they held every slot for.
    let (first, status) = tokio::time::timeout(Duration::from_secs(5), async {
        let started = Instant::now();
        let mut asked = tokio::net::TcpStream::connect(&at).await.unwrap();
        let anonymous_request = format!("GET /healthz HTTP/1.1\r\nHost: {at}\r\n\r\n");
        asked.write_all(anonymous_request.as_bytes()).await.unwrap();
        let mut head = [0u8; 12];
        asked.read_exact(&mut head).await.unwrap();
        let (_, status) = the_humans_request(&at).await;
        (started.elapsed(), status)
    })
    .await
    .expect("the human was served within 5 s");
    assert_eq!(status, "HTTP/1.1 200", "{status}");
    // And again, once the anonymous ones past their share were closed: at once.
    let (again, status) = the_humans_request(&at).await;
    assert_eq!(status, "HTTP/1.1 200");
    println!("the human's request with 512 anonymous connections open: {first:?}, then {again:?}");
    assert!(again < Duration::from_secs(1), "{again:?}");
    drop(anonymous);
    served.stop().await;
}
