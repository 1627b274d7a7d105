//! Who writes to whom: the human to an agent (`/api/send`, a note of a knowledge edit), one
//! agent to another or to the human (`send_message`, the `route` action), and a message for an agent that cannot be started,
//! relayed to the lead. Filed in the inbox first, recorded, then handed over by the postman.

use std::path::PathBuf;

use app::domain::events::EventKind;
use app::domain::{Seat, LEAD_SEAT};

use crate::mailbox::{Filed, MailboxError};
use crate::runtime::mail::postman::{DeliveryHold, Postman};
use crate::runtime::process::answer::{Answer, Outcome, Refused};
use crate::runtime::process::outgoing::Outgoing;
use app::contract::Delivery;
use app::domain::provenance::delivered;

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
    /// A message the agent in `seat` (signing `from`) sends with `send_message` or the
    /// `route` action: to #team (`team`: [`Postman::post_to_team`]); to another agent (or the
    /// lead, or `lead`), shown in both threads ("from → to"), filed in the recipient's inbox, and delivered now if it is awake or on its wake if it
    /// sleeps; to the human (`human` or their name), said in the sender's own thread, which
    /// is filed in the human's inbox. A name that is nobody's is refused.
    pub async fn route(&self, seat: Seat, from: &str, to: &str, text: &str) -> Outcome {
        let names = self.ctx.names().clone();
        let same = |a: &str, b: &str| app::domain::names::fold(a) == app::domain::names::fold(b);
        if same(to, "human") || same(to, &names.human) {
            return self.say_to_human(seat, from, text).await;
        }
        if same(to.trim_start_matches('#'), app::domain::channel::TEAM) {
            return match self.post_to_team(Some(seat), from, text).await {
                Ok(posted) => Ok(super::channel::told(&posted)),
                Err(e) => Err(e.to_string().into()),
            };
        }
        let Some((to_seat, name, inbox)) = self
            .ctx
            .store()
            .with_docs(|d| app::domain::docs::seat_named(d, to))
            .or_else(|| (same(to, &names.lead) || same(to, "lead")).then_some(LEAD_SEAT))
            .and_then(|s| Some((s, self.ctx.seat_name(s)?, self.ctx.seat_inbox(s)?)))
        else {
            return Err(
                format!("nobody on the team is called {to:?}: call team for the names").into(),
            );
        };
        // Filed first, then shown: the thread never shows mail its inbox does not hold (as the
        // human's own messages); handed over only once shown.
        let hold = self.hold_deliveries(to_seat).await;
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
                        seat: Some(to_seat),
                        message: format!("a message from {from} could not be filed: {e}"),
                    }])
                    .await;
                return Err(
                    format!("{name}'s inbox could not take it ({e}): try again later").into(),
                );
            }
            Err(_) => None,
        };
        self.ctx
            .record(vec![EventKind::AgentWrote {
                message_id: crate::store::new_message_id(),
                from_seat: seat,
                to_seat,
                speaker_name: from.to_string(),
                to_name: name.clone(),
                text: text.to_string(),
            }])
            .await;
        let delivery = match filed {
            Some(filed) => self.deliver_unread(to_seat, &hold, filed.unread).await,
            None => self.deliver_held(to_seat, &hold).await,
        };
        Ok(match delivery {
            Delivery::Delivered | Delivery::Started => {
                format!("Delivered to {name}, who is awake and gets it now.")
            }
            Delivery::Relayed => format!("Filed in {name}'s inbox; the lead is told of it."),
            Delivery::Queued => {
                format!("Filed in {name}'s inbox; {name} is not awake and reads it on waking.")
            }
        })
    }

    /// Words for the human, from the agent in `seat`: said in its own thread (which the human
    /// reads, and which is filed in their inbox).
    async fn say_to_human(&self, seat: Seat, from: &str, text: &str) -> Outcome {
        let id = crate::store::new_message_id();
        let said = match seat == LEAD_SEAT {
            true => EventKind::LeadText {
                message_id: id,
                speaker_name: from.to_string(),
                text: text.to_string(),
                aside: None,
            },
            false => EventKind::AgentMessage {
                message_id: id,
                seat,
                speaker_name: from.to_string(),
                text: text.to_string(),
                target_agent: None,
                aside: None,
            },
        };
        self.ctx
            .recorder()
            .record(vec![said])
            .await
            .map_err(|e| format!("the console could not record it ({e}): try again"))?;
        Ok(format!(
            "Shown to {} in your thread, and filed in their inbox.",
            self.ctx.names().human
        ))
    }

    /// What became of a request from the agent in `seat` (`line` names it), settled: a
    /// refusal recorded once on its seat, the tool call answered; a marker's refusal the
    /// asker must hear of (`tell`) told to it as a message from Soulgrid.
    pub(in crate::runtime) async fn settle(
        &self,
        seat: Seat,
        line: &str,
        tell: bool,
        outcome: Outcome,
        answer: Option<Answer>,
    ) {
        if let Err(Refused { why, fault }) = &outcome {
            if *fault {
                self.ctx.marker_error(seat, line, why).await;
            }
            if tell && answer.is_none() {
                let text = delivered("Soulgrid", &format!("Your {line} was not done: {why}."));
                self.deliver(seat, Outgoing::text(text)).await;
            }
        }
        if let Some(answer) = answer {
            answer.give(&outcome).await;
        }
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
    pub(in crate::runtime) async fn unfile(&self, seat: Seat, msg_id: String) {
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
        let human = self.ctx.names().human.clone();
        self.file_note(&human, inbox, text).await
    }

    /// Files `text` from `from` in the inbox `inbox`: delivered when the agent is next idle or
    /// awake, as any mail.
    pub async fn file_note(&self, from: &str, inbox: String, text: String) {
        let (mailboxes, from) = (self.ctx.mailboxes().clone(), from.to_string());
        let left =
            tokio::task::spawn_blocking(move || mailboxes.send(&from, &inbox, &text, None)).await;
        if !matches!(left, Ok(Ok(_))) {
            tracing::warn!(?left, "a note for an agent could not be filed");
        }
    }
}
