//! The child's pipes besides stdout: stderr drained into the log (its last line kept, for the
//! reason of a crash), and stdin written one line per message.

use app::domain::Seat;
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::runtime::process::lines::{Line, LineCodec};

/// Drains stderr into the log until it closes; returns its last non-empty line. A long or
/// non-UTF-8 line is skipped, never the end of the drain (a closed pipe would kill the CLI
/// with `SIGPIPE` the next time it writes).
pub async fn drain_stderr(seat: Seat, stderr: tokio::process::ChildStderr) -> Option<String> {
    let mut lines = FramedRead::new(stderr, LineCodec::new(64 * 1024));
    let mut last = None;
    while let Some(line) = lines.next().await {
        match line {
            Ok(Line::Text(line)) => {
                tracing::warn!(seat, "stderr: {line:.2000}");
                if !line.trim().is_empty() {
                    last = Some(line);
                }
            }
            Ok(bad) => tracing::warn!(
                seat,
                "stderr: skipped {}",
                bad.skipped().unwrap_or_default()
            ),
            Err(e) => {
                tracing::warn!(seat, error = %e, "reading stderr failed");
                break;
            }
        }
    }
    last
}

/// The supervisor's stdin writer: one line per message, until the channel or the pipe closes.
pub async fn write_stdin(
    seat: Seat,
    mut stdin: tokio::process::ChildStdin,
    mut rx: mpsc::Receiver<String>,
) {
    use tokio::io::AsyncWriteExt;
    while let Some(line) = rx.recv().await {
        // One write for the line and its end: a reader woken by the line has all of it.
        let mut line = line;
        line.push('\n');
        let ok = stdin.write_all(line.as_bytes()).await.is_ok() && stdin.flush().await.is_ok();
        if !ok {
            tracing::warn!(seat, "the agent's stdin is closed");
            return;
        }
    }
}

/// How long writing on an agent's stdin may wait for room (an agent that does not read its
/// stdin must not hang the sender).
pub(crate) const STDIN_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
