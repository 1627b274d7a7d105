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
    #[error(
        "no seat is empty and nobody seated sleeps: put someone to sleep (who sleeps longest \
         makes room) or retire someone"
    )]
    NoEmptySeat,
    #[error("the identity could not take seat {0}: its name is taken by someone seated")]
    Refused(Seat),
    #[error("the store failed: {0}")]
    Store(String),
}

/// A seat filled, and who went to the Hall asleep to make room for it (the grid was full).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seated {
    pub seat: Seat,
    pub made_room: Option<String>,
}

impl Team {
    /// `seat` if it is an empty agent seat; none asked for, the first empty one or, with every
    /// seat taken, the seat of the agent asleep longest, which goes to the Hall asleep to make
    /// room for `newcomer` (its reason there says so).
    pub(in crate::runtime) async fn seat_for(
        &self,
        seat: Option<Seat>,
        newcomer: &str,
    ) -> Result<Seated, HallError> {
        match self.empty_seat(seat) {
            Err(HallError::NoEmptySeat) => {}
            other => {
                return other.map(|seat| Seated {
                    seat,
                    made_room: None,
                })
            }
        }
        let table = self.processes.table();
        let (seat, name) = self
            .ctx
            .store()
            .with_docs(|d| app::domain::wake::longest_asleep(d, |s| !table.is_taken(s)))
            .ok_or(HallError::NoEmptySeat)?;
        let reason = format!("went to the Hall asleep to make room for {newcomer}");
        tracing::info!(seat, %name, "{reason}");
        self.retire(seat, &reason).await?;
        Ok(Seated {
            seat,
            made_room: Some(name),
        })
    }

    /// Whether [`Team::seat_for`] would find room in a full grid (someone seated sleeps).
    pub(in crate::runtime) fn can_make_room(&self) -> bool {
        let table = self.processes.table();
        self.ctx
            .store()
            .with_docs(|d| app::domain::wake::longest_asleep(d, |s| !table.is_taken(s)).is_some())
    }

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
            // A seat held for a start (a fork not yet hatched) is not empty.
            None => agent_seats()
                .find(|&s| empty(s) && !self.processes.table().is_taken(s))
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

    /// Seats the retired identity `id` again (in `seat`, or the first empty one: see
    /// [`Team::seat_for`]) and wakes it; returns where and whether it woke.
    pub async fn recall(&self, id: &str, seat: Option<Seat>) -> Result<(Seated, bool), HallError> {
        let name = self.ctx.store().with_docs(|d| {
            d.get(&hall_id(id))
                .and_then(Doc::as_hall)
                .filter(|h| h.retired_at.is_some() && h.recalled_at.is_none())
                .map(|h| h.name.clone().unwrap_or_else(|| "a nameless one".into()))
        });
        let Some(name) = name else {
            return Err(HallError::NotInHall(id.to_string()));
        };
        let seated = self.seat_for(seat, &name).await?;
        let seat = seated.seat;
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
        let in_seat = self
            .ctx
            .store()
            .with_docs(|d| identity(d, seat).is_some_and(|i| i.stable_id() == id));
        if !in_seat {
            return Err(HallError::Refused(seat));
        }
        let woken = self.wake_only(Some(&[seat])).await;
        Ok((seated, woken.contains(&seat)))
    }
}
