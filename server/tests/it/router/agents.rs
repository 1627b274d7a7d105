//! An agent's command may not drive the console (http/peer.rs): the agents run commands as
//! the same user, so `curl -X POST 127.0.0.1:…/api/budgets` from one of them would raise its own
//! budget, add itself rules or approve its own requests. A mutating request from a process of
//! the server's tree (here: a child of this test, which is the server's process) is refused;
//! its reads, and the same request from the server's own process, are served.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common;
use crate::SERIAL;

#[tokio::test]
async fn a_process_the_server_started_cannot_drive_the_console() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let served = common::Served::start(dir.path()).await;
    let at = served.at.clone();
    let url = format!("http://{at}/api/budgets");

    let (status, body) = common::from_a_child("POST", &url).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("agents' processes"), "{body}");
    // Nothing was set.
    let (status, body) = common::from_a_child("GET", &url).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("perDayUsd"), "{body}");

    // The server's own process (a tool of the human's, in the same process in this test).
    let body = r#"{"perDayUsd": 5}"#;
    let mut conn = tokio::net::TcpStream::connect(&at).await.unwrap();
    let request = format!(
        "POST /api/budgets HTTP/1.1\r\nHost: {at}\r\ncontent-type: application/json\r\n\
         authorization: {}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        common::BEARER,
        body.len()
    );
    conn.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(60), conn.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (status, body) = common::from_a_child("GET", &url).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("perDayUsd"), "{body}");

    served.stop().await;
}
