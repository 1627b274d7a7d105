//! Mail: what the human and others write to an agent goes through its inbox file, and from
//! there to the agent's stdin once it is awake (the watcher that notices it is
//! `inbox_watch`); what agents say is filed in the human's inbox.

use std::path::PathBuf;

use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};

use app::domain::mail::InboxMessage;
use app::domain::provenance;

use crate::mailbox::{Filed, MailboxError};
use crate::runtime::process::outgoing::Mail;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::Runtime;
use app::contract::Delivery;

/// Why a message from the human was not taken ([`Runtime::tell_from_human`]).
#[derive(Debug, thiserror::Error)]
pub enum TellError {
    /// Not filed in the inbox: nothing was recorded.
    #[error(transparent)]
    Filing(MailboxError),
    /// Filed, but not recorded: a retry with the same `msg_id` files nothing twice.
    #[error(transparent)]
    Recording(crate::store::StoreError),
}

/// A seat's deliveries, held ([`Runtime::hold_deliveries`]).
struct DeliveryHold<'a> {
    _held: tokio::sync::MutexGuard<'a, ()>,
}

impl Runtime {
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
        let Some((seat, name, inbox)) = self
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, to))
            .or_else(|| {
                app::domain::names::fold(to)
                    .eq(&app::domain::names::fold(&self.names().lead))
                    .then_some(LEAD_SEAT)
            })
            .and_then(|s| Some((s, self.seat_name(s)?, self.seat_inbox(s)?)))
        else {
            self.record(vec![EventKind::MarkerError {
                seat: sender,
                line: format!("route to {to}"),
                error: format!("no agent named {to:?} is in the grid"),
            }])
            .await;
            return;
        };
        // Filed first, then shown: the thread never shows mail its inbox does not hold (as the
        // human's own messages); handed over only once shown.
        let hold = self.hold_deliveries(seat).await;
        let (mailboxes, from_name, body, to_inbox) = (
            self.inner.mailboxes.clone(),
            from.to_string(),
            text.to_string(),
            inbox,
        );
        let filed =
            tokio::task::spawn_blocking(move || mailboxes.file(&from_name, &to_inbox, &body, None))
                .await;
        let filed = match filed {
            Ok(Ok(filed)) => Some(filed),
            Ok(Err(e)) => {
                self.record(vec![EventKind::RuntimeError {
                    seat: Some(seat),
                    message: format!("a message from {from} could not be filed: {e}"),
                }])
                .await;
                return;
            }
            Err(_) => None,
        };
        self.record(vec![EventKind::AgentMessage {
            message_id: crate::store::new_message_id(),
            seat,
            speaker_name: from.to_string(),
            text: text.to_string(),
            target_agent: Some(name.clone()),
        }])
        .await;
        match filed {
            Some(filed) => self.deliver_unread(seat, &hold, filed.unread).await,
            None => self.deliver_held(seat, &hold).await,
        };
    }

    /// A message from the human to the agent in `seat` (`/api/send`, a note of a knowledge
    /// edit): filed in its inbox, the durable queue (nothing is recorded unless that succeeds;
    /// `msg_id` makes a retry of the same message file it once), recorded in its thread (one
    /// attempt: the caller's retry is the same message), then handed over. The seat's
    /// deliveries are held from the filing to the hand-over: the watcher sees the filing at once
    /// and must not give the message to the agent before it is recorded. Answers the stored
    /// event's id and what became of the message.
    pub async fn tell_from_human(
        &self,
        seat: Seat,
        text: &str,
        msg_id: Option<String>,
    ) -> Result<(u64, Delivery), TellError> {
        let hold = self.hold_deliveries(seat).await;
        let filed = self
            .file_from_human(seat, text, msg_id)
            .await
            .map_err(TellError::Filing)?;
        let recorded = self
            .store()
            .append(
                &self.inner.session.id(),
                EventKind::UserMessage {
                    message_id: crate::store::new_message_id(),
                    speaker_name: self.names().human.clone(),
                    seat,
                    text: text.to_string(),
                    target_agent: (seat != LEAD_SEAT).then(|| self.seat_name(seat)).flatten(),
                },
            )
            .await;
        let event = match recorded {
            Ok(event) => event,
            Err(e) => {
                // Not recorded, so not sent: taken back out of the inbox before the watcher
                // hands it over (the caller's retry files it again).
                self.unfile(seat, filed.msg_id).await;
                return Err(TellError::Recording(e));
            }
        };
        let delivery = self.hand_over_from_human(seat, text, hold, filed).await;
        Ok((event.id, delivery))
    }

    /// Takes the unread message `msg_id` back out of `seat`'s inbox.
    async fn unfile(&self, seat: Seat, msg_id: String) {
        let (Some(inbox), mailboxes) = (self.seat_inbox(seat), self.inner.mailboxes.clone()) else {
            return;
        };
        let taken = tokio::task::spawn_blocking(move || mailboxes.unfile(&inbox, &msg_id)).await;
        if !matches!(taken, Ok(Ok(()))) {
            tracing::error!(
                seat,
                ?taken,
                "a message that could not be recorded stays in the inbox"
            );
        }
    }

    /// The human writes to the agent in `seat`: the message goes into its inbox file.
    async fn file_from_human(
        &self,
        seat: Seat,
        text: &str,
        msg_id: Option<String>,
    ) -> Result<Filed, MailboxError> {
        let Some(inbox) = self.seat_inbox(seat) else {
            return Err(MailboxError::BadName(format!("seat {seat}")));
        };
        let (mailboxes, human, body) = (
            self.inner.mailboxes.clone(),
            self.names().human.clone(),
            text.to_string(),
        );
        tokio::task::spawn_blocking(move || mailboxes.file(&human, &inbox, &body, msg_id))
            .await
            .map_err(|e| MailboxError::Io(PathBuf::new(), std::io::Error::other(e)))?
    }

    /// The human's filed message goes on to the agent in `seat` if it is awake (the lead is
    /// started for it); one that would wait for a wake that cannot happen goes to the lead.
    /// `hold` is the seat's deliveries, held since before the message was `filed`.
    async fn hand_over_from_human(
        &self,
        seat: Seat,
        text: &str,
        hold: DeliveryHold<'_>,
        filed: Filed,
    ) -> Delivery {
        let delivery = self.deliver_unread(seat, &hold, filed.unread).await;
        drop(hold);
        if delivery == Delivery::Queued && seat != LEAD_SEAT && self.cannot_start(seat) {
            // The inbox keeps it unread, for when the agent can be started again.
            let name = self.seat_name(seat).unwrap_or_default();
            return self.relay(&name, &self.names().human.clone(), text).await;
        }
        delivery
    }

    /// Whether the last attempt to start the agent's process failed.
    fn cannot_start(&self, seat: Seat) -> bool {
        self.store().with_docs(|d| {
            app::domain::docs::identity(d, seat)
                .and_then(|i| i.process_reason.as_deref())
                .is_some_and(|r| r.starts_with("could not start"))
        })
    }

    /// Hands the unread mail of `seat`'s inbox to its process (the lead is started for it).
    /// Mail others than Soulgrid wrote is recorded first (once: its id is its `msg_id`);
    /// nothing is marked read here: that happens when the agent takes the message
    /// ([`Runtime::mark_taken`]). Mail the process holds already is not given again.
    pub async fn deliver_mail(&self, seat: Seat) -> Delivery {
        if self.deliverable_inbox(seat).is_none() {
            return Delivery::Queued;
        }
        let hold = self.hold_deliveries(seat).await;
        self.deliver_held(seat, &hold).await
    }

    /// The inbox of `seat` if its mail can be handed over now: the lead's (started for it), or
    /// an agent's whose process runs.
    fn deliverable_inbox(&self, seat: Seat) -> Option<String> {
        let inbox = self.seat_inbox(seat)?;
        (seat == LEAD_SEAT || self.table().live(seat).is_some()).then_some(inbox)
    }

    /// Holds `seat`'s deliveries: one at a time, as two must not both give the same unread
    /// mail; and while a message for it is filed and recorded, so that the watcher, which sees
    /// the inbox change at once, cannot hand the message over before its event is stored (the
    /// answer would be stored before the message it answers).
    async fn hold_deliveries(&self, seat: Seat) -> DeliveryHold<'_> {
        DeliveryHold {
            _held: self.inner.delivering[usize::from(seat)].lock().await,
        }
    }

    /// [`Runtime::deliver_mail`] with the seat's deliveries held.
    async fn deliver_held(&self, seat: Seat, hold: &DeliveryHold<'_>) -> Delivery {
        let Some(inbox) = self.deliverable_inbox(seat) else {
            return Delivery::Queued;
        };
        let mailboxes = self.inner.mailboxes.clone();
        let unread =
            match tokio::task::spawn_blocking(move || mailboxes.unread_tagged(&inbox)).await {
                Ok(Ok(unread)) => unread,
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
        self.deliver_unread(seat, hold, unread).await
    }

    /// Hands `unread`, the unread mail of `seat`'s inbox as just read or written, to its
    /// process: [`Runtime::deliver_mail`] past the read.
    async fn deliver_unread(
        &self,
        seat: Seat,
        _hold: &DeliveryHold<'_>,
        unread: Vec<InboxMessage>,
    ) -> Delivery {
        let (Some(name), Some(inbox_of_seat)) = (self.seat_name(seat), self.seat_inbox(seat))
        else {
            return Delivery::Queued;
        };
        let live = self.table().live(seat);
        if seat != LEAD_SEAT && live.is_none() {
            return Delivery::Queued;
        }
        let fresh: Vec<InboxMessage> = unread
            .into_iter()
            .filter(|m| {
                let id = m.msg_id.as_deref().unwrap_or_default();
                !live
                    .as_ref()
                    .is_some_and(|l| l.in_flight.holds(&inbox_of_seat, id))
            })
            .collect();
        if fresh.is_empty() {
            return Delivery::Delivered;
        }
        self.record_external(&fresh, seat, Some(name)).await;
        let ids = fresh.iter().filter_map(|m| m.msg_id.clone()).collect();
        let message = Outgoing {
            text: Self::format_mail(&fresh),
            mail: Some(Mail {
                inbox: inbox_of_seat,
                ids,
            }),
        };
        self.deliver(seat, message).await
    }

    /// Records mail that others than Soulgrid wrote (ours is recorded when it is sent), each
    /// once: its event's message id is its `msg_id`, and one already in the store is skipped.
    pub(in crate::runtime) async fn record_external(
        &self,
        mail: &[InboxMessage],
        seat: Seat,
        to: Option<String>,
    ) {
        let events: Vec<EventKind> = self.store().with_docs(|docs| {
            mail.iter()
                .filter_map(|m| Some((m, m.msg_id.as_deref()?)))
                .filter(|(_, id)| !id.starts_with("soulgrid-"))
                .filter(|(_, id)| !docs.contains_key(&format!("message:{id}")))
                .map(|(m, id)| EventKind::AgentMessage {
                    message_id: id.to_string(),
                    seat: if to.is_some() {
                        seat
                    } else {
                        app::domain::docs::seat_named(docs, &m.from).unwrap_or(LEAD_SEAT)
                    },
                    speaker_name: m.from.clone(),
                    text: m.text.clone(),
                    target_agent: to.clone().or_else(|| Some(self.names().human.clone())),
                })
                .collect()
        });
        self.record(events).await;
    }

    /// Mail as the agent reads it: each message under a header naming its sender, its body
    /// neutralised (echoing it acts on nothing, and it cannot fake another header).
    fn format_mail(mail: &[InboxMessage]) -> String {
        provenance::delivered_all(mail.iter().map(|m| (m.from.as_str(), m.text.as_str())))
    }

    /// The agent took the message with this uuid: the mail it carried is marked read. Under
    /// the seat's delivery lock: a delivery reads the inbox and filters what is in flight as
    /// one step, so it never sees the mail still unread but no longer in flight (and hands it
    /// over a second time).
    pub(in crate::runtime) async fn mark_taken(
        &self,
        seat: Seat,
        live: &crate::runtime::process::table::Live,
        uuid: &str,
    ) {
        let Some(mail) = live.in_flight.get(uuid) else {
            return;
        };
        let _delivering = self.hold_deliveries(seat).await;
        let mailboxes = self.inner.mailboxes.clone();
        let (inbox, ids) = (mail.inbox.clone(), mail.ids.clone());
        let marked = tokio::task::spawn_blocking(move || mailboxes.mark_read(&inbox, &ids))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        match marked {
            Ok(()) => live.in_flight.remove(uuid),
            // Left in flight: this process is not given it again; its next start will be.
            Err(why) => {
                tracing::warn!(inbox = %mail.inbox, error = %why, "could not mark delivered mail read")
            }
        }
    }
}
