//! The postman: mail reaches an agent through its inbox file, and from there its stdin once it
//! is awake (the lead is started for it): a seat's deliveries one at a time, mail marked read
//! only once the agent took it. What notices inboxes change is `inbox_watch`; who writes to
//! whom is `tell`.

use std::sync::Arc;
use std::time::Duration;

use app::domain::docs::identity;
use app::domain::events::EventKind;
use app::domain::mail::InboxMessage;
use app::domain::provenance;
use app::domain::{Seat, LEAD_SEAT};

use crate::runtime::context::Context;
use crate::runtime::error::RuntimeError;
use crate::runtime::process::outgoing::{Mail, Outgoing};
use crate::runtime::process::owner::Processes;
use crate::runtime::process::spawn::Spec;
use crate::runtime::prompts;
use app::contract::Delivery;

/// How long a message waits for a process that is starting.
const START_WAIT: Duration = Duration::from_secs(15);

/// The mail room's owner.
#[derive(Clone)]
pub struct Postman {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) processes: Processes,
    /// One mail delivery per seat at a time.
    pub(in crate::runtime) delivering: Arc<Vec<tokio::sync::Mutex<()>>>,
    /// An inbox changed: the agents' state files may be out of date.
    pub(in crate::runtime) inboxes_changed: Arc<tokio::sync::Notify>,
}

/// A seat's deliveries, held ([`Postman::hold_deliveries`]).
pub(in crate::runtime) struct DeliveryHold<'a> {
    _held: tokio::sync::MutexGuard<'a, ()>,
}

impl Postman {
    pub fn new(ctx: Context, processes: Processes) -> Self {
        Postman {
            ctx,
            processes,
            delivering: Arc::new(
                (0..app::domain::SEATS)
                    .map(|_| Default::default())
                    .collect(),
            ),
            inboxes_changed: Default::default(),
        }
    }

    /// Notified whenever an inbox changed (the state files' keeper waits on it).
    pub fn inboxes_changed(&self) -> Arc<tokio::sync::Notify> {
        self.inboxes_changed.clone()
    }

    /// Gives `message` to the agent in `seat`: on its stdin if it runs; the lead is started
    /// with it if it does not; a sleeping agent's message waits.
    pub async fn deliver(&self, seat: Seat, message: Outgoing) -> Delivery {
        if seat == LEAD_SEAT && !self.processes.table().is_taken(seat) {
            match self.processes.start(self.lead_spec(message.clone())).await {
                Ok(()) => return Delivery::Started,
                // Another start won the seat meanwhile: the message goes to that process.
                Err(RuntimeError::SeatTaken(_)) => {}
                Err(_) => return Delivery::Queued,
            }
        }
        // A process that is starting is waited for: the text is not dropped meanwhile.
        match self.processes.live_soon(seat, START_WAIT).await {
            Some(live) => match self.processes.send_to(seat, &live, message).await {
                Ok(()) => Delivery::Delivered,
                Err(_) => Delivery::Queued,
            },
            None => Delivery::Queued,
        }
    }

    /// How the lead is started for a message: resuming its last Claude session, so it keeps
    /// its conversation across session ends and server restarts.
    fn lead_spec(&self, first_message: Outgoing) -> Spec {
        let names = self.ctx.names();
        Spec {
            seat: LEAD_SEAT,
            name: Some(names.lead.clone()),
            summoning: false,
            system_prompt: prompts::lead_prompt(&self.ctx.config().data_dir, names),
            first_message,
            resume: self
                .ctx
                .store()
                .with_docs(|d| identity(d, LEAD_SEAT).and_then(|i| i.claude_session_id.clone())),
            fork: false,
            aside: None,
        }
    }

    /// Hands the unread mail of `seat`'s inbox to its process (the lead is started for it).
    /// Mail others than Soulgrid wrote is recorded first (once: its id is its `msg_id`);
    /// nothing is marked read here: that happens when the agent takes the message
    /// ([`Postman::mark_taken`]). Mail the process holds already is not given again.
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
        let inbox = self.ctx.seat_inbox(seat)?;
        (seat == LEAD_SEAT || self.processes.table().live(seat).is_some()).then_some(inbox)
    }

    /// Holds `seat`'s deliveries: one at a time, as two must not both give the same unread
    /// mail; and while a message for it is filed and recorded, so that the watcher, which sees
    /// the inbox change at once, cannot hand the message over before its event is stored (the
    /// answer would be stored before the message it answers).
    pub(in crate::runtime) async fn hold_deliveries(&self, seat: Seat) -> DeliveryHold<'_> {
        DeliveryHold {
            _held: self.delivering[usize::from(seat)].lock().await,
        }
    }

    /// [`Postman::deliver_mail`] with the seat's deliveries held.
    pub(in crate::runtime) async fn deliver_held(
        &self,
        seat: Seat,
        hold: &DeliveryHold<'_>,
    ) -> Delivery {
        let Some(inbox) = self.deliverable_inbox(seat) else {
            return Delivery::Queued;
        };
        let mailboxes = self.ctx.mailboxes().clone();
        let unread =
            match tokio::task::spawn_blocking(move || mailboxes.unread_tagged(&inbox)).await {
                Ok(Ok(unread)) => unread,
                Ok(Err(e)) => {
                    tracing::warn!(seat, error = %e, "reading an inbox failed");
                    self.ctx
                        .record(vec![EventKind::RuntimeError {
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
    /// process: [`Postman::deliver_mail`] past the read.
    pub(in crate::runtime) async fn deliver_unread(
        &self,
        seat: Seat,
        _hold: &DeliveryHold<'_>,
        unread: Vec<InboxMessage>,
    ) -> Delivery {
        let (Some(name), Some(inbox_of_seat)) =
            (self.ctx.seat_name(seat), self.ctx.seat_inbox(seat))
        else {
            return Delivery::Queued;
        };
        let live = self.processes.table().live(seat);
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
        let events: Vec<EventKind> = self.ctx.store().with_docs(|docs| {
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
                    target_agent: to.clone().or_else(|| Some(self.ctx.names().human.clone())),
                    aside: None,
                })
                .collect()
        });
        self.ctx.record(events).await;
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
    pub async fn mark_taken(
        &self,
        seat: Seat,
        live: &crate::runtime::process::table::Live,
        uuid: &str,
    ) {
        let Some(mail) = live.in_flight.get(uuid) else {
            return;
        };
        let _delivering = self.hold_deliveries(seat).await;
        let mailboxes = self.ctx.mailboxes().clone();
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
