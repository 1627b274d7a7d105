//! The inbox watcher's side of mail: as the inbox directory changes, mail is handed to awake
//! agents ([`Postman::deliver_mail`]), mail others wrote into the human's inbox is shown, and
//! inboxes moved aside as invalid are reported.

use std::path::PathBuf;
use std::time::Duration;

use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};

use crate::mailbox::watch::Changes;
use crate::runtime::mail::postman::Postman;

impl Postman {
    /// Delivers mail that anyone appends to an awake agent's inbox, as the inbox directory
    /// changes: only the inboxes that changed are read (a slow poll looks at all of them).
    pub async fn watch_mail(&self) {
        let mut watcher = crate::mailbox::watch::watch(
            self.ctx.mailboxes().dir().to_path_buf(),
            Duration::from_secs(30),
            Duration::from_secs(2),
            (self.ctx.shutdown_token(), self.ctx.tasks()),
        );
        // Inboxes moved aside before this server started were reported by an earlier one.
        let since = self.ctx.clock().now_ms();
        // Mail that waited for the lead while no server ran (or that its last process did not
        // take) is handed over before the server answers anyone: a message sent at once is
        // then the lead's next (it would otherwise race this start, and a first message could
        // be answered `delivered` for a lead this start began with it).
        self.deliver_mail(LEAD_SEAT).await;
        let postman = self.clone();
        self.ctx.spawn(async move {
            let mut reported = std::collections::HashSet::new();
            while let Some(changes) = watcher.next().await {
                postman
                    .on_inbox_changes(changes, since, &mut reported)
                    .await;
                postman.inboxes_changed.notify_one();
            }
        });
    }

    async fn on_inbox_changes(
        &self,
        changes: Changes,
        since: i64,
        reported: &mut std::collections::HashSet<PathBuf>,
    ) {
        if changes.all {
            for seat in self.processes.running() {
                self.deliver_mail(seat).await;
            }
            self.collect_human_mail().await;
            self.report_moved_aside(since, reported).await;
            return;
        }
        let human = Some(self.ctx.human_inbox());
        let mut moved_aside = false;
        for file in &changes.files {
            moved_aside |= file.contains(".json.invalid-");
            // Locks and temp files are not inboxes.
            let Some(inbox) = file.strip_suffix(".json") else {
                continue;
            };
            // This server's own write with nothing unread in it (a mark of mail read, replies
            // filed for the human): nothing to hand over or collect.
            if self.ctx.mailboxes().settled(inbox) {
                continue;
            }
            if Some(inbox) == human.as_deref() {
                self.collect_human_mail().await;
            } else if let Some(seat) = self.running_seat_of_inbox(inbox) {
                self.deliver_mail(seat).await;
            }
        }
        if moved_aside {
            self.report_moved_aside(since, reported).await;
        }
    }

    /// The running seat whose inbox file is `{inbox}.json`.
    fn running_seat_of_inbox(&self, inbox: &str) -> Option<Seat> {
        self.ctx
            .seat_of_inbox(inbox)
            .filter(|s| self.processes.running().contains(s))
    }

    /// An inbox that was not valid JSON was moved aside (by whichever reader met it first):
    /// said once, on the seat whose inbox it was, with where the file is kept.
    async fn report_moved_aside(
        &self,
        since: i64,
        reported: &mut std::collections::HashSet<PathBuf>,
    ) {
        let found = self.ctx.mailboxes().moved_aside_since(since);
        let mut events = Vec::new();
        for (inbox, path) in found {
            if !reported.insert(path.clone()) {
                continue;
            }
            let seat = self.ctx.seat_of_inbox(&inbox);
            events.push(EventKind::RuntimeError {
                seat,
                message: format!(
                    "the inbox of {inbox} was not valid JSON; it was moved aside to {} and a new one started",
                    path.display()
                ),
            });
        }
        self.ctx.record(events).await;
    }

    /// Mail others wrote into the human's inbox (an agent's own tooling, another program) is
    /// shown: recorded in the sender's thread (the lead's when the sender has no seat), then
    /// marked read.
    pub async fn collect_human_mail(&self) {
        let (mailboxes, human) = (self.ctx.mailboxes().clone(), self.ctx.human_inbox());
        let unread =
            match tokio::task::spawn_blocking(move || mailboxes.unread_tagged(&human)).await {
                Ok(Ok(unread)) => unread,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "reading the human's inbox failed");
                    return;
                }
                Err(_) => return,
            };
        if unread.is_empty() {
            return;
        }
        self.record_external(&unread, LEAD_SEAT, None).await;
        let ids: Vec<String> = unread.into_iter().filter_map(|m| m.msg_id).collect();
        let (mailboxes, human) = (self.ctx.mailboxes().clone(), self.ctx.human_inbox());
        if let Ok(Err(e)) =
            tokio::task::spawn_blocking(move || mailboxes.mark_read(&human, &ids)).await
        {
            tracing::warn!(error = %e, "marking the human's mail read failed");
        }
    }
}
