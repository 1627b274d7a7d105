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

use crate::runtime::error::RuntimeError;
pub use crate::runtime::process::restart::{Restart, Restarts};

/// What a stop keeps of the agent before its process goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// Nothing: a kill, a newborn that chose no name.
    #[default]
    Nothing,
    /// A sleep: its distil turn, then its vault.
    Distilled,
    /// A pause it goes on from in its session (put to work while awake): the turn in flight
    /// ends, then its vault; no distil turn.
    Turn,
}

/// Asks a process to stop, once; the first reason given is the one recorded, and the first
/// request decides what is kept ([`Keep`]).
#[derive(Clone, Debug, Default)]
pub struct StopSignal {
    token: CancellationToken,
    asked: Arc<Mutex<Option<(String, Keep)>>>,
}

impl StopSignal {
    /// Stops the process at once (a kill, a newborn that chose no name).
    pub fn request(&self, reason: &str) {
        self.ask(reason, Keep::Nothing);
    }

    /// Puts the agent to sleep: its distil turn first, then the stop.
    pub fn request_sleep(&self, reason: &str) {
        self.ask(reason, Keep::Distilled);
    }

    /// Pauses the agent: the turn in flight ends, its vault is kept, then the stop.
    pub fn request_pause(&self, reason: &str) {
        self.ask(reason, Keep::Turn);
    }

    fn ask(&self, reason: &str, keep: Keep) {
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if asked.is_none() {
            *asked = Some((reason.to_string(), keep));
        }
        self.token.cancel();
    }

    /// What the stop asked for keeps.
    pub fn keep(&self) -> Keep {
        self.asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(Keep::Nothing, |(_, keep)| *keep)
    }

    pub async fn requested(&self) -> String {
        self.token.cancelled().await;
        self.reason()
    }

    pub fn is_requested(&self) -> bool {
        self.token.is_cancelled()
    }

    /// The reason given, once a stop (or sleep) was asked for.
    pub fn reason_if_requested(&self) -> Option<String> {
        self.is_requested().then(|| self.reason())
    }

    fn reason(&self) -> String {
        self.asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or_else(|| "stopped".into(), |(reason, _)| reason.clone())
    }
}

/// A running process, as others reach it.
#[derive(Clone, Debug)]
pub struct Live {
    pub stdin: mpsc::Sender<String>,
    /// In a turn: from a user message handed to its input (or `system/init`) to its `result`.
    pub busy: Busy,
    /// Mail written to it that it has not taken yet.
    pub in_flight: crate::runtime::process::in_flight::InFlight,
}

impl Live {
    pub fn is_busy(&self) -> bool {
        self.busy.get()
    }

    /// Hands the process a line that starts a turn; false if it was not taken within `limit`.
    ///
    /// Busy is set before the line can reach the process, so the `result` that clears it can
    /// only come after. A line not handed over leaves it set: the input is closed (the process
    /// is going) or full of lines the process will still take, each a turn.
    pub async fn hand_turn(&self, line: String, limit: std::time::Duration) -> bool {
        self.busy.set(true);
        self.stdin.send_timeout(line, limit).await.is_ok()
    }
}

/// Whether a process is in a turn, and a way to await the turn's end.
///
/// Every line that starts a turn sets it *before* the line can reach the process's input
/// ([`Live::hand_turn`]). Set after the hand-over, a sender preempted in between set it again
/// after the turn had ended: busy for good, and a fork waiting for the parent's turn to end
/// waited out its barrier while the child's reserved seat expired. It is one flag, not a
/// count: a `result` clears it while a line handed over behind that turn still waits for its
/// own (the watchdogs and a fork then see the process between turns a moment early).
#[derive(Clone, Debug)]
pub struct Busy(Arc<watch::Sender<bool>>);

impl Default for Busy {
    fn default() -> Self {
        Busy(Arc::new(watch::Sender::new(false)))
    }
}

impl Busy {
    pub fn get(&self) -> bool {
        *self.0.borrow()
    }

    pub fn set(&self, busy: bool) {
        self.0.send_replace(busy);
    }

    /// Returns once the process is between turns.
    pub async fn idle(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|busy| !*busy).await;
    }
}

struct Slot {
    generation: u64,
    stop: StopSignal,
    done: watch::Receiver<bool>,
    /// `None` while the process starts (or between a failed resume and the fresh start).
    live: watch::Receiver<Option<Live>>,
    /// Set by [`Table::restart`]; any other stop or sleep asked of this process clears it.
    restart: Arc<AtomicBool>,
}

/// Who runs where: the process room's owner of the seats. Cheap to clone (one table).
#[derive(Clone, Default)]
pub struct Table(Arc<Slots>);

#[derive(Default)]
struct Slots {
    slots: Mutex<std::collections::HashMap<Seat, Slot>>,
    generations: AtomicU64,
    restarts: Restarts,
}

/// A seat held for one process (while it starts, runs and stops). Dropping it frees the seat
/// (if it still holds it) and tells whoever waits for the stop.
pub struct Reservation {
    table: Table,
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
        let mut slots = self.table.lock();
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
        self.0.slots.lock().unwrap_or_else(|p| p.into_inner())
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

    /// What to await for the seat's process (or its start) to be gone.
    pub fn done(&self, seat: Seat) -> Option<watch::Receiver<bool>> {
        self.lock().get(&seat).map(|s| s.done.clone())
    }

    /// Whether the seat has a process or one is starting.
    pub fn is_taken(&self, seat: Seat) -> bool {
        self.lock().contains_key(&seat)
    }

    /// Asks the seat's process to stop; what to await for it to have stopped.
    fn request_stop(&self, seat: Seat, reason: &str, sleep: bool) -> Option<watch::Receiver<bool>> {
        let slots = self.lock();
        let slot = slots.get(&seat)?;
        slot.restart.store(false, Ordering::SeqCst);
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

impl Table {
    /// Holds `seat` for a new process; fails if it has one or one is starting.
    pub(in crate::runtime) fn reserve(&self, seat: Seat) -> Result<Reservation, RuntimeError> {
        let mut slots = self.lock();
        if slots.contains_key(&seat) {
            return Err(RuntimeError::SeatTaken(seat));
        }
        let generation = self.0.generations.fetch_add(1, Ordering::Relaxed);
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
                restart: Default::default(),
            },
        );
        Ok(Reservation {
            table: self.clone(),
            seat,
            generation,
            stop,
            done,
            live,
        })
    }

    /// Asks the seat's process to stop (or not to start) at once; returns once it has stopped
    /// and its `stopped` event is recorded. Bounded: the process gets a grace, then it is killed.
    pub async fn stop(&self, seat: Seat, reason: &str) {
        if let Some(done) = self.request_stop(seat, reason, false) {
            wait_done(done).await;
        }
    }

    /// Puts the seat's agent to sleep: its distil turn (bounded by `--distill-timeout`), its
    /// knowledge captured, then the stop as [`Table::stop`].
    pub async fn sleep(&self, seat: Seat, reason: &str) {
        if let Some(done) = self.request_stop(seat, reason, true) {
            wait_done(done).await;
        }
    }

    /// Asks the seat's running process to pause so that its agent starts again (with what it
    /// was just given): the start is for the caller to make once [`Restart::stopped`] says it
    /// is still wanted. `None` if the seat has no running process.
    pub fn restart(&self, seat: Seat, reason: &str) -> Option<Restart> {
        let slots = self.lock();
        let slot = slots.get(&seat).filter(|s| s.live.borrow().is_some())?;
        // A process already stopping (or going to sleep) for another reason stays stopped; one
        // already restarting is restarted (once: the second start finds the seat taken).
        if !slot.stop.is_requested() {
            slot.restart.store(true, Ordering::SeqCst);
        }
        slot.stop.request_pause(reason);
        Some(Restart {
            done: slot.done.clone(),
            wanted: slot.restart.clone(),
        })
    }

    /// Puts every agent to sleep, all at once (each distils in parallel); no restart under
    /// way starts one again after.
    pub async fn stop_all(&self, reason: &str) {
        self.sleep_all(reason).await;
        // A restart past its process's stop may have started its agent meanwhile.
        self.0.restarts.settled().await;
        self.sleep_all(reason).await;
    }

    async fn sleep_all(&self, reason: &str) {
        let waits: Vec<_> = self
            .all_seats()
            .into_iter()
            .filter_map(|seat| self.request_stop(seat, reason, true))
            .collect();
        futures::future::join_all(waits.into_iter().map(wait_done)).await;
    }

    /// The tasks that may start an agent again once its process has stopped.
    pub fn restarts(&self) -> &Restarts {
        &self.0.restarts
    }
}

pub(in crate::runtime) async fn wait_done(mut done: watch::Receiver<bool>) {
    // The sender goes with the reservation: an error means it is gone, so done too.
    let _ = done.wait_for(|d| *d).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fork that hung on a loaded machine: the line was handed over, the turn ended, and
    /// only then was the process marked busy. A sender that cannot hand the line over at once
    /// (the input is full) shows the order: the process is busy while the line waits.
    #[tokio::test(flavor = "current_thread")]
    async fn a_process_is_busy_before_its_turn_line_can_reach_it() {
        let (stdin, mut rx) = mpsc::channel(1);
        stdin
            .try_send("a line the process has not taken yet".into())
            .unwrap();
        let live = Live {
            stdin,
            busy: Busy::default(),
            in_flight: Default::default(),
        };
        let sender = tokio::spawn({
            let live = live.clone();
            async move {
                live.hand_turn("the turn".into(), std::time::Duration::from_secs(30))
                    .await
            }
        });
        // The sender runs until its line waits for room (one thread: it runs when we yield).
        tokio::task::yield_now().await;
        assert!(!sender.is_finished(), "the line waits for room");
        assert!(live.is_busy(), "busy before the line can reach the process");
        // The process takes both lines; its turn's `result` clears it, and nothing sets it
        // again behind the result.
        assert_eq!(
            rx.recv().await.unwrap(),
            "a line the process has not taken yet"
        );
        assert_eq!(rx.recv().await.unwrap(), "the turn");
        live.busy.set(false);
        assert!(sender.await.unwrap(), "handed over");
        assert!(!live.is_busy(), "the turn's end stands");
        // And the turn's end is awaited, not polled.
        live.busy.set(true);
        let waiter = tokio::spawn({
            let busy = live.busy.clone();
            async move { busy.idle().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        live.busy.set(false);
        waiter.await.unwrap();
    }
}
