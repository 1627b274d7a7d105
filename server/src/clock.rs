//! The server's one clock. Everything that reads the time of day reads it here: the store
//! stamping events, the runtime comparing ages (eggs that never hatched, stalled stages, stale
//! jobs), the mailboxes stamping messages, exports and backups naming their time. A test that
//! moves it ([`Clock::movable`], [`Clock::advance`]) moves all of them.
//!
//! Durations waited for (tokio's timers) are not the time of day and stay on tokio's clock.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, as the system tells them.
pub fn system_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The time of day: the system's, or (in tests) the system's moved on by hand.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// How far a movable clock has been moved on, in ms (`None`: the system's clock).
    moved: Option<Arc<AtomicI64>>,
}

impl Clock {
    /// The system's clock.
    pub fn system() -> Self {
        Clock::default()
    }

    /// The system's clock, which [`Clock::advance`] moves on (tests). Its clones move with it.
    pub fn movable() -> Self {
        Clock {
            moved: Some(Arc::default()),
        }
    }

    /// Moves a movable clock on by `by`; the system's clock cannot be moved (false).
    pub fn advance(&self, by: Duration) -> bool {
        match &self.moved {
            Some(moved) => {
                moved.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        system_ms() + self.moved.as_ref().map_or(0, |m| m.load(Ordering::SeqCst))
    }

    /// Now in ISO 8601 (UTC, milliseconds).
    pub fn now_iso(&self) -> String {
        app::domain::time::iso(self.now_ms())
    }
}

/// A duration as the flags take it: `90`, `90s`, `15m`, `2h`, `250ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration like 90s, 15m or 1h"))?;
    let ms = match unit {
        "ms" => n,
        "" | "s" => n * 1000,
        "m" => n * 60_000,
        "h" => n * 3_600_000,
        _ => return Err(format!("{s:?}: the unit must be ms, s, m or h")),
    };
    Ok(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_movable_clock_and_its_clones_move_together_and_the_system_clock_does_not() {
        let clock = Clock::movable();
        let clone = clock.clone();
        let before = clone.now_ms();
        assert!(clock.advance(Duration::from_secs(3600)));
        assert!(clone.now_ms() >= before + 3_600_000);
        let system = Clock::system();
        assert!(!system.advance(Duration::from_secs(3600)));
        assert!(system.now_ms() < before + 3_600_000);
    }
}
