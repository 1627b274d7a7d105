//! What an agent's request does, carried out by the room it belongs to, and its outcome in
//! the agent's words: the seats a summon filled, where a fork or a recall sits, whether a
//! message reached its reader.

use app::domain::docs::{hall, seat_named};
use app::domain::names::fold;
use app::domain::tools::seat_number;
use app::domain::Seat;

use super::{fork_refusal, hall_refusal};
use crate::runtime::process::answer::Outcome;
use crate::runtime::process::turn::LeadRequest;
use crate::runtime::Runtime;

/// Seats as an agent reads them: "2, 3 and 7".
fn seat_list(seats: &[Seat]) -> String {
    let words: Vec<String> = seats.iter().map(|s| seat_number(*s).to_string()).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The refusal for a name that is nobody seated.
fn nobody(name: &str) -> String {
    format!("nobody on the team is called {name:?}: call team for the names")
}

impl Runtime {
    /// Carries out `request`; what became of it.
    pub(in crate::runtime) async fn carry(&self, request: LeadRequest) -> Outcome {
        let seat_of = |name: &str| self.store().with_docs(|d| seat_named(d, name));
        match request {
            LeadRequest::Summon { seats, count } => self.summon_for_agent(seats, count).await,
            LeadRequest::Dismiss { name } => {
                let seat = seat_of(&name).ok_or_else(|| nobody(&name))?;
                let rt = self.clone();
                // The agent's note before sleep takes a turn of its own: not waited for here.
                tokio::spawn(async move { rt.sleep(seat, "dismissed by the lead").await });
                Ok(format!(
                    "{name} writes down what it learned, then sleeps; a message or WAKE brings it back."
                ))
            }
            LeadRequest::Kill { name, cascade } => {
                let seat = seat_of(&name).ok_or_else(|| nobody(&name))?;
                let retired = self
                    .retire_branch(seat, "retired by the lead", cascade)
                    .await
                    .map_err(|e| hall_refusal(&e, &name))?;
                Ok(match retired.len() {
                    0 | 1 => format!("{name} is in the Hall now; recall brings it back."),
                    n => format!(
                        "{name} and {} of its forks are in the Hall now; recall brings each back.",
                        n - 1
                    ),
                })
            }
            LeadRequest::Recall { name, seat } => {
                let id = self.store().with_docs(|d| {
                    hall(d)
                        .find(|h| h.name.as_deref().map(fold) == Some(fold(&name)))
                        .map(|h| h.stable_id())
                });
                let id = id.ok_or_else(|| {
                    format!(
                        "nobody in the Hall is called {name:?}: call team for who is in the Hall"
                    )
                })?;
                let seat = self
                    .recall(&id, seat)
                    .await
                    .map_err(|e| hall_refusal(&e, &name))?;
                Ok(format!(
                    "{name} is back in seat {} and waking.",
                    seat_number(seat)
                ))
            }
            LeadRequest::Fork {
                seat,
                by,
                from,
                prompt,
                into,
            } => {
                let message = prompt.filter(|p| !p.trim().is_empty()).map(|p| (from, p));
                let child = self
                    .fork(seat, message, into)
                    .await
                    .map_err(|e| fork_refusal(&e))?;
                let whose = match by == seat {
                    true => "Your fork".to_string(),
                    false => format!(
                        "The fork of {}",
                        self.inner.ctx.seat_name(seat).unwrap_or_default()
                    ),
                };
                Ok(format!(
                    "{whose} hatches in seat {} once the current turn ends, and chooses its own name.",
                    seat_number(child)
                ))
            }
            LeadRequest::Route {
                seat,
                from,
                to,
                text,
            } => self.inner.postman.route(seat, &from, &to, &text).await,
            LeadRequest::CheckMail { seat } => self.inner.postman.check_mail(seat).await,
            LeadRequest::ReadMail { seat, max } => self.inner.postman.read_mail(seat, max).await,
            // The quest room's queue carries these (`Switchboard::report`).
            LeadRequest::Quest(_) => Err("quest requests go through the quest queue".into()),
        }
    }

    /// The lead's summon: into `seats` (every empty seat when `None`), at most `count`.
    async fn summon_for_agent(&self, seats: Option<Vec<Seat>>, count: Option<u8>) -> Outcome {
        let mut empty = self.inner.team.summonable(seats.as_deref());
        if let Some(n) = count {
            empty.truncate(usize::from(n));
        }
        let taken: Vec<Seat> = seats
            .iter()
            .flatten()
            .copied()
            .filter(|s| !empty.contains(s))
            .collect();
        let not_empty = |seats: &[Seat]| match seats {
            [one] => format!("seat {} is not empty", seat_list(&[*one])),
            more => format!("seats {} are not empty", seat_list(more)),
        };
        if empty.is_empty() {
            return Err(match taken.is_empty() {
                true => "no seat is empty: retire someone first".into(),
                false => format!("{}: call team for the empty seats", not_empty(&taken)).into(),
            });
        }
        let placed = self
            .summon_only(Some(&empty))
            .await
            .map_err(|e| format!("the console could not record the summon ({e}): try again"))?;
        if placed.is_empty() {
            return Err("no seat is empty: retire someone first".into());
        }
        let besides = match taken.is_empty() {
            true => String::new(),
            false => format!(" ({}: nobody was summoned there)", not_empty(&taken)),
        };
        Ok(format!(
            "Summoned into seat{} {}{besides}: each newborn is choosing its name; call team to see them.",
            if placed.len() == 1 { "" } else { "s" },
            seat_list(&placed)
        ))
    }
}
