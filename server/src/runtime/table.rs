//! The process table: at most one process per seat.
//!
//! A seat is *reserved* synchronously, before anything is awaited, so two starts racing for
//! one seat (concurrent sends to a sleeping lead, a double-clicked WAKE) cannot both pass the
//! check: the second gets [`RuntimeError::SeatTaken`]. Each reservation has a generation, and
//! only the generation that made an entry removes it. A stop is requested through the seat's
//! [`StopSignal`] and awaited on its `done` channel, which the process's owner sets once the
//! `stopped` event is recorded and the entry is gone.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use app::domain::Seat;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::{Runtime, RuntimeError};

/// Asks a process to stop, once; the first reason given is the one recorded. A stop is a kill
/// (at once) or a sleep (the agent first gets its distil turn); the first request decides.
#[derive(Clone, Debug, Default)]
pub struct StopSignal {
    token: CancellationToken,
    reason: Arc<Mutex<Option<String>>>,
    sleep: Arc<AtomicBool>,
}

impl StopSignal {
    /// Stops the process at once (a kill, a newborn that chose no name).
    pub fn request(&self, reason: &str) {
        self.ask(reason, false);
    }

    /// Puts the agent to sleep: its distil turn first, then the stop.
    pub fn request_sleep(&self, reason: &str) {
        self.ask(reason, true);
    }

    fn ask(&self, reason: &str, sleep: bool) {
        let mut r = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        if r.is_none() {
            *r = Some(reason.to_string());
            self.sleep.store(sleep, Ordering::SeqCst);
        }
        self.token.cancel();
    }

    /// Whether the stop asked for is a sleep (with a distil turn first).
    pub fn is_sleep(&self) -> bool {
        self.sleep.load(Ordering::SeqCst)
    }

    pub async fn requested(&self) -> String {
        self.token.cancelled().await;
        self.reason()
    }

    pub fn is_requested(&self) -> bool {
        self.token.is_cancelled()
    }

    fn reason(&self) -> String {
        self.reason
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_else(|| "stopped".into())
    }
}

/// A running process, as others reach it.
#[derive(Clone, Debug)]
pub struct Live {
    pub stdin: mpsc::Sender<String>,
    /// In a turn: from a user message written (or `system/init`) to its `result`.
    pub busy: Arc<AtomicBool>,
    /// Mail written to it that it has not taken yet.
    pub in_flight: super::outgoing::InFlight,
}

impl Live {
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }
}

struct Slot {
    generation: u64,
    stop: StopSignal,
    done: watch::Receiver<bool>,
    /// `None` while the process starts (or between a failed resume and the fresh start).
    live: watch::Receiver<Option<Live>>,
}

#[derive(Default)]
pub struct Table {
    slots: Mutex<std::collections::HashMap<Seat, Slot>>,
    generations: AtomicU64,
}

/// A seat held for one process (while it starts, runs and stops). Dropping it frees the seat
/// (if it still holds it) and tells whoever waits for the stop.
pub struct Reservation {
    rt: Runtime,
    seat: Seat,
    generation: u64,
    stop: StopSignal,
    done: watch::Sender<bool>,
    live: watch::Sender<Option<Live>>,
}

impl Reservation {
    pub fn seat(&self) -> Seat {
        self.seat
    }

    pub fn stop_signal(&self) -> &StopSignal {
        &self.stop
    }

    /// The process runs: others can now write to it.
    pub fn install(&self, live: Live) {
        self.live.send_replace(Some(live));
    }

    /// The process is gone (a fresh one may follow under the same reservation).
    pub fn uninstall(&self) {
        self.live.send_replace(None);
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut slots = self.rt.table().lock();
        if slots
            .get(&self.seat)
            .is_some_and(|s| s.generation == self.generation)
        {
            slots.remove(&self.seat);
        }
        drop(slots);
        let _ = self.done.send(true);
    }
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Seat, Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Seats whose process runs (not those still starting).
    pub fn running(&self) -> Vec<Seat> {
        let mut v: Vec<Seat> = self
            .lock()
            .iter()
            .filter(|(_, s)| s.live.borrow().is_some())
            .map(|(seat, _)| *seat)
            .collect();
        v.sort_unstable();
        v
    }

    pub fn live(&self, seat: Seat) -> Option<Live> {
        self.lock().get(&seat).and_then(|s| s.live.borrow().clone())
    }

    /// The seat's process once it runs: at once if it does, after its start if it is starting;
    /// `None` if the seat has none or it did not come up within `limit`.
    pub async fn live_soon(&self, seat: Seat, limit: std::time::Duration) -> Option<Live> {
        let mut rx = self.lock().get(&seat).map(|s| s.live.clone())?;
        let found = tokio::time::timeout(limit, rx.wait_for(|l| l.is_some())).await;
        match found {
            Ok(Ok(live)) => live.clone(),
            _ => None,
        }
    }

    /// Whether the seat has a process or one is starting.
    pub fn is_taken(&self, seat: Seat) -> bool {
        self.lock().contains_key(&seat)
    }

    /// Asks the seat's process to stop; what to await for it to have stopped.
    fn request_stop(&self, seat: Seat, reason: &str, sleep: bool) -> Option<watch::Receiver<bool>> {
        let slots = self.lock();
        let slot = slots.get(&seat)?;
        match sleep {
            true => slot.stop.request_sleep(reason),
            false => slot.stop.request(reason),
        }
        Some(slot.done.clone())
    }

    fn all_seats(&self) -> Vec<Seat> {
        self.lock().keys().copied().collect()
    }
}

impl Runtime {
    pub(super) fn table(&self) -> &Table {
        &self.inner.table
    }

    /// Holds `seat` for a new process; fails if it has one or one is starting.
    pub(super) fn reserve(&self, seat: Seat) -> Result<Reservation, RuntimeError> {
        let table = self.table();
        let mut slots = table.lock();
        if slots.contains_key(&seat) {
            return Err(RuntimeError::SeatTaken(seat));
        }
        let generation = table.generations.fetch_add(1, Ordering::Relaxed);
        let stop = StopSignal::default();
        let (done, done_rx) = watch::channel(false);
        let (live, live_rx) = watch::channel(None);
        slots.insert(
            seat,
            Slot {
                generation,
                stop: stop.clone(),
                done: done_rx,
                live: live_rx,
            },
        );
        Ok(Reservation {
            rt: self.clone(),
            seat,
            generation,
            stop,
            done,
            live,
        })
    }

    /// Seats with a running process.
    pub fn running(&self) -> Vec<Seat> {
        self.table().running()
    }

    /// Asks the seat's process to stop (or not to start) at once; returns once it has stopped
    /// and its `stopped` event is recorded. Bounded: the process gets a grace, then it is killed.
    pub async fn stop(&self, seat: Seat, reason: &str) {
        if let Some(done) = self.table().request_stop(seat, reason, false) {
            wait_done(done).await;
        }
    }

    /// Puts the seat's agent to sleep: its distil turn (bounded by `--distill-timeout`), its
    /// vault captured, then the stop as [`Runtime::stop`].
    pub async fn sleep(&self, seat: Seat, reason: &str) {
        if let Some(done) = self.table().request_stop(seat, reason, true) {
            wait_done(done).await;
        }
    }

    /// Puts every agent to sleep, all at once (each distils in parallel).
    pub async fn stop_all(&self, reason: &str) {
        let waits: Vec<_> = self
            .table()
            .all_seats()
            .into_iter()
            .filter_map(|seat| self.table().request_stop(seat, reason, true))
            .collect();
        futures::future::join_all(waits.into_iter().map(wait_done)).await;
    }
}

async fn wait_done(mut done: watch::Receiver<bool>) {
    // The sender goes with the reservation: an error means it is gone, so done too.
    let _ = done.wait_for(|d| *d).await;
}
