//! Time-to-live attributes: Numbers of epoch **seconds**, as DynamoDB's TTL requires. The types a
//! `#[ttl]` field may have, and the codec that writes and reads them back in every form a TTL
//! field can take.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::type_error;

use crate::error::Error;
use aws_sdk_dynamodb::types::AttributeValue;

/// The TTL attribute value: a Number of epoch seconds.
#[inline]
pub fn encode_ttl<T: TtlValue>(value: &T) -> AttributeValue {
    AttributeValue::N(value.to_epoch_seconds().to_string())
}

/// Reads a TTL attribute (`None` if absent); `entity` and `attr` name it in errors.
pub fn decode_ttl<T: TtlValue>(
    entity: &'static str,
    attr: &'static str,
    value: Option<AttributeValue>,
) -> Result<Option<T>, Error> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(AttributeValue::N(n)) => {
            let secs: i64 = n
                .parse()
                .map_err(|_| Error::decode(entity, attr, format!("TTL must be whole epoch seconds, found {n}")))?;
            T::from_epoch_seconds(secs)
                .map(Some)
                .ok_or_else(|| Error::decode(entity, attr, format!("epoch seconds {secs} are out of range")))
        }
        Some(other) => Err(Error::decode(entity, attr, type_error("a number (N) of epoch seconds", &other))),
    }
}

/// The TTL attribute value of `seconds` (generated code passes `<T as TtlValue>::to_epoch_seconds`).
#[inline]
pub fn ttl_number(seconds: i64) -> AttributeValue {
    AttributeValue::N(seconds.to_string())
}

/// Reads a TTL attribute (`None` if absent) with `from_seconds`, which generated code passes as
/// `<T as TtlValue>::from_epoch_seconds`; `entity` and `attr` name it in errors.
pub fn decode_ttl_with<T>(
    entity: &'static str,
    attr: &'static str,
    value: Option<AttributeValue>,
    from_seconds: fn(i64) -> Option<T>,
) -> Result<Option<T>, Error> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(AttributeValue::N(n)) => {
            let secs: i64 = n
                .parse()
                .map_err(|_| Error::decode(entity, attr, format!("TTL must be whole epoch seconds, found {n}")))?;
            from_seconds(secs)
                .map(Some)
                .ok_or_else(|| Error::decode(entity, attr, format!("epoch seconds {secs} are out of range")))
        }
        Some(other) => Err(Error::decode(entity, attr, type_error("a number (N) of epoch seconds", &other))),
    }
}

// ---------------------------------------------------------------------------------------------
// The attribute of every stored field. Its type is checked once, at the field: a key field's
// to be `KeyPart` (see `KeyField`), any other's by [`Check`]. So its encoding and decoding never
// need a second error: `KeyEncode`/`KeyDecode` dispatch as `Encode`/`Decode` do, with one more
// level that always applies. That level is only reached by a type that failed its check, whose
// program does not compile: a user with one mistake sees one error, in words.

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
