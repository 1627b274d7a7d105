//! Who writes to whom: the human to an agent (`/api/send`, a note of a knowledge edit), one
//! agent to another (the `route` action), and a message for an agent that cannot be started,
//! relayed to the lead. Filed in the inbox first, recorded, then handed over by the postman.

use std::path::PathBuf;

use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};

use crate::mailbox::{Filed, MailboxError};
use crate::runtime::mail::postman::{DeliveryHold, Postman};
use crate::runtime::process::outgoing::Outgoing;
use app::contract::Delivery;

/// Why a message from the human was not taken ([`Postman::tell_from_human`]).
#[derive(Debug, thiserror::Error)]
pub enum TellError {
    /// Not filed in the inbox: nothing was recorded.
    #[error(transparent)]
    Filing(MailboxError),
    /// Filed, but not recorded: a retry with the same `msg_id` files nothing twice.
    #[error(transparent)]
    Recording(crate::store::StoreError),
}

impl Postman {
    /// A message one agent (usually the lead) sends another with the `route` action: shown in
    /// the recipient's thread, filed in its inbox, and delivered now if it is awake or on its
    /// wake if it sleeps. A name that is not in the grid is a marker error on the sender's seat.
    pub async fn route(&self, from: &str, to: &str, text: &str) {
        let sender = self
            .ctx
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, from))
            .or_else(|| {
                from.eq_ignore_ascii_case(&self.ctx.names().lead)
                    .then_some(LEAD_SEAT)
            });
        let Some((seat, name, inbox)) = self
            .ctx
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, to))
            .or_else(|| {
                app::domain::names::fold(to)
                    .eq(&app::domain::names::fold(&self.ctx.names().lead))
                    .then_some(LEAD_SEAT)
            })
            .and_then(|s| Some((s, self.ctx.seat_name(s)?, self.ctx.seat_inbox(s)?)))
        else {
            self.ctx
                .record(vec![EventKind::MarkerError {
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
            self.ctx.mailboxes().clone(),
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
                self.ctx
                    .record(vec![EventKind::RuntimeError {
                        seat: Some(seat),
                        message: format!("a message from {from} could not be filed: {e}"),
                    }])
                    .await;
                return;
            }
            Err(_) => None,
        };
        self.ctx
            .record(vec![EventKind::AgentMessage {
                message_id: crate::store::new_message_id(),
                seat,
                speaker_name: from.to_string(),
                text: text.to_string(),
                target_agent: Some(name.clone()),
                aside: None,
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
            .ctx
            .store()
            .append(
                &self.ctx.session().id(),
                EventKind::UserMessage {
                    message_id: crate::store::new_message_id(),
                    speaker_name: self.ctx.names().human.clone(),
                    seat,
                    text: text.to_string(),
                    target_agent: (seat != LEAD_SEAT)
                        .then(|| self.ctx.seat_name(seat))
                        .flatten(),
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
        let (Some(inbox), mailboxes) = (self.ctx.seat_inbox(seat), self.ctx.mailboxes().clone())
        else {
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
        let Some(inbox) = self.ctx.seat_inbox(seat) else {
            return Err(MailboxError::BadName(format!("seat {seat}")));
        };
        let (mailboxes, human, body) = (
            self.ctx.mailboxes().clone(),
            self.ctx.names().human.clone(),
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
            let name = self.ctx.seat_name(seat).unwrap_or_default();
            return self
                .relay(&name, &self.ctx.names().human.clone(), text)
                .await;
        }
        delivery
    }

    /// Whether the last attempt to start the agent's process failed.
    fn cannot_start(&self, seat: Seat) -> bool {
        self.ctx.store().with_docs(|d| {
            app::domain::docs::identity(d, seat)
                .and_then(|i| i.process_reason.as_deref())
                .is_some_and(|r| r.starts_with("could not start"))
        })
    }

    /// Gives the lead a message from `from` meant for `name`, whose process cannot be started.
    pub async fn relay(&self, name: &str, from: &str, text: &str) -> Delivery {
        match self
            .deliver(
                LEAD_SEAT,
                Outgoing::text(app::domain::provenance::relayed(name, from, text)),
            )
            .await
        {
            Delivery::Queued => Delivery::Queued,
            _ => Delivery::Relayed,
        }
    }

    /// A note from the human left in `inbox` for an agent in the Hall (read on its recall).
    pub async fn leave_note(&self, inbox: String, text: String) {
        let (mailboxes, human) = (self.ctx.mailboxes().clone(), self.ctx.names().human.clone());
        let left =
            tokio::task::spawn_blocking(move || mailboxes.send(&human, &inbox, &text, None)).await;
        if !matches!(left, Ok(Ok(_))) {
            tracing::warn!(?left, "a note for an agent in the Hall could not be left");
        }
    }
}
