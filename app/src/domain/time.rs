//! Timestamps as text, computed the same on the server and in the browser (UTC), so a
//! server-rendered time never differs from the hydrated one; and the same in a time zone the
//! browser gives (its offset), which the page shows once it has hydrated.

use super::Millis;

/// `(year, month, day, hour, minute, second, millisecond)` in UTC.
fn parts(ms: Millis) -> (i64, i64, i64, i64, i64, i64, i64) {
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        millis,
    )
}

/// ISO-8601 with milliseconds, as Claude Code writes timestamps: `2026-11-22T10:26:44.890Z`.
pub fn iso(ms: Millis) -> String {
    let (y, mo, d, h, mi, s, milli) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// The UTC day of `ms`: `2026-11-22` (a budget's day).
pub fn day_key(ms: Millis) -> String {
    let (y, mo, d, ..) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02}")
}

/// The UTC month of `ms`: `2026-11` (a budget's month).
pub fn month_key(ms: Millis) -> String {
    let (y, mo, ..) = parts(ms);
    format!("{y:04}-{mo:02}")
}

/// When the UTC day after `ms` begins.
pub fn next_day(ms: Millis) -> Millis {
    (ms.div_euclid(86_400_000) + 1) * 86_400_000
}

/// `2026-11-22 10:26 UTC`.
pub fn human(ms: Millis) -> String {
    let (y, mo, d, h, mi, ..) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC")
}

/// `2026-11-22 15:56` at `offset` minutes east of UTC (no zone said: it is the reader's own).
pub fn human_at(ms: Millis, offset: i64) -> String {
    let (y, mo, d, h, mi, ..) = parts(ms + offset * 60_000);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}")
}

/// `15:56` at `offset` minutes east of UTC.
pub fn clock_at(ms: Millis, offset: i64) -> String {
    clock(ms + offset * 60_000)
}

/// `10:26`.
pub fn clock(ms: Millis) -> String {
    let (.., h, mi, _, _) = parts(ms);
    format!("{h:02}:{mi:02}")
}

/// Milliseconds since the epoch of a UTC time written `2026-11-22T10:26:44.890Z`, or shorter
/// (`2026-11-22T10:26`, `2026-11-22 10:26 UTC`, `2026-11-22`); `None` for anything else.
pub fn parse_iso(s: &str) -> Option<Millis> {
    let s = s.trim().trim_end_matches(" UTC").trim_end_matches('Z');
    let (date, clock) = s.split_once(['T', ' ']).unwrap_or((s, "00:00"));
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, mo, da) = (d.next()??, d.next()??, d.next()??);
    if d.next().is_some() || !(1..=12).contains(&mo) || !(1..=31).contains(&da) {
        return None;
    }
    let (hm, frac) = clock.split_once('.').unwrap_or((clock, "0"));
    let mut t = hm.split(':').map(|p| p.parse::<i64>().ok());
    let (h, mi) = (t.next()??, t.next()??);
    let sec = t.next().unwrap_or(Some(0))?;
    if t.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let milli: i64 = format!("{frac:0<3}").get(..3)?.parse().ok()?;
    // Days from the civil date (the inverse of `parts`).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy.rem_euclid(400);
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) * 1000) + milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso(1_795_343_398_123), "2026-11-22T10:29:58.123Z");
        assert_eq!(human(1_795_343_398_123), "2026-11-22 10:29 UTC");
        assert_eq!(clock(1_795_343_398_123), "10:29");
        assert_eq!(iso(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn a_time_in_the_readers_zone() {
        // India (UTC+5:30) and New York in winter (UTC-5), across a day's edge.
        assert_eq!(human_at(1_795_343_398_123, 330), "2026-11-22 15:59");
        assert_eq!(clock_at(1_795_343_398_123, 330), "15:59");
        assert_eq!(human_at(1_795_305_600_000, -300), "2026-11-21 19:00");
    }

    #[test]
    fn times_read_back() {
        for ms in [0, 951_782_400_000, 1_795_343_398_123, -1, 4_102_444_800_000] {
            assert_eq!(parse_iso(&iso(ms)), Some(ms), "{}", iso(ms));
        }
        assert_eq!(parse_iso("2026-11-22 10:29 UTC"), Some(1_795_343_340_000));
        assert_eq!(parse_iso("2026-11-22T10:29"), Some(1_795_343_340_000));
        assert_eq!(parse_iso("2026-11-22"), Some(1_795_305_600_000));
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-11-22T25:00",
            "2026-11-22T10",
            "1-2-3-4",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }
}
