//! Mail: what the human and others write to an agent goes through its inbox file, and from
//! there to the agent's stdin once it is awake; what agents say is filed in the human's inbox.

use std::path::PathBuf;
use std::time::Duration;

use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};

use super::{Delivery, Runtime};
use crate::mailbox::MailboxError;

impl Runtime {
    /// Delivers mail that anyone appends to an awake agent's inbox, as the inbox directory
    /// changes (and on a slow poll).
    pub fn watch_mail(&self) {
        let mut changes = crate::mailbox::watch::watch(
            self.inner.mailboxes.dir().to_path_buf(),
            Duration::from_millis(10),
            Duration::from_secs(2),
            self.inner.shutdown.clone(),
        );
        let rt = self.clone();
        tokio::spawn(async move {
            // Inboxes moved aside before this server started were reported by an earlier one.
            let since = crate::now_ms();
            let mut reported = std::collections::HashSet::new();
            while changes.recv().await.is_some() {
                for seat in rt.running() {
                    rt.deliver_mail(seat).await;
                }
                rt.collect_human_mail().await;
                rt.report_moved_aside(since, &mut reported).await;
                rt.inner.inboxes_changed.notify_one();
            }
        });
    }

    /// A message one agent (usually the lead) sends another with the `route` action: shown in
    /// the recipient's thread, filed in its inbox, and delivered now if it is awake or on its
    /// wake if it sleeps. A name that is not in the grid is a marker error on the sender's seat.
    pub async fn route(&self, from: &str, to: &str, text: &str) {
        let sender = self
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, from))
            .or_else(|| {
                from.eq_ignore_ascii_case(&self.names().lead)
                    .then_some(LEAD_SEAT)
            });
        let Some((seat, name)) = self
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, to))
            .and_then(|s| Some((s, self.seat_name(s)?)))
        else {
            self.record(vec![EventKind::MarkerError {
                seat: sender,
                line: format!("route to {to}"),
                error: format!("no agent named {to:?} is in the grid"),
            }])
            .await;
            return;
        };
        self.record(vec![EventKind::AgentMessage {
            message_id: uuid::Uuid::new_v4().simple().to_string(),
            seat,
            speaker_name: from.to_string(),
            text: text.to_string(),
            target_agent: Some(name.clone()),
        }])
        .await;
        let (mailboxes, from_name, body) = (
            self.inner.mailboxes.clone(),
            from.to_string(),
            text.to_string(),
        );
        let filed =
            tokio::task::spawn_blocking(move || mailboxes.send(&from_name, &name, &body, None))
                .await;
        if let Ok(Err(e)) = filed {
            self.record(vec![EventKind::RuntimeError {
                seat: Some(seat),
                message: format!("a message from {from} could not be filed: {e}"),
            }])
            .await;
            return;
        }
        self.deliver_mail(seat).await;
    }

    /// An inbox that was not valid JSON was moved aside (by whichever reader met it first):
    /// said once, on the seat whose inbox it was, with where the file is kept.
    async fn report_moved_aside(
        &self,
        since: i64,
        reported: &mut std::collections::HashSet<PathBuf>,
    ) {
        let found = self.inner.mailboxes.moved_aside_since(since);
        let mut events = Vec::new();
        for (inbox, path) in found {
            if !reported.insert(path.clone()) {
                continue;
            }
            let seat = if inbox.eq_ignore_ascii_case(&self.names().lead) {
                Some(LEAD_SEAT)
            } else {
                self.store()
                    .with_docs(|d| app::domain::docs::seat_named(d, &inbox))
            };
            events.push(EventKind::RuntimeError {
                seat,
                message: format!(
                    "the inbox of {inbox} was not valid JSON; it was moved aside to {} and a new one started",
                    path.display()
                ),
            });
        }
        self.record(events).await;
    }

    /// The human writes to the agent in `seat`: the message goes into its inbox file and, if
    /// it is awake (or it is the lead, who is started), on to its stdin.
    pub async fn send_from_human(&self, seat: Seat, text: &str) -> Result<Delivery, MailboxError> {
        let name = self
            .seat_name(seat)
            .ok_or_else(|| MailboxError::BadName(format!("seat {seat}")))?;
        let (mailboxes, human, body) = (
            self.inner.mailboxes.clone(),
            self.names().human.clone(),
            text.to_string(),
        );
        let inbox = name.clone();
        tokio::task::spawn_blocking(move || mailboxes.send(&human, &inbox, &body, None))
            .await
            .map_err(|e| MailboxError::Io(PathBuf::new(), std::io::Error::other(e)))??;
        let delivery = self.deliver_mail(seat).await;
        if delivery == Delivery::Queued && seat != LEAD_SEAT && self.cannot_start(seat) {
            // It would wait for a wake that cannot happen: the lead hears it instead. The
            // inbox keeps it unread, for when the agent can be started again.
            return Ok(self.relay(&name, text).await);
        }
        Ok(delivery)
    }

    /// Whether the last attempt to start the agent's process failed.
    fn cannot_start(&self, seat: Seat) -> bool {
        self.store().with_docs(|d| {
            app::domain::docs::identity(d, seat)
                .and_then(|i| i.process_reason.as_deref())
                .is_some_and(|r| r.starts_with("could not start"))
        })
    }

    /// Hands the unread mail of `seat`'s inbox to its process (marking it read); mail written
    /// by others than Soulgrid is recorded as it is delivered.
    pub async fn deliver_mail(&self, seat: Seat) -> Delivery {
        let Some(name) = self.seat_name(seat) else {
            return Delivery::Queued;
        };
        if seat != LEAD_SEAT && self.table().live(seat).is_none() {
            return Delivery::Queued;
        }
        let mailboxes = self.inner.mailboxes.clone();
        let taken = match tokio::task::spawn_blocking(move || mailboxes.take_unread(&name)).await {
            Ok(Ok(taken)) => taken,
            Ok(Err(e)) => {
                tracing::warn!(seat, error = %e, "reading an inbox failed");
                self.record(vec![EventKind::RuntimeError {
                    seat: Some(seat),
                    message: e.to_string(),
                }])
                .await;
                return Delivery::Queued;
            }
            Err(_) => return Delivery::Queued,
        };
        if taken.is_empty() {
            return Delivery::Delivered;
        }
        let target = self.seat_name(seat);
        let external: Vec<EventKind> = taken
            .iter()
            .filter(|m| {
                !m.msg_id
                    .as_deref()
                    .is_some_and(|id| id.starts_with("soulgrid-"))
            })
            .map(|m| EventKind::AgentMessage {
                message_id: uuid::Uuid::new_v4().simple().to_string(),
                seat,
                speaker_name: m.from.clone(),
                text: m.text.clone(),
                target_agent: target.clone(),
            })
            .collect();
        self.record(external).await;
        let delivery = self.deliver(seat, &self.format_mail(&taken)).await;
        if delivery == Delivery::Queued {
            // Nobody took it after all (the process is gone, the lead could not start): the
            // mail is unread again, for the next wake.
            let ids: Vec<String> = taken.iter().filter_map(|m| m.msg_id.clone()).collect();
            let (mailboxes, name) = (
                self.mailboxes().clone(),
                self.seat_name(seat).unwrap_or_default(),
            );
            if let Ok(Err(e)) =
                tokio::task::spawn_blocking(move || mailboxes.mark_unread(&name, &ids)).await
            {
                tracing::warn!(seat, error = %e, "could not put undelivered mail back");
            }
        }
        delivery
    }

    /// Mail as the agent reads it: the human's words as they are, others' with their sender.
    fn format_mail(&self, mail: &[app::domain::mail::InboxMessage]) -> String {
        mail.iter()
            .map(|m| {
                if m.from == self.names().human {
                    m.text.clone()
                } else {
                    format!("[message from {}] {}", m.from, m.text)
                }
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Mail others wrote into the human's inbox (an agent's own tooling, another program) is
    /// shown: recorded in the sender's thread (the lead's when the sender has no seat) and
    /// marked read.
    pub async fn collect_human_mail(&self) {
        let (mailboxes, human) = (self.inner.mailboxes.clone(), self.names().human.clone());
        let taken = match tokio::task::spawn_blocking(move || mailboxes.take_unread(&human)).await {
            Ok(Ok(taken)) => taken,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "reading the human's inbox failed");
                return;
            }
            Err(_) => return,
        };
        let events: Vec<EventKind> = taken
            .into_iter()
            .filter(|m| {
                !m.msg_id
                    .as_deref()
                    .is_some_and(|id| id.starts_with("soulgrid-"))
            })
            .map(|m| {
                let seat = self
                    .store()
                    .with_docs(|d| app::domain::docs::seat_named(d, &m.from))
                    .unwrap_or(LEAD_SEAT);
                EventKind::AgentMessage {
                    message_id: uuid::Uuid::new_v4().simple().to_string(),
                    seat,
                    speaker_name: m.from,
                    text: m.text,
                    target_agent: Some(self.names().human.clone()),
                }
            })
            .collect();
        self.record(events).await;
    }

    /// Files what an agent said in the human's inbox, as read: the UI has it from the event.
    pub(crate) async fn file_reply(&self, from: String, text: String) {
        let (mailboxes, human) = (self.inner.mailboxes.clone(), self.names().human.clone());
        let result = tokio::task::spawn_blocking(move || {
            mailboxes.send_marked(&from, &human, &text, None, true)
        })
        .await;
        if let Ok(Err(e)) = result {
            tracing::warn!(error = %e, "could not file a reply in the human's inbox");
        }
    }
}
