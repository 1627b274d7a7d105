//! The pull side of an agent's inbox (`check_mail`, `read_mail`): what waits, and the unread
//! mail read now, marked read only for what was returned. Mail already handed to the process
//! (in flight, its next message) is counted, never returned: it would be read twice.

use app::domain::mail::InboxMessage;
use app::domain::provenance::delivered_all;
use app::domain::Seat;

use crate::runtime::mail::postman::Postman;
use crate::runtime::process::answer::Outcome;

/// The most bytes of mail one `read_mail` returns (what is left stays unread for the next).
const READ_MAIL_BYTES: usize = 256 * 1024;

/// The unread mail of an inbox: what the caller may read now, and how many are on their way.
struct Waiting {
    readable: Vec<InboxMessage>,
    on_the_way: usize,
}

impl Postman {
    /// What waits in the inbox of the agent in `seat`: how many unread, from whom, and how
    /// many are on their way to it.
    pub(in crate::runtime) async fn check_mail(&self, seat: Seat) -> Outcome {
        let w = self.waiting(seat).await?;
        let unread = w.readable.len() + w.on_the_way;
        if unread == 0 {
            return Ok("Your inbox has no unread mail.".into());
        }
        let mut senders: Vec<(String, usize)> = Vec::new();
        for m in &w.readable {
            match senders.iter_mut().find(|(s, _)| *s == m.from) {
                Some((_, n)) => *n += 1,
                None => senders.push((m.from.clone(), 1)),
            }
        }
        let from = senders
            .iter()
            .map(|(s, n)| format!("{s} ({n})"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut said = format!("{unread} unread.");
        if !w.readable.is_empty() {
            said.push_str(&format!(
                " To read now with read_mail: {} from {from}.",
                w.readable.len()
            ));
        }
        if w.on_the_way > 0 {
            said.push_str(&format!(
                " On their way to you as your next message: {}.",
                w.on_the_way
            ));
        }
        Ok(said)
    }

    /// Up to `max` of the unread mail of the agent in `seat` not on its way to it already,
    /// oldest first, each under its sender's header; only those are marked read.
    pub(in crate::runtime) async fn read_mail(&self, seat: Seat, max: u32) -> Outcome {
        let inbox = self.ctx.seat_inbox(seat).ok_or_else(no_inbox)?;
        // Held while read and marked: a delivery meanwhile would hand the same mail over.
        let _hold = self.hold_deliveries(seat).await;
        let w = self.waiting(seat).await?;
        let mut taken: Vec<InboxMessage> = Vec::new();
        let mut bytes = 0;
        for m in w.readable.iter().take(max as usize) {
            bytes += m.text.len() + m.from.len();
            if bytes > READ_MAIL_BYTES && !taken.is_empty() {
                break;
            }
            taken.push(m.clone());
        }
        let left = w.readable.len() - taken.len();
        let mut said = match taken.is_empty() {
            true => "No unread mail to read now.".to_string(),
            false => {
                let ids: Vec<String> = taken.iter().filter_map(|m| m.msg_id.clone()).collect();
                let mailboxes = self.ctx.mailboxes().clone();
                let marked = tokio::task::spawn_blocking(move || mailboxes.mark_read(&inbox, &ids))
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| r.map_err(|e| e.to_string()));
                if let Err(e) = marked {
                    return Err(format!("your inbox could not be read ({e}): try again").into());
                }
                self.record_external(&taken, seat, self.ctx.seat_name(seat))
                    .await;
                delivered_all(taken.iter().map(|m| (m.from.as_str(), m.text.as_str())))
            }
        };
        if left > 0 {
            said.push_str(&format!("\n\n({left} more unread: read_mail again.)"));
        }
        if w.on_the_way > 0 {
            said.push_str(&format!(
                "\n\n({} more on their way to you as your next message.)",
                w.on_the_way
            ));
        }
        Ok(said)
    }

    /// The unread mail of `seat`'s inbox, split into what is not handed over yet and how many
    /// are in flight.
    async fn waiting(&self, seat: Seat) -> Result<Waiting, String> {
        let inbox = self.ctx.seat_inbox(seat).ok_or_else(no_inbox)?;
        let mailboxes = self.ctx.mailboxes().clone();
        let name = inbox.clone();
        let unread = tokio::task::spawn_blocking(move || mailboxes.unread_tagged(&name))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
            .map_err(|e| format!("your inbox could not be read ({e}): try again"))?;
        let live = self.processes.table().live(seat);
        let in_flight = |m: &InboxMessage| {
            let id = m.msg_id.as_deref().unwrap_or_default();
            live.as_ref().is_some_and(|l| l.in_flight.holds(&inbox, id))
        };
        let (on_the_way, readable): (Vec<_>, Vec<_>) = unread.into_iter().partition(in_flight);
        Ok(Waiting {
            readable,
            on_the_way: on_the_way.len(),
        })
    }
}

fn no_inbox() -> String {
    "you have no inbox yet: choose your name first".into()
}
