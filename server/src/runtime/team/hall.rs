//! Retire and recall: an identity leaves its seat for the Hall (its process stopped first) and
//! comes back into an empty seat, woken from its soul, its last session and the mail that
//! waited.

use app::domain::docs::{hall_id, identity, Doc};
use app::domain::events::EventKind;
use app::domain::{agent_seats, Seat, LEAD_SEAT, SEATS};

use crate::runtime::team::Team;

/// Why a retire or a recall cannot be done.
#[derive(Debug, thiserror::Error)]
pub enum HallError {
    #[error("seat {0} is not an agent's seat (0-8, not the lead's)")]
    NotASeat(Seat),
    #[error("seat {0} is empty: there is nobody to retire")]
    Empty(Seat),
    #[error("no retired identity has the id {0:?}")]
    NotInHall(String),
    #[error("seat {0} is not empty")]
    Occupied(Seat),
    #[error("no seat is empty: retire someone first")]
    NoEmptySeat,
    #[error("the identity could not take seat {0}: its name is taken by someone seated")]
    Refused(Seat),
    #[error("the store failed: {0}")]
    Store(String),
}

impl Team {
    /// `seat` if it is an empty agent seat, or (none asked for) the first empty one.
    pub(in crate::runtime) fn empty_seat(&self, seat: Option<Seat>) -> Result<Seat, HallError> {
        let empty = |s: Seat| {
            self.ctx
                .store()
                .with_docs(|d| identity(d, s).is_none_or(|i| !i.status().is_visible()))
        };
        match seat {
            Some(s) if s == LEAD_SEAT || s >= SEATS => Err(HallError::NotASeat(s)),
            Some(s) if !empty(s) => Err(HallError::Occupied(s)),
            Some(s) => Ok(s),
            None => agent_seats()
                .find(|&s| empty(s))
                .ok_or(HallError::NoEmptySeat),
        }
    }

    /// Retires the identity in `seat` and (with `cascade`) its seated descendants, deepest
    /// first; without it, its seated children are re-parented to its parent. Returns the ids
    /// retired, in the order they left.
    pub async fn retire_branch(
        &self,
        seat: Seat,
        reason: &str,
        cascade: bool,
    ) -> Result<Vec<String>, HallError> {
        if seat == LEAD_SEAT || seat >= SEATS {
            return Err(HallError::NotASeat(seat));
        }
        let mut order: Vec<Seat> = Vec::new();
        if cascade {
            // Descendants by depth: each level's children, then theirs; retired deepest first.
            let mut level = vec![seat];
            while !level.is_empty() {
                let ids: Vec<String> = self.ctx.store().with_docs(|d| {
                    level
                        .iter()
                        .filter_map(|&s| identity(d, s).map(|i| i.stable_id()))
                        .collect()
                });
                level = self.ctx.store().with_docs(|d| {
                    app::domain::docs::identities(d)
                        .filter(|c| c.status().is_visible())
                        .filter(|c| c.parent_uuid.as_ref().is_some_and(|p| ids.contains(p)))
                        .map(|c| c.grid_position)
                        .filter(|s| *s != seat && !order.contains(s))
                        .collect()
                });
                order.extend(&level);
            }
            order.reverse();
        }
        let mut retired = Vec::new();
        for s in order {
            retired.extend(self.retire(s, reason).await?);
        }
        retired.extend(self.retire(seat, reason).await?);
        Ok(retired)
    }

    /// Retires the identity in `seat`: its process group is stopped (bounded), then it leaves
    /// the seat for the Hall. Returns the ids retired.
    pub async fn retire(&self, seat: Seat, reason: &str) -> Result<Vec<String>, HallError> {
        if seat == LEAD_SEAT || seat >= SEATS {
            return Err(HallError::NotASeat(seat));
        }
        let id = self
            .ctx
            .store()
            .with_docs(|d| {
                identity(d, seat)
                    .filter(|i| i.status().is_visible())
                    .map(|i| i.stable_id())
            })
            .ok_or(HallError::Empty(seat))?;
        self.processes.table().stop(seat, reason).await;
        self.ctx
            .recorder()
            .record(vec![EventKind::AgentKilled {
                seat,
                reason: Some(reason.to_string()),
            }])
            .await
            .map_err(|e| HallError::Store(e.to_string()))?;
        Ok(vec![id])
    }

    /// Seats the retired identity `id` again (in `seat`, or the first empty one) and wakes it;
    /// returns its seat and whether it woke.
    pub async fn recall(&self, id: &str, seat: Option<Seat>) -> Result<(Seat, bool), HallError> {
        let in_hall = self.ctx.store().with_docs(|d| {
            d.get(&hall_id(id))
                .and_then(Doc::as_hall)
                .is_some_and(|h| h.retired_at.is_some() && h.recalled_at.is_none())
        });
        if !in_hall {
            return Err(HallError::NotInHall(id.to_string()));
        }
        let seat = self.empty_seat(seat)?;
        // Held while it is recorded: a SUMMON at the same moment does not take the seat.
        let reservation = self
            .processes
            .reserve(seat)
            .map_err(|_| HallError::Occupied(seat))?;
        self.ctx
            .recorder()
            .record(vec![EventKind::AgentRecalled {
                identity_id: id.to_string(),
                seat,
            }])
            .await
            .map_err(|e| HallError::Store(e.to_string()))?;
        drop(reservation);
        let seated = self
            .ctx
            .store()
            .with_docs(|d| identity(d, seat).is_some_and(|i| i.stable_id() == id));
        if !seated {
            return Err(HallError::Refused(seat));
        }
        let woken = self.wake_only(Some(&[seat])).await;
        Ok((seat, woken.contains(&seat)))
    }
}
