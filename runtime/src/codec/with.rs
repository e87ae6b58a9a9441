//! Fields stored through a `#[entity(with = "module")]` module: the module's
//! `encode(&T) -> Result<AttributeValue, String>` writes the attribute and its
//! `decode(AttributeValue) -> Result<T, String>` reads it back (serde's `with` habit). For an
//! `Option<T>` field the module handles `T`: `None` omits the attribute, and an absent or NULL
//! attribute reads as `None`.

use aws_sdk_dynamodb::types::AttributeValue;

use super::MISSING;

/// Encodes a field through its module's `encode`.
#[inline]
pub fn with_encode<T>(
    value: &T,
    encode: impl FnOnce(&T) -> Result<AttributeValue, String>,
) -> Result<Option<AttributeValue>, String> {
    encode(value).map(Some)
}

/// Encodes an `Option` field through its module's `encode`: `None` omits the attribute.
#[inline]
pub fn with_encode_option<T>(
    value: &Option<T>,
    encode: impl FnOnce(&T) -> Result<AttributeValue, String>,
) -> Result<Option<AttributeValue>, String> {
    match value {
        Some(v) => encode(v).map(Some),
        None => Ok(None),
    }
}

/// Decodes a field through its module's `decode`; an absent attribute is an error.
#[inline]
pub fn with_decode<T>(
    value: Option<AttributeValue>,
    decode: impl FnOnce(AttributeValue) -> Result<T, String>,
) -> Result<T, String> {
    match value {
        Some(v) => decode(v),
        None => Err(MISSING.to_owned()),
    }
}

/// Decodes an `Option` field through its module's `decode`: absent or NULL is `None`.
#[inline]
pub fn with_decode_option<T>(
    value: Option<AttributeValue>,
    decode: impl FnOnce(AttributeValue) -> Result<T, String>,
) -> Result<Option<T>, String> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(v) => decode(v).map(Some),
    }
}

/// Reads a TTL attribute (epoch seconds; `None` if absent or NULL) with `from_seconds`, for a
/// view of the entity (the entity itself reads it with `decode_ttl_with`).
pub fn ttl_decode<T>(value: Option<AttributeValue>, from_seconds: fn(i64) -> Option<T>) -> Result<Option<T>, String> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(AttributeValue::N(n)) => {
            let secs: i64 = n.parse().map_err(|_| format!("TTL must be whole epoch seconds, found {n}"))?;
            from_seconds(secs).map(Some).ok_or_else(|| format!("epoch seconds {secs} are out of range"))
        }
        Some(other) => Err(super::type_error("a number (N) of epoch seconds", &other)),
    }
}

/// A required value: an absent one is the "missing attribute" error.
pub fn required<T>(value: Result<Option<T>, String>) -> Result<T, String> {
    value.and_then(|v| v.ok_or_else(|| MISSING.to_owned()))
}

/// One of the formats of [`crate::codec::time`], as generated code names it when a field is stored
/// `with = "dynamo_entity::time::.."`: the field's type is then checked once to be a
/// [`TimeValue`](super::time::TimeValue), and every use goes through [`TimeWith`], whose last
/// level always applies, so a type that is not a time is one error, at the field.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum TimeFormat {
    Iso8601,
    Iso8601Seconds,
    EpochSeconds,
    EpochMillis,
}

/// Selects the time format's encoder and decoder for `T` (autoref dispatch).
#[doc(hidden)]
#[derive(Debug)]
pub struct TimeWith<T>(pub core::marker::PhantomData<T>);

impl<T> TimeWith<T> {
    /// The selector for `T`.
    #[inline]
    pub fn new() -> Self {
        TimeWith(core::marker::PhantomData)
    }
}

impl<T> Default for TimeWith<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T` is a time: the format's own functions.
#[doc(hidden)]
pub trait TimeWithValue<T> {
    /// The attribute of `value`.
    fn __encode(&self, format: TimeFormat, value: &T) -> Result<AttributeValue, String>;
    /// The value of an attribute.
    fn __decode(&self, format: TimeFormat, value: AttributeValue) -> Result<T, String>;
}

impl<T: super::time::TimeValue> TimeWithValue<T> for &TimeWith<T> {
    #[inline]
    fn __encode(&self, format: TimeFormat, value: &T) -> Result<AttributeValue, String> {
        match format {
            TimeFormat::Iso8601 => super::time::iso8601::encode(value),
            TimeFormat::Iso8601Seconds => super::time::iso8601_seconds::encode(value),
            TimeFormat::EpochSeconds => super::time::epoch_seconds::encode(value),
            TimeFormat::EpochMillis => super::time::epoch_millis::encode(value),
        }
    }

    #[inline]
    fn __decode(&self, format: TimeFormat, value: AttributeValue) -> Result<T, String> {
        match format {
            TimeFormat::Iso8601 => super::time::iso8601::decode(value),
            TimeFormat::Iso8601Seconds => super::time::iso8601_seconds::decode(value),
            TimeFormat::EpochSeconds => super::time::epoch_seconds::decode(value),
            TimeFormat::EpochMillis => super::time::epoch_millis::decode(value),
        }
    }
}

/// The level no time reaches: the field's check has failed to compile already.
#[doc(hidden)]
pub trait TimeWithNotTime<T> {
    /// An error.
    fn __encode(&self, format: TimeFormat, value: &T) -> Result<AttributeValue, String>;
    /// An error.
    fn __decode(&self, format: TimeFormat, value: AttributeValue) -> Result<T, String>;
}

impl<T> TimeWithNotTime<T> for TimeWith<T> {
    #[cold]
    fn __encode(&self, _: TimeFormat, _: &T) -> Result<AttributeValue, String> {
        Err(format!("`{}` is not a time", core::any::type_name::<T>()))
    }

    #[cold]
    fn __decode(&self, _: TimeFormat, _: AttributeValue) -> Result<T, String> {
        Err(format!("`{}` is not a time", core::any::type_name::<T>()))
    }
}
