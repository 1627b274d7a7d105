//! Inside a sandbox (`soulgrid relay`, not for people): the agent's program is started once a
//! listener on `127.0.0.1:3128` is there, and every connection to it is carried to the
//! server's egress proxy over the Unix socket bound into the sandbox. It ends with the program,
//! with its exit status. A `SIGTERM` is the program's to answer (a stop asks it so): the relay
//! stays until the program ends.

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
    // Held for as long as the program runs: a stop's `SIGTERM` does not end the relay (a handler,
    // unlike an ignored signal, is not inherited by the program).
    let _term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the relay cannot do is said on its stderr, with the exit code a shell gives: no
    /// program to run (`127`), a port it cannot listen on (`126`); a program's own code passes
    /// through.
    #[tokio::test]
    async fn what_the_relay_cannot_do_it_says() {
        let any: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
        let sock = PathBuf::from("/nonexistent/egress.sock");
        let missing = vec![OsString::from("/nonexistent/program")];
        assert_eq!(run(any, sock.clone(), missing).await, 127);
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let at = taken.local_addr().unwrap();
        let sh = |code: &str| vec!["/bin/sh".into(), "-c".into(), format!("exit {code}").into()];
        assert_eq!(run(at, sock.clone(), sh("0")).await, 126);
        assert_eq!(run(any, sock.clone(), Vec::new()).await, 126);
        assert_eq!(run(any, sock, sh("3")).await, 3);
    }
}
