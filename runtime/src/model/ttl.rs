//! Time-to-live attributes: Numbers of epoch **seconds**, as DynamoDB's TTL requires.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A type a `#[ttl]` field may have: converts to and from epoch seconds.
///
/// DynamoDB deletes an item some time after the epoch-seconds Number in its TTL attribute has
/// passed. A value in milliseconds is read as a date thousands of years away and silently
/// means "never", so only types that know their own unit can be TTL fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[ttl]` field: TTL must be epoch seconds",
    label = "`#[ttl]` needs a time type, stored as a Number of epoch seconds",
    note = "use `std::time::SystemTime`, `dynamo_entity::EpochSeconds`, an `Option` of one of them, or a chrono/time/jiff timestamp with its feature"
)]
pub trait TtlValue: Sized {
    /// Seconds since 1970-01-01T00:00:00Z, rounded down.
    fn to_epoch_seconds(&self) -> i64;
    /// The value of a stored Number of epoch seconds.
    fn from_epoch_seconds(seconds: i64) -> Option<Self>;
}

/// An instant as whole seconds since the Unix epoch: the exact form DynamoDB's TTL reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct EpochSeconds(pub i64);

impl EpochSeconds {
    /// The current time.
    pub fn now() -> Self {
        EpochSeconds(SystemTime::now().to_epoch_seconds())
    }

    /// The current time plus `after`, for "expire in 24 hours".
    pub fn from_now(after: Duration) -> Self {
        EpochSeconds(Self::now().0.saturating_add(i64::try_from(after.as_secs()).unwrap_or(i64::MAX)))
    }
}

impl From<SystemTime> for EpochSeconds {
    fn from(t: SystemTime) -> Self {
        EpochSeconds(t.to_epoch_seconds())
    }
}

impl TtlValue for EpochSeconds {
    fn to_epoch_seconds(&self) -> i64 {
        self.0
    }
    fn from_epoch_seconds(seconds: i64) -> Option<Self> {
        Some(EpochSeconds(seconds))
    }
}

impl TtlValue for SystemTime {
    fn to_epoch_seconds(&self) -> i64 {
        match self.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            // Before the epoch: round down, towards the past.
            Err(e) => {
                let d = e.duration();
                let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
                if d.subsec_nanos() > 0 { -secs - 1 } else { -secs }
            }
        }
    }
    fn from_epoch_seconds(seconds: i64) -> Option<Self> {
        if seconds >= 0 {
            UNIX_EPOCH.checked_add(Duration::from_secs(seconds.unsigned_abs()))
        } else {
            UNIX_EPOCH.checked_sub(Duration::from_secs(seconds.unsigned_abs()))
        }
    }
}
