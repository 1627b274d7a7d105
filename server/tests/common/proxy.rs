//! A TCP proxy on 127.0.0.1 that a test can cut and mend: put between a server and its
//! database, it takes the database away (every connection through it ended, each new one
//! closed as soon as it is accepted) and brings it back, without touching the database.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Proxy {
    pub port: u16,
    down: Arc<AtomicBool>,
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
        let (cuts, _) = watch::channel(0u64);
        let accepting = tokio::spawn({
            let (down, cuts) = (down.clone(), cuts.clone());
            async move {
                while let Ok((mut client, _)) = listener.accept().await {
                    if down.load(Ordering::SeqCst) {
                        drop(client);
                        continue;
                    }
                    let mut cut = cuts.subscribe();
                    tokio::spawn(async move {
                        let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)).await
                        else {
                            return;
                        };
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                            _ = cut.changed() => {}
                        }
                    });
                }
            }
        });
        Proxy {
            port,
            down,
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

    /// Forwards new connections again.
    pub fn mend(&self) {
        self.down.store(false, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cut();
    }
}
