//! Notices changes in the inbox directory: file events through `notify` (debounced), plus a
//! slow poll in case events are lost (network file systems, full event queues).

use std::path::PathBuf;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::new_debouncer;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Sends `()` whenever the directory may have changed, until `stop` is cancelled.
pub fn watch(
    dir: PathBuf,
    debounce: Duration,
    poll: Duration,
    stop: CancellationToken,
) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel(1);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(dir = %dir.display(), error = %e, "cannot create the inbox directory");
    }
    let notify_tx = tx.clone();
    let debouncer = new_debouncer(
        debounce,
        None,
        move |result: notify_debouncer_full::DebounceEventResult| {
            if result.is_ok() {
                // A full channel already has a wake-up pending: nothing is lost.
                let _ = notify_tx.try_send(());
            }
        },
    );
    let debouncer = match debouncer {
        Ok(mut d) => match d.watch(&dir, RecursiveMode::NonRecursive) {
            Ok(()) => Some(d),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot watch the inboxes; polling only");
                None
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "no file watcher; polling the inboxes only");
            None
        }
    };
    tokio::spawn(async move {
        let _keep = debouncer;
        let mut tick = tokio::time::interval(poll);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tick.tick() => { let _ = tx.try_send(()); }
            }
        }
    });
    rx
}
