//! Servers the tests listen with: one booted in this process and served on a free port
//! (`Served`), the real `soulgrid` binary (`ServerProcess`), and a raw request to either.

use std::path::Path;

use soulgrid::state::AppState;

use super::{boot_with, config, TOKEN};

/// A server booted on `dir` and served on a free loopback port in this process, as `main`
/// serves it (`http::serve`): stop it with [`Served::stop`].
pub struct Served {
    pub state: AppState,
    pub at: String,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Served {
    pub async fn start(dir: &Path) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = listener.local_addr().unwrap().to_string();
        let config = config(dir, &["--addr", &at]);
        let state = boot_with(dir, &["--addr", &at]).await;
        let router = soulgrid::http::router(state.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(soulgrid::http::serve::serve(
            listener,
            router,
            config.http.clone(),
            async move {
                let _ = stopped.await;
            },
        ));
        Served {
            state,
            at,
            stop,
            serving,
        }
    }

    pub async fn stop(self) {
        let _ = self.stop.send(());
        self.serving.await.unwrap().unwrap();
        soulgrid::shut_down(&self.state).await;
    }
}

/// The real `soulgrid` binary on a free loopback port; killed when dropped.
pub struct ServerProcess {
    pub child: tokio::process::Child,
    pub port: u16,
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The environment a test's `soulgrid` process runs with: its address, data directory, human.
pub fn server_env(data_dir: &Path, port: u16) -> Vec<(&'static str, std::ffi::OsString)> {
    vec![
        ("SOULGRID_ADDR", format!("127.0.0.1:{port}").into()),
        ("SOULGRID_DATA_DIR", data_dir.into()),
        ("SOULGRID_HUMAN_NAME", "Marcus".into()),
        ("SOULGRID_TOKEN", TOKEN.into()),
        ("LEPTOS_OUTPUT_NAME", "soulgrid".into()),
        ("RUST_LOG", "warn".into()),
    ]
}

impl ServerProcess {
    pub async fn start(data_dir: &Path) -> ServerProcess {
        Self::start_with(data_dir, &[]).await
    }

    pub async fn start_with(data_dir: &Path, args: &[&str]) -> ServerProcess {
        let port = free_port();
        let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
            .args(args)
            .envs(server_env(data_dir, port))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("starting the soulgrid binary");
        let server = ServerProcess { child, port };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if let Some(reply) = raw_request(port, "GET", "/healthz", None).await {
                if reply.starts_with("HTTP/1.1 200") {
                    return server;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "soulgrid did not start on port {port}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM and wait: a clean shutdown.
    pub async fn stop(mut self) {
        let pid = self.child.id().expect("running") as i32;
        // SAFETY: plain kill(2) on the PID of the child this test started.
        unsafe { libc_kill(pid, 15) };
        let status = tokio::time::timeout(std::time::Duration::from_secs(10), self.child.wait())
            .await
            .expect("soulgrid stops within 10 s of SIGTERM")
            .unwrap();
        assert!(status.success(), "clean exit, got {status}");
    }

    /// SIGTERM, without waiting.
    pub fn terminate(&mut self) {
        let pid = self.child.id().expect("running") as i32;
        // SAFETY: plain kill(2) on the PID of the child this test started.
        unsafe { libc_kill(pid, 15) };
    }

    /// Its exit status, if it exits within `limit`.
    pub async fn wait_exit(
        &mut self,
        limit: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(limit, self.child.wait())
            .await
            .ok()
            .map(|s| s.expect("waiting for soulgrid"))
    }

    /// SIGKILL: a crash.
    pub async fn kill(mut self) {
        self.child.start_kill().unwrap();
        self.child.wait().await.unwrap();
    }
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

/// One HTTP/1.1 request on its own connection; the whole response as text, or None if the
/// server could not be reached or hung up.
pub async fn raw_request(
    port: u16,
    method: &str,
    path: &str,
    json: Option<&str>,
) -> Option<String> {
    let body = json.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    raw_exchange(port, &req).await
}

/// `request` as it is written, on its own connection: the whole response as text.
pub async fn raw_exchange(port: u16, request: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .ok()?;
    s.write_all(request.as_bytes()).await.ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.ok()?;
    let text = String::from_utf8_lossy(&out).into_owned();
    (!text.is_empty()).then_some(text)
}
