//! `#team`: a message posted by the human (`POST /api/send {"channel": "team"}`) or an agent
//! (`send_message {to: "team"}`) is filed in the inbox of each agent it mentions, then recorded
//! in the channel (which the human and every tab see; an agent reads what is filed for it),
//! then handed over: each agent it mentions (`domain::channel` decides who), under the sender's
//! header as all mail, and handed on to those awake. A mention of an agent in the Hall refuses
//! the message (nothing posted); one of nobody is said.

use app::contract::{Delivery, Mention};
use app::domain::channel::{self, Mentioned};
use app::domain::events::EventKind;
use app::domain::Seat;

use crate::mailbox::Filed;
use crate::runtime::mail::postman::Postman;

/// What came of a post to #team.
#[derive(Debug)]
pub struct Posted {
    pub event_id: u64,
    /// Each agent it was filed for, and what became of it there.
    pub mentioned: Vec<Mention>,
    /// Words after `@` that are nobody's name.
    pub nobody: Vec<String>,
    /// An agent's `@all`, filed for nobody (only the human and the lead reach everyone).
    pub all_refused: bool,
}

/// Why a post to #team was not taken.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// It mentions agents in the Hall: nothing was posted.
    #[error("{} in the Hall (retired): recall them first, or leave the mention out; nothing was posted", in_hall(.0))]
    InHall(Vec<String>),
    #[error("the console could not record it ({0}): try again")]
    Store(String),
}

fn in_hall(names: &[String]) -> String {
    match names {
        [one] => format!("{one} is"),
        many => format!("{} are", many.join(", ")),
    }
}

/// A channel message as an agent reads it in its inbox: where it was said.
fn filed_text(text: &str) -> String {
    format!("(in #team) {text}")
}

impl Postman {
    /// Posts `text` in #team from the agent in `from_seat` (`None`: the human), signed `from`.
    /// As for any message, filed first and recorded second: each mentioned agent's
    /// deliveries are held (in seat order) from its filing until the post is recorded, then it
    /// is handed over; a post that cannot be recorded is taken back out of every inbox.
    pub async fn post_to_team(
        &self,
        from_seat: Option<Seat>,
        from: &str,
        text: &str,
    ) -> Result<Posted, PostError> {
        let heads = self.ctx.names().clone();
        let mentions = self.ctx.store().with_docs(|d| {
            let heads = channel::Heads {
                lead: &heads.lead,
                human: &heads.human,
            };
            channel::mentions(d, text, from_seat, heads)
        });
        if !mentions.in_hall.is_empty() {
            return Err(PostError::InHall(mentions.in_hall));
        }
        let mut held = Vec::with_capacity(mentions.to.len());
        let mut unfiled = Vec::new();
        for m in &mentions.to {
            let hold = self.hold_deliveries(m.seat).await;
            match self.file_for(m, from, text).await {
                Some(filed) => held.push((m, hold, filed)),
                None => {
                    drop(hold);
                    unfiled.push(m);
                }
            }
        }
        let recorded = self
            .ctx
            .store()
            .append(
                &self.ctx.session().id(),
                EventKind::TeamMessage {
                    message_id: crate::store::new_message_id(),
                    seat: from_seat,
                    speaker_name: from.to_string(),
                    text: text.to_string(),
                    mentioned: held.iter().map(|(m, _, _)| m.seat).collect(),
                },
            )
            .await;
        let event = match recorded {
            Ok(event) => event,
            Err(e) => {
                for (m, hold, filed) in held {
                    drop(hold);
                    self.unfile(m.seat, filed.msg_id).await;
                }
                return Err(PostError::Store(e.to_string()));
            }
        };
        let mut mentioned = Vec::with_capacity(mentions.to.len());
        for (m, hold, filed) in held {
            let delivery = self.deliver_unread(m.seat, &hold, filed.unread).await;
            mentioned.push(Mention {
                name: m.name.clone(),
                seat: m.seat,
                delivery: Some(delivery),
            });
        }
        mentioned.extend(unfiled.into_iter().map(|m| Mention {
            name: m.name.clone(),
            seat: m.seat,
            delivery: None,
        }));
        mentioned.sort_by_key(|m| m.seat);
        Ok(Posted {
            event_id: event.id,
            mentioned,
            nobody: mentions.nobody,
            all_refused: mentions.all_refused,
        })
    }

    /// Files the channel message in the mentioned agent's inbox; `None` when its inbox could
    /// not take it (said on its seat).
    async fn file_for(&self, m: &Mentioned, from: &str, text: &str) -> Option<Filed> {
        let inbox = self.ctx.seat_inbox(m.seat)?;
        let (mailboxes, from_name, body) = (
            self.ctx.mailboxes().clone(),
            from.to_string(),
            filed_text(text),
        );
        let filed =
            tokio::task::spawn_blocking(move || mailboxes.file(&from_name, &inbox, &body, None))
                .await;
        match filed {
            Ok(Ok(filed)) => Some(filed),
            Ok(Err(e)) => {
                self.ctx
                    .record(vec![EventKind::RuntimeError {
                        seat: Some(m.seat),
                        message: format!("a #team message from {from} could not be filed: {e}"),
                    }])
                    .await;
                None
            }
            Err(_) => None,
        }
    }
}

/// What an agent is told of its post (the answer to `send_message {to: "team"}`).
pub fn told(posted: &Posted) -> String {
    let mut said = String::from("Posted in #team");
    if posted.mentioned.is_empty() {
        said.push_str(
            ": the human and the console see it; it mentions nobody, so it is in no inbox",
        );
    } else {
        let each: Vec<String> = posted
            .mentioned
            .iter()
            .map(|m| match m.delivery {
                Some(Delivery::Delivered | Delivery::Started) => format!("{} gets it now", m.name),
                Some(Delivery::Queued) => format!("{} reads it on waking", m.name),
                Some(Delivery::Relayed) => {
                    format!("{} cannot be started: the lead is given it", m.name)
                }
                None => format!("{}'s inbox could not take it", m.name),
            })
            .collect();
        said.push_str(&format!("; {}", each.join(", ")));
    }
    if posted.all_refused {
        said.push_str(". @all is the human's and the lead's: name those you mean, or ask the lead");
    }
    if !posted.nobody.is_empty() {
        let who: Vec<String> = posted.nobody.iter().map(|n| format!("@{n}")).collect();
        said.push_str(&format!(
            ". Nobody on the team is called {}: call team for the names",
            who.join(", ")
        ));
    }
    said.push('.');
    said
}
