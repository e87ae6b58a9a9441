//! `KeyPart` for points in time: RFC 3339 in UTC with exactly millisecond precision,
//! `YYYY-MM-DDTHH:MM:SS.sssZ` (what JavaScript's `toISOString` writes), years 0000 to 9999.
//!
//! The text has a fixed width, so text order is time order. Sub-millisecond parts are
//! dropped (rounded towards the past), and only that exact shape is parsed back.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{KeyPart, KeyPartError};

const MS_PER_DAY: i64 = 86_400_000;

/// Length of the key text of a time.
const TEXT_LEN: usize = 24;

/// Days from 1970-01-01 to `year-month-day` in the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
const fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = if month > 2 { month - 3 } else { month + 9 }; // March is 0
    let doy = (153 * mp + 2) / 5 + day - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 as `(year, month, day)` (Howard Hinnant's `civil_from_days`).
const fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March is 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// Milliseconds from the epoch to 0000-01-01T00:00:00.000Z, the first time with key text.
const MIN_MS: i64 = days_from_civil(0, 1, 1) * MS_PER_DAY;
/// Milliseconds from the epoch to 9999-12-31T23:59:59.999Z, the last time with key text.
const MAX_MS: i64 = days_from_civil(10_000, 1, 1) * MS_PER_DAY - 1;

const OUT_OF_RANGE: &str = "a time between years 0000 and 9999";
const EXPECTED: &str = "a UTC time of the form `YYYY-MM-DDTHH:MM:SS.sssZ`";

fn out_of_range(value: &impl core::fmt::Debug) -> KeyPartError {
    KeyPartError::OutOfRange { expected: OUT_OF_RANGE, value: format!("{value:?}") }
}

fn invalid(text: &str) -> KeyPartError {
    KeyPartError::Invalid { expected: EXPECTED, text: text.to_owned() }
}

/// Appends the key text of the time `ms` milliseconds after the epoch, if it has one.
pub(crate) fn write_epoch_ms(ms: i64, out: &mut String) -> bool {
    if !(MIN_MS..=MAX_MS).contains(&ms) {
        return false;
    }
    let (year, month, day) = civil_from_days(ms.div_euclid(MS_PER_DAY));
    let in_day = ms.rem_euclid(MS_PER_DAY);
    let (secs, milli) = (in_day / 1000, in_day % 1000);
    let (hour, minute, second) = (secs / 3600, secs / 60 % 60, secs % 60);

    let mut buf = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, len: usize, mut v: i64| {
        for i in (at..at + len).rev() {
            // `v` is non-negative and below 10^len here, so every digit is 0..=9.
            if let Some(b) = buf.get_mut(i) {
                *b = b'0' + (v % 10) as u8;
            }
            v /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, hour);
    put(14, 2, minute);
    put(17, 2, second);
    put(20, 3, milli);
    if let Ok(text) = core::str::from_utf8(&buf) {
        out.push_str(text);
    }
    true
}

/// The number of days of `month` in `year`.
const fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Reads canonical key text as milliseconds after the epoch.
pub(crate) fn read_epoch_ms(text: &str) -> Option<i64> {
    let b: &[u8; TEXT_LEN] = text.as_bytes().try_into().ok()?;
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'.' || b[23] != b'Z'
    {
        return None;
    }
    let num = |at: usize, len: usize| -> Option<i64> {
        let mut v = 0i64;
        for &c in b.get(at..at + len)? {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
        }
        Some(v)
    };
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second, milli) = (num(11, 2)?, num(14, 2)?, num(17, 2)?, num(20, 3)?);
    if !(1..=12).contains(&month) || !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    if hour >= 24 || minute >= 60 || second >= 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(days * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + milli)
}

/// Milliseconds since the epoch, rounded towards the past; `None` if not an `i64`.
pub(crate) fn system_time_to_ms(t: SystemTime) -> Option<i64> {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).ok(),
        Err(e) => {
            let d = e.duration();
            let ms = i64::try_from(d.as_millis()).ok()?;
            // Before the epoch: a partial millisecond moves the time to the millisecond before.
            Some(if d.subsec_nanos() % 1_000_000 != 0 { -ms - 1 } else { -ms })
        }
    }
}

/// Written as `YYYY-MM-DDTHH:MM:SS.sssZ` in UTC, rounded down to the millisecond; a time
/// before year 0000 or after year 9999 cannot be written.
impl KeyPart for SystemTime {
    trusted_key_part!();

    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        match system_time_to_ms(*self) {
            Some(ms) if write_epoch_ms(ms, out) => Ok(()),
            _ => Err(out_of_range(self)),
        }
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        let ms = read_epoch_ms(text).ok_or_else(|| invalid(text))?;
        let time = if ms >= 0 {
            UNIX_EPOCH.checked_add(Duration::from_millis(ms.unsigned_abs()))
        } else {
            UNIX_EPOCH.checked_sub(Duration::from_millis(ms.unsigned_abs()))
        };
        time.ok_or_else(|| KeyPartError::Invalid {
            expected: "a time this platform's `SystemTime` can represent",
            text: text.to_owned(),
        })
    }
}

#[cfg(feature = "chrono")]
mod chrono_impl {
    use chrono::{DateTime, Timelike, Utc};

    use super::{invalid, out_of_range, read_epoch_ms, write_epoch_ms};
    use crate::codec::TtlValue;
    use crate::key::KeyPart;
    use crate::key::KeyPartError;

    /// Milliseconds since the epoch; a leap second's extra milliseconds become `.999` of the
    /// second before it, so they stay in the same second and never pass the next one.
    fn to_ms(t: &DateTime<Utc>) -> i64 {
        let milli = i64::from((t.nanosecond() / 1_000_000).min(999));
        t.timestamp().saturating_mul(1000).saturating_add(milli)
    }

    /// Written as `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded down to the millisecond; years 0000 to
    /// 9999 only. A leap second is written as the last millisecond of the second before it.
    impl KeyPart for DateTime<Utc> {
        trusted_key_part!();

        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            if write_epoch_ms(to_ms(self), out) { Ok(()) } else { Err(out_of_range(self)) }
        }

        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            read_epoch_ms(text).and_then(DateTime::from_timestamp_millis).ok_or_else(|| invalid(text))
        }
    }

    /// Whole seconds since the epoch, rounded down.
    impl TtlValue for DateTime<Utc> {
        fn to_epoch_seconds(&self) -> i64 {
            self.timestamp()
        }
        fn from_epoch_seconds(seconds: i64) -> Option<Self> {
            DateTime::from_timestamp(seconds, 0)
        }
    }
}

#[cfg(feature = "time")]
mod time_impl {
    use time::OffsetDateTime;

    use super::{invalid, out_of_range, read_epoch_ms, write_epoch_ms};
    use crate::codec::TtlValue;
    use crate::key::KeyPart;
    use crate::key::KeyPartError;

    /// Written converted to UTC as `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded down to the millisecond;
    /// years 0000 to 9999 only. Parsed with the UTC offset.
    impl KeyPart for OffsetDateTime {
        trusted_key_part!();

        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            let ms = i64::try_from(self.unix_timestamp_nanos().div_euclid(1_000_000));
            match ms {
                Ok(ms) if write_epoch_ms(ms, out) => Ok(()),
                _ => Err(out_of_range(self)),
            }
        }

        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            read_epoch_ms(text)
                .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok())
                .ok_or_else(|| invalid(text))
        }
    }

    /// Whole seconds since the epoch, rounded down; read back with the UTC offset.
    impl TtlValue for OffsetDateTime {
        fn to_epoch_seconds(&self) -> i64 {
            self.unix_timestamp()
        }
        fn from_epoch_seconds(seconds: i64) -> Option<Self> {
            OffsetDateTime::from_unix_timestamp(seconds).ok()
        }
    }
}

#[cfg(feature = "jiff")]
mod jiff_impl {
    use jiff::Timestamp;

    use super::{invalid, out_of_range, read_epoch_ms, write_epoch_ms};
    use crate::codec::TtlValue;
    use crate::key::KeyPart;
    use crate::key::KeyPartError;

    /// Written as `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded down to the millisecond; years 0000 to
    /// 9999 only. `jiff::Timestamp` ends a little before 9999-12-31T23:59:59.999Z (its maximum
    /// is 9999-12-30T22:00:00.999999999Z), so the texts of later times do not parse.
    impl KeyPart for Timestamp {
        trusted_key_part!();

        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            // `as_millisecond` truncates towards zero; round towards the past instead.
            let ms = i64::try_from(self.as_nanosecond().div_euclid(1_000_000));
            match ms {
                Ok(ms) if write_epoch_ms(ms, out) => Ok(()),
                _ => Err(out_of_range(self)),
            }
        }

        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            // `from_millisecond` stops short of `Timestamp::MAX`'s last second; nanoseconds do not.
            read_epoch_ms(text)
                .and_then(|ms| Timestamp::from_nanosecond(i128::from(ms) * 1_000_000).ok())
                .ok_or_else(|| invalid(text))
        }
    }

    /// Whole seconds since the epoch, rounded down.
    impl TtlValue for Timestamp {
        fn to_epoch_seconds(&self) -> i64 {
            // `as_second` truncates towards zero; round towards the past instead.
            i64::try_from(self.as_nanosecond().div_euclid(1_000_000_000)).unwrap_or(self.as_second())
        }
        fn from_epoch_seconds(seconds: i64) -> Option<Self> {
            Timestamp::from_second(seconds).ok()
        }
    }
}
