//! A TCP proxy on 127.0.0.1 that a test can cut, stall and mend: put between a server and its
//! database, it takes the database away (cut: every connection through it ended, each new one
//! closed as soon as it is accepted; stalled: every connection kept open and nothing carried,
//! as a network that stopped answering) and brings it back, without touching the database.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Proxy {
    pub port: u16,
    down: Arc<AtomicBool>,
    /// Nothing is carried while set.
    stalled: Arc<AtomicBool>,
    /// Each cut bumps it: every connection through the proxy ends.
    cuts: watch::Sender<u64>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Forwards a free port of 127.0.0.1 to `upstream`'s.
    pub async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let down = Arc::new(AtomicBool::new(false));
        let stalled = Arc::new(AtomicBool::new(false));
        let (cuts, _) = watch::channel(0u64);
        let accepting = tokio::spawn({
            let (down, stalled, cuts) = (down.clone(), stalled.clone(), cuts.clone());
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    if down.load(Ordering::SeqCst) {
                        drop(client);
                        continue;
                    }
                    let (mut cut, stalled) = (cuts.subscribe(), stalled.clone());
                    tokio::spawn(async move {
                        let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                            return;
                        };
                        let (from_client, to_client) = client.into_split();
                        let (from_server, to_server) = server.into_split();
                        tokio::select! {
                            _ = carry(from_client, to_server, stalled.clone()) => {}
                            _ = carry(from_server, to_client, stalled) => {}
                            _ = cut.changed() => {}
                        }
                    });
                }
            }
        });
        Proxy {
            port,
            down,
            stalled,
            cuts,
            accepting,
        }
    }

    /// `url` (a `postgres://…@127.0.0.1:PORT/…`) through this proxy instead.
    pub fn url(&self, url: &str) -> String {
        let (head, rest) = url.split_once("@127.0.0.1:").expect("a URL on 127.0.0.1");
        let (_, tail) = rest.split_once('/').expect("a URL with a database");
        format!("{head}@127.0.0.1:{}/{tail}", self.port)
    }

    /// Ends every connection through the proxy and closes each new one at once.
    pub fn cut(&self) {
        self.down.store(true, Ordering::SeqCst);
        self.cuts.send_modify(|n| *n += 1);
    }

    /// Keeps every connection open and carries nothing (what was sent waits), until mended.
    pub fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }

    /// Forwards new connections again, and carries what waited.
    pub fn mend(&self) {
        self.stalled.store(false, Ordering::SeqCst);
        self.down.store(false, Ordering::SeqCst);
    }
}

/// Copies `from` to `to`, holding each read while `stalled`.
async fn carry(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    stalled: Arc<AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while stalled.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cut();
    }
}
