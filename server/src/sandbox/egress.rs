//! The agents' only way out of their sandbox's empty network: an HTTP proxy of the server's on a
//! Unix socket in each agent's runtime folder, which the relay inside the sandbox
//! ([`super::relay`]) reaches from `127.0.0.1:3128` (the agent's `HTTP_PROXY` and
//! `HTTPS_PROXY`). It takes `CONNECT host:port` (HTTPS) and absolute-form requests (plain HTTP,
//! a model API on loopback), and opens a connection only to the model's API and the hosts the
//! human allowed (`--agent-net-allow`), never to the console itself; anything else is a `403`
//! that names the flag, logged.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio_util::sync::CancellationToken;

/// The longest request head read before deciding.
const MAX_HEAD: usize = 16 * 1024;

/// Where agents may connect.
#[derive(Clone, Debug, Default)]
pub struct Allow {
    /// Host (lower case) and port.
    pub hosts: Vec<(String, u16)>,
    /// The console's own address: never reached, whatever resolves to it.
    pub console: Option<SocketAddr>,
}

impl Allow {
    /// The model's API (`ANTHROPIC_BASE_URL`, else Anthropic's), and `extra` (`HOST[:PORT]`, 443
    /// when no port is given); the console at `console` never.
    pub fn new(
        base_url: Option<&str>,
        extra: &[String],
        console: SocketAddr,
    ) -> Result<Allow, String> {
        let mut hosts = vec![match base_url.filter(|u| !u.trim().is_empty()) {
            Some(url) => {
                let u = reqwest::Url::parse(url.trim())
                    .map_err(|e| format!("ANTHROPIC_BASE_URL {url:?}: {e}"))?;
                let host = u
                    .host_str()
                    .ok_or(format!("ANTHROPIC_BASE_URL {url:?} has no host"))?;
                (
                    host.trim_matches(['[', ']']).to_ascii_lowercase(),
                    u.port_or_known_default().unwrap_or(443),
                )
            }
            None => ("api.anthropic.com".to_string(), 443),
        }];
        for entry in extra {
            hosts.push(host_port(entry)?);
        }
        Ok(Allow {
            hosts,
            console: Some(console),
        })
    }

    fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        self.hosts.iter().any(|(h, p)| *h == host && *p == port)
    }

    /// Whether `addr` is the console.
    fn is_console(&self, addr: &SocketAddr) -> bool {
        self.console
            .is_some_and(|console| crate::own_address::is_own(addr, console))
    }
}

/// `HOST[:PORT]` (443 when no port is given; an IPv6 address in brackets).
pub fn host_port(entry: &str) -> Result<(String, u16), String> {
    let e = entry.trim();
    let bad = || format!("--agent-net-allow {entry:?}: not HOST or HOST:PORT");
    let (host, port) = match e.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(':') && (!h.contains(':') || h.starts_with('[')) => {
            (h, p.parse::<u16>().map_err(|_| bad())?)
        }
        _ => (e, 443),
    };
    let host = host.trim_matches(['[', ']']);
    if host.is_empty() || host.contains(['/', ' ', '@']) {
        return Err(bad());
    }
    Ok((host.to_ascii_lowercase(), port))
}

/// One agent's proxy: serves `socket` until dropped (the socket file goes with it).
pub struct Egress {
    socket: PathBuf,
    stop: CancellationToken,
}

impl Drop for Egress {
    fn drop(&mut self) {
        self.stop.cancel();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// The longest path a Unix socket may have on Linux (`sun_path`, less its closing NUL).
pub const MAX_SOCKET_PATH: usize = 107;

impl Egress {
    /// Listens on `socket` (made anew) for the agent in `seat`.
    pub fn start(socket: &Path, allow: std::sync::Arc<Allow>, seat: u8) -> std::io::Result<Egress> {
        let length = socket.as_os_str().len();
        if length > MAX_SOCKET_PATH {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is {length} bytes, a Unix socket's path at most {MAX_SOCKET_PATH}: \
                     choose a shorter --data-dir",
                    socket.display()
                ),
            ));
        }
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket)?;
        let stop = CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(async move {
            loop {
                let conn = tokio::select! {
                    _ = until.cancelled() => return,
                    c = listener.accept() => c,
                };
                let Ok((conn, _)) = conn else { continue };
                let allow = allow.clone();
                let until = until.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = until.cancelled() => {}
                        _ = serve(conn, &allow, seat) => {}
                    }
                });
            }
        });
        Ok(Egress {
            socket: socket.to_owned(),
            stop,
        })
    }
}

/// One connection from the relay: its first request decides where it goes.
async fn serve(mut conn: UnixStream, allow: &Allow, seat: u8) {
    let Some((head, rest)) = read_head(&mut conn).await else {
        return;
    };
    let Some(ask) = Ask::parse(&head) else {
        let _ = refuse(&mut conn, 400, "not a proxy request").await;
        return;
    };
    if !allow.allows(&ask.host, ask.port) {
        tracing::warn!(seat, host = %ask.host, port = ask.port, "an agent's connection was refused: not an allowed host");
        let why = format!(
            "{}:{} is not reachable from an agent's sandbox (the human allows hosts with --agent-net-allow)",
            ask.host, ask.port
        );
        let _ = refuse(&mut conn, 403, &why).await;
        return;
    }
    let upstream = match connect(allow, &ask.host, ask.port).await {
        Ok(u) => u,
        Err(why) => {
            tracing::warn!(seat, host = %ask.host, port = ask.port, "an agent's connection failed: {why}");
            let _ = refuse(&mut conn, 502, &why).await;
            return;
        }
    };
    let mut upstream = upstream;
    let sent = match &ask.origin_form {
        // HTTPS: the tunnel is open, what follows is the client's.
        None => conn
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await
            .and(Ok(())),
        // Plain HTTP: the request as the server expects it, then what followed it; one
        // request a connection (`Connection: close`), so a client's next request, maybe for
        // another host, comes on a new one and is judged again.
        Some(line) => {
            let head = format!("{line}\r\n{}", closing(&ask.after_line));
            upstream.write_all(head.as_bytes()).await
        }
    };
    if sent.is_ok() && upstream.write_all(&rest).await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut conn, &mut upstream).await;
    }
}

/// A proxy request's destination.
struct Ask {
    host: String,
    port: u16,
    /// For an absolute-form request: its line in origin form (`GET /v1/x HTTP/1.1`).
    origin_form: Option<String>,
    /// The head after its first line (headers and the blank line).
    after_line: String,
}

impl Ask {
    fn parse(head: &str) -> Option<Ask> {
        let (line, after) = head.split_once("\r\n")?;
        let mut parts = line.split(' ');
        let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
        if method == "CONNECT" {
            let (host, port) = target.rsplit_once(':')?;
            return Some(Ask {
                host: host.trim_matches(['[', ']']).to_string(),
                port: port.parse().ok()?,
                origin_form: None,
                after_line: String::new(),
            });
        }
        let url = reqwest::Url::parse(target).ok()?;
        if url.scheme() != "http" {
            return None;
        }
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        Some(Ask {
            host: url.host_str()?.trim_matches(['[', ']']).to_string(),
            port: url.port_or_known_default()?,
            origin_form: Some(format!("{method} {path} {version}")),
            after_line: after.to_string(),
        })
    }
}

/// A request's headers (after its first line, to its blank line) asking to close after it:
/// `Connection` and `Proxy-Connection` dropped, `Connection: close` added.
fn closing(headers: &str) -> String {
    let kept: String = headers
        .split("\r\n")
        .filter(|h| !h.is_empty())
        .filter(|h| {
            let name = h.split(':').next().unwrap_or("").trim();
            !name.eq_ignore_ascii_case("connection")
                && !name.eq_ignore_ascii_case("proxy-connection")
        })
        .map(|h| format!("{h}\r\n"))
        .collect();
    format!("{kept}Connection: close\r\n\r\n")
}

/// The request head (to its blank line) and what came after it.
async fn read_head(conn: &mut UnixStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(30), conn.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Some((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

/// A connection to `host:port`, never to the console.
async fn connect(allow: &Allow, host: &str, port: u16) -> Result<TcpStream, String> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("{host} could not be resolved: {e}"))?
        .collect();
    if let Some(a) = addrs.iter().find(|a| allow.is_console(a)) {
        return Err(format!(
            "{host}:{port} is the console itself ({a}): never from an agent"
        ));
    }
    let mut last = format!("{host} has no address");
    for a in addrs {
        match tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(a)).await {
            Ok(Ok(s)) => return Ok(s),
            Ok(Err(e)) => last = format!("{a}: {e}"),
            Err(_) => last = format!("{a}: no answer within 10 s"),
        }
    }
    Err(last)
}

async fn refuse(conn: &mut UnixStream, status: u16, why: &str) -> std::io::Result<()> {
    let reason = match status {
        403 => "Forbidden",
        502 => "Bad Gateway",
        _ => "Bad Request",
    };
    let body = format!("soulgrid: {why}\n");
    let answer = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(answer.as_bytes()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports_are_read_and_the_console_is_never_allowed() {
        assert_eq!(host_port("github.com").unwrap(), ("github.com".into(), 443));
        assert_eq!(
            host_port("Example.org:8080").unwrap(),
            ("example.org".into(), 8080)
        );
        assert_eq!(host_port("[::1]:9").unwrap(), ("::1".into(), 9));
        assert!(host_port("a b").is_err() && host_port("x:y").is_err() && host_port("").is_err());
        let console: SocketAddr = "127.0.0.1:3000".parse().unwrap();
        let allow =
            Allow::new(Some("http://127.0.0.1:4000"), &["pypi.org".into()], console).unwrap();
        assert!(allow.allows("127.0.0.1", 4000) && allow.allows("PyPI.org", 443));
        assert!(!allow.allows("127.0.0.1", 3000) && !allow.allows("pypi.org", 80));
        assert!(allow.is_console(&"127.0.0.1:3000".parse().unwrap()));
        assert!(allow.is_console(&"[::1]:3000".parse().unwrap()));
        assert!(!allow.is_console(&"127.0.0.1:4000".parse().unwrap()));
        let default = Allow::new(None, &[], console).unwrap();
        assert!(default.allows("api.anthropic.com", 443));
    }

    #[test]
    fn a_proxy_request_names_its_destination() {
        let c = Ask::parse("CONNECT api.anthropic.com:443 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.origin_form),
            ("api.anthropic.com", 443, None)
        );
        let h = Ask::parse("POST http://127.0.0.1:4000/v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n").unwrap();
        assert_eq!((h.host.as_str(), h.port), ("127.0.0.1", 4000));
        assert_eq!(
            h.origin_form.as_deref(),
            Some("POST /v1/messages?beta=true HTTP/1.1")
        );
        assert_eq!(h.after_line, "Host: 127.0.0.1:4000\r\n\r\n");
        assert!(Ask::parse("GET /relative HTTP/1.1\r\n\r\n").is_none());
    }

    /// A kept-alive proxy connection would carry a client's next request, maybe for another
    /// host, to the first one's: each forwarded request closes its connection.
    #[test]
    fn a_forwarded_request_closes_its_connection() {
        let head =
            "Host: a\r\nConnection: keep-alive\r\nProxy-Connection: Keep-Alive\r\nX: 1\r\n\r\n";
        assert_eq!(
            closing(head),
            "Host: a\r\nX: 1\r\nConnection: close\r\n\r\n"
        );
    }

    async fn ask(socket: &Path, request: &str) -> String {
        let mut conn = UnixStream::connect(socket).await.unwrap();
        conn.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        tokio::time::timeout(Duration::from_secs(20), conn.read_to_string(&mut answer))
            .await
            .expect("the proxy answers")
            .unwrap();
        answer
    }

    /// Through the proxy's socket: an allowed host is reached (one request, then closed); a
    /// host not allowed is a `403` naming the flag; an allowed host that does not answer is a
    /// `502` saying why, and the agent's client sees it at once.
    #[tokio::test]
    async fn the_proxy_forwards_refuses_and_says_what_failed() {
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let up = upstream.local_addr().unwrap();
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed_port = closed.local_addr().unwrap().port();
        drop(closed);
        tokio::spawn(async move {
            let (mut c, _) = upstream.accept().await.unwrap();
            let mut seen = vec![0u8; 4096];
            let n = c.read(&mut seen).await.unwrap();
            let said = String::from_utf8_lossy(&seen[..n]).into_owned();
            assert!(said.starts_with("GET /v1/x HTTP/1.1\r\n"), "{said}");
            assert!(said.contains("Connection: close"), "{said}");
            c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .await
                .unwrap();
        });
        let console: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let extra = [format!("127.0.0.1:{closed_port}")];
        let base = format!("http://{up}");
        let allow = std::sync::Arc::new(Allow::new(Some(&base), &extra, console).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("egress.sock");
        let _egress = Egress::start(&socket, allow, 4).unwrap();

        let ok = ask(
            &socket,
            &format!("GET http://{up}/v1/x HTTP/1.1\r\nHost: {up}\r\n\r\n"),
        )
        .await;
        assert!(ok.starts_with("HTTP/1.1 200") && ok.ends_with("ok"), "{ok}");
        let refused = ask(&socket, "CONNECT example.com:443 HTTP/1.1\r\n\r\n").await;
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
        assert!(refused.contains("--agent-net-allow"), "{refused}");
        let failed = ask(
            &socket,
            &format!("CONNECT 127.0.0.1:{closed_port} HTTP/1.1\r\n\r\n"),
        )
        .await;
        assert!(failed.starts_with("HTTP/1.1 502 Bad Gateway"), "{failed}");
        assert!(
            failed.contains(&format!("127.0.0.1:{closed_port}")),
            "{failed}"
        );
        let nonsense = ask(&socket, "HELLO\r\n\r\n").await;
        assert!(nonsense.starts_with("HTTP/1.1 400"), "{nonsense}");
    }

    /// A socket path a Unix socket cannot have is said as such, with the way out.
    #[tokio::test]
    async fn a_socket_path_too_long_is_said() {
        let long = PathBuf::from(format!("/tmp/{}/egress.sock", "d".repeat(110)));
        let allow =
            std::sync::Arc::new(Allow::new(None, &[], "127.0.0.1:1".parse().unwrap()).unwrap());
        let e = Egress::start(&long, allow, 4).err().unwrap().to_string();
        assert!(e.contains("107") && e.contains("--data-dir"), "{e}");
    }
}
