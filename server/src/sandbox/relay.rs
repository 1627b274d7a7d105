//! Inside a sandbox (`soulgrid relay`, not for people): the agent's program is started once a
//! listener on `127.0.0.1:3128` is there, and every connection to it is carried to the
//! server's egress proxy over the Unix socket bound into the sandbox. It ends with the program,
//! with its exit status.

use std::ffi::OsString;
use std::path::PathBuf;

/// Runs `program`, relaying `listen` to `unix` meanwhile; the program's exit code.
pub async fn run(listen: std::net::SocketAddr, unix: PathBuf, program: Vec<OsString>) -> i32 {
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("soulgrid relay: cannot listen on {listen}: {e}");
            return 126;
        }
    };
    let Some((first, rest)) = program.split_first() else {
        eprintln!("soulgrid relay: no program to run");
        return 126;
    };
    let mut child = match tokio::process::Command::new(first).args(rest).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "soulgrid relay: cannot start {}: {e}",
                first.to_string_lossy()
            );
            return 127;
        }
    };
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            let unix = unix.clone();
            tokio::spawn(async move {
                if let Ok(mut out) = tokio::net::UnixStream::connect(&unix).await {
                    let _ = tokio::io::copy_bidirectional(&mut tcp, &mut out).await;
                }
            });
        }
    });
    match child.wait().await {
        Ok(status) => status.code().unwrap_or_else(|| {
            128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)
        }),
        Err(_) => 1,
    }
}
