//! How points in time are stored outside keys.
//!
//! The design guidelines store dates as ISO 8601 strings and TTLs as epoch seconds. So a
//! `SystemTime` field (and, behind their features, `chrono::DateTime<Utc>`,
//! `time::OffsetDateTime` and `jiff::Timestamp`), or an `Option` of one, is stored by default as
//! the same text a key holds: an ISO 8601 UTC string with milliseconds,
//! `YYYY-MM-DDTHH:MM:SS.sssZ`, what JavaScript's `toISOString()` writes, whose string order is
//! time order (so `begins_with`, `between` and comparisons in conditions work on it).
//!
//! `#[entity(with = "..")]` on a field picks another format, with a module of this crate or
//! one of your own (serde's `with` habit: a module with `encode` and `decode` functions):
//! - [`iso8601`]: the default, a String `2023-11-14T22:13:20.000Z`;
//! - [`iso8601_seconds`]: a String of whole seconds, `2023-11-14T22:13:20Z` (as AWS's published
//!   designs store dates);
//! - [`epoch_seconds`]: a Number of whole seconds since 1970-01-01T00:00:00Z;
//! - [`epoch_millis`]: a Number of milliseconds since then.
//!
//! Each module states the DynamoDB type of the attribute it writes, `ATTRIBUTE_TYPE`: a field
//! that keys an index on its own attribute may be stored `with` a module whose type is the one
//! the index declares for the field's type (a time: S, so [`iso8601`] or [`iso8601_seconds`]). A
//! module of your own states it the same way (`pub const ATTRIBUTE_TYPE: AttributeType = ..`).
//!
//! The item codec and the field paths of conditions, filters and updates (`<Name>::fields()`)
//! all use the field's format, so `fields().created_at.gt(t)` compares with the
//! text (or number) the item holds. `#[ttl]` fields are always epoch seconds.
//!
//! **Precision.** The ISO format and `epoch_millis` hold milliseconds, `iso8601_seconds` and
//! `epoch_seconds` whole seconds. A finer part is dropped when written, rounding towards the past (as keys do, and as
//! JavaScript's `Date` holds times): `SystemTime::now()` is read back as its millisecond. Only
//! what a format writes is read back: an ISO string in another shape (no milliseconds for
//! `iso8601`, a fraction for `iso8601_seconds`, an offset), a number with a fraction or a value
//! of another type is an `Error::Decode` naming the entity, the attribute and the item's key,
//! never a guess. So an item read and written back keeps its bytes, and an index keyed on the
//! attribute holds one shape, whose string order is time order (`…:00.500Z` would sort before
//! `…:00Z`, `.` being below `Z`). The ISO format holds years 0000 to
//! 9999; a time outside them cannot be written (an error, before anything is sent).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::codec::type_error;
use crate::key::attr::AttributeType;
use crate::key::time::{read_epoch_ms, system_time_to_ms, write_epoch_ms};
use aws_sdk_dynamodb::types::AttributeValue;

/// A point in time that the formats of this module can store: milliseconds since the epoch.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a point in time that `dynamo_entity::time` formats can store",
    label = "stored with a `dynamo_entity::time` format (`#[entity(with = \"..\")]`)",
    note = "these formats store `SystemTime`, and `chrono::DateTime<Utc>`, `time::OffsetDateTime` or `jiff::Timestamp` with their features"
)]
pub trait TimeValue: Sized {
    /// Milliseconds since 1970-01-01T00:00:00Z, rounded towards the past; `None` if they do not
    /// fit an `i64`.
    fn to_epoch_millis(&self) -> Option<i64>;
    /// The time `millis` milliseconds after 1970-01-01T00:00:00Z, if the type can hold it.
    fn from_epoch_millis(millis: i64) -> Option<Self>;
}

impl TimeValue for SystemTime {
    fn to_epoch_millis(&self) -> Option<i64> {
        system_time_to_ms(*self)
    }

    fn from_epoch_millis(millis: i64) -> Option<Self> {
        let d = Duration::from_millis(millis.unsigned_abs());
        if millis >= 0 { UNIX_EPOCH.checked_add(d) } else { UNIX_EPOCH.checked_sub(d) }
    }
}

#[cfg(feature = "chrono")]
impl TimeValue for chrono::DateTime<chrono::Utc> {
    /// A leap second's extra milliseconds are the last millisecond of the second before it.
    fn to_epoch_millis(&self) -> Option<i64> {
        use chrono::Timelike;
        let milli = i64::from((self.nanosecond() / 1_000_000).min(999));
        self.timestamp().checked_mul(1000)?.checked_add(milli)
    }

    fn from_epoch_millis(millis: i64) -> Option<Self> {
        chrono::DateTime::from_timestamp_millis(millis)
    }
}

#[cfg(feature = "time")]
impl TimeValue for ::time::OffsetDateTime {
    fn to_epoch_millis(&self) -> Option<i64> {
        i64::try_from(self.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
    }

    /// Read back with the UTC offset.
    fn from_epoch_millis(millis: i64) -> Option<Self> {
        ::time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000).ok()
    }
}

#[cfg(feature = "jiff")]
impl TimeValue for jiff::Timestamp {
    fn to_epoch_millis(&self) -> Option<i64> {
        i64::try_from(self.as_nanosecond().div_euclid(1_000_000)).ok()
    }

    fn from_epoch_millis(millis: i64) -> Option<Self> {
        jiff::Timestamp::from_nanosecond(i128::from(millis) * 1_000_000).ok()
    }
}

fn out_of_range(what: &str) -> String {
    format!("the time is outside what {what} can hold")
}

/// An ISO 8601 UTC String with milliseconds, `YYYY-MM-DDTHH:MM:SS.sssZ` (years 0000 to 9999):
/// the default format of time fields, and the text of times in keys.
pub mod iso8601 {
    use super::{AttributeType, AttributeValue, TimeValue, out_of_range, read_epoch_ms, type_error, write_epoch_ms};

    const SHAPE: &str = "an ISO 8601 UTC time `YYYY-MM-DDTHH:MM:SS.sssZ`";

    /// The attribute is a String.
    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::S;

    /// The attribute of `value`: a String.
    pub fn encode<T: TimeValue>(value: &T) -> Result<AttributeValue, String> {
        let mut text = String::with_capacity(24);
        match value.to_epoch_millis() {
            Some(ms) if write_epoch_ms(ms, &mut text) => Ok(AttributeValue::S(text)),
            _ => Err(out_of_range("an ISO 8601 time of years 0000 to 9999")),
        }
    }

    /// Reads a String of exactly the shape [`encode`] writes.
    pub fn decode<T: TimeValue>(value: AttributeValue) -> Result<T, String> {
        match value {
            AttributeValue::S(text) => read_epoch_ms(&text)
                .ok_or_else(|| format!("expected {SHAPE}, found `{text}`"))
                .and_then(|ms| T::from_epoch_millis(ms).ok_or_else(|| format!("`{text}` is out of range"))),
            other => Err(type_error(&format!("a string (S) holding {SHAPE}"), &other)),
        }
    }
}

/// An ISO 8601 UTC String of whole seconds, `YYYY-MM-DDTHH:MM:SSZ` (years 0000 to 9999): the
/// shape AWS's published designs store dates in (`2026-02-19T14:00:00Z`), and what many tools
/// write. Its string order is time order, so it can key an index on the field's own attribute.
///
/// Writing drops the milliseconds, rounding towards the past. Reading takes exactly this shape:
/// a fraction (`…:00.123Z`, even `.000`) or an offset is an error, never rounded away, so that a
/// time read and written back is the same text, byte for byte (use [`iso8601`] for
/// milliseconds).
pub mod iso8601_seconds {
    use super::{AttributeType, AttributeValue, TimeValue, out_of_range, read_epoch_ms, type_error, write_epoch_ms};

    const SHAPE: &str = "an ISO 8601 UTC time of whole seconds `YYYY-MM-DDTHH:MM:SSZ`";

    /// The attribute is a String.
    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::S;

    /// The attribute of `value`: a String, rounded down to the second.
    pub fn encode<T: TimeValue>(value: &T) -> Result<AttributeValue, String> {
        let mut text = String::with_capacity(24);
        match value.to_epoch_millis() {
            Some(ms) if write_epoch_ms(ms - ms.rem_euclid(1000), &mut text) => {
                // `YYYY-MM-DDTHH:MM:SS.000Z` without its `.000`.
                text.replace_range(19..23, "");
                Ok(AttributeValue::S(text))
            }
            _ => Err(out_of_range("an ISO 8601 time of years 0000 to 9999")),
        }
    }

    /// Reads a String of exactly the shape [`encode`] writes.
    pub fn decode<T: TimeValue>(value: AttributeValue) -> Result<T, String> {
        match value {
            AttributeValue::S(text) => read_seconds(&text)
                .ok_or_else(|| match text.as_bytes().get(19) {
                    Some(b'.') => format!(
                        "expected {SHAPE}, found `{text}`: its fraction of a second would be lost on the next \
                         write (store the field with `dynamo_entity::time::iso8601` to keep milliseconds)"
                    ),
                    _ => format!("expected {SHAPE}, found `{text}`"),
                })
                .and_then(|ms| T::from_epoch_millis(ms).ok_or_else(|| format!("`{text}` is out of range"))),
            other => Err(type_error(&format!("a string (S) holding {SHAPE}"), &other)),
        }
    }

    /// The milliseconds of `YYYY-MM-DDTHH:MM:SSZ`: the millisecond shape's reader, given `.000`.
    fn read_seconds(text: &str) -> Option<i64> {
        if text.len() != 20 || !text.is_ascii() || !text.ends_with('Z') {
            return None;
        }
        let mut full = String::with_capacity(24);
        full.push_str(&text[..19]);
        full.push_str(".000Z");
        read_epoch_ms(&full)
    }
}

/// A Number of whole seconds since 1970-01-01T00:00:00Z (as TTL attributes are stored).
pub mod epoch_seconds {
    use super::{AttributeType, AttributeValue, TimeValue, out_of_range, type_error};

    /// The attribute is a Number.
    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::N;

    /// The attribute of `value`: a Number, rounded down to the second.
    pub fn encode<T: TimeValue>(value: &T) -> Result<AttributeValue, String> {
        let ms = value.to_epoch_millis().ok_or_else(|| out_of_range("epoch seconds"))?;
        Ok(AttributeValue::N(ms.div_euclid(1000).to_string()))
    }

    /// Reads a Number of whole seconds.
    pub fn decode<T: TimeValue>(value: AttributeValue) -> Result<T, String> {
        match value {
            AttributeValue::N(n) => n
                .parse::<i64>()
                .ok()
                .and_then(|s| s.checked_mul(1000))
                .ok_or_else(|| format!("expected whole epoch seconds, found {n}"))
                .and_then(|ms| T::from_epoch_millis(ms).ok_or_else(|| format!("epoch seconds {n} are out of range"))),
            other => Err(type_error("a number (N) of epoch seconds", &other)),
        }
    }
}

/// A Number of milliseconds since 1970-01-01T00:00:00Z (JavaScript's `Date.now()`).
pub mod epoch_millis {
    use super::{AttributeType, AttributeValue, TimeValue, out_of_range, type_error};

    /// The attribute is a Number.
    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::N;

    /// The attribute of `value`: a Number, rounded down to the millisecond.
    pub fn encode<T: TimeValue>(value: &T) -> Result<AttributeValue, String> {
        let ms = value.to_epoch_millis().ok_or_else(|| out_of_range("epoch milliseconds"))?;
        Ok(AttributeValue::N(ms.to_string()))
    }

    /// Reads a Number of whole milliseconds.
    pub fn decode<T: TimeValue>(value: AttributeValue) -> Result<T, String> {
        match value {
            AttributeValue::N(n) => {
                n.parse::<i64>().map_err(|_| format!("expected whole epoch milliseconds, found {n}")).and_then(|ms| {
                    T::from_epoch_millis(ms).ok_or_else(|| format!("epoch milliseconds {n} are out of range"))
                })
            }
            other => Err(type_error("a number (N) of epoch milliseconds", &other)),
        }
    }
}

/// The default format of time fields (ISO 8601) in the item codec's dispatch: chosen before
/// serde, so a time is never stored as serde's map of seconds and nanoseconds.
macro_rules! iso_by_default {
    ($($t:ty),* $(,)?) => {$(
        impl crate::codec::EncodeDirect for &&crate::codec::Encode<'_, $t> {
            #[inline]
            fn __encode(&self) -> Result<Option<AttributeValue>, String> {
                iso8601::encode(self.0).map(Some)
            }
        }
        impl crate::codec::EncodeDirect for &&crate::codec::Encode<'_, Option<$t>> {
            #[inline]
            fn __encode(&self) -> Result<Option<AttributeValue>, String> {
                crate::codec::with_encode_option(self.0, iso8601::encode)
            }
        }
        impl crate::codec::DecodeDirect<$t> for &&crate::codec::Decode<$t> {
            #[inline]
            fn __decode(&self, value: Option<AttributeValue>) -> Result<$t, String> {
                crate::codec::with_decode(value, iso8601::decode)
            }
        }
        impl crate::codec::DecodeDirect<Option<$t>> for &&crate::codec::Decode<Option<$t>> {
            #[inline]
            fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<$t>, String> {
                crate::codec::with_decode_option(value, iso8601::decode)
            }
        }
        impl crate::codec::EncodeDirect for &&&crate::codec::KeyEncode<'_, $t> {
            #[inline]
            fn __encode(&self) -> Result<Option<AttributeValue>, String> {
                iso8601::encode(self.0).map(Some)
            }
        }
        impl crate::codec::EncodeDirect for &&&crate::codec::KeyEncode<'_, Option<$t>> {
            #[inline]
            fn __encode(&self) -> Result<Option<AttributeValue>, String> {
                crate::codec::with_encode_option(self.0, iso8601::encode)
            }
        }
        impl crate::codec::EncoderDirect<$t> for &&&crate::codec::KeyDecode<$t> {
            #[inline]
            fn __encoder(&self) -> crate::codec::FieldEncoder<$t> {
                |v| <&&&crate::codec::KeyEncode<'_, $t> as crate::codec::EncodeDirect>::__encode(&&&&crate::codec::KeyEncode(v))
            }
        }
        impl crate::codec::EncoderDirect<Option<$t>> for &&&crate::codec::KeyDecode<Option<$t>> {
            #[inline]
            fn __encoder(&self) -> crate::codec::FieldEncoder<Option<$t>> {
                |v| {
                    <&&&crate::codec::KeyEncode<'_, Option<$t>> as crate::codec::EncodeDirect>::__encode(
                        &&&&crate::codec::KeyEncode(v),
                    )
                }
            }
        }
        impl crate::codec::DecodeDirect<$t> for &&&crate::codec::KeyDecode<$t> {
            #[inline]
            fn __decode(&self, value: Option<AttributeValue>) -> Result<$t, String> {
                crate::codec::with_decode(value, iso8601::decode)
            }
        }
        impl crate::codec::DecodeDirect<Option<$t>> for &&&crate::codec::KeyDecode<Option<$t>> {
            #[inline]
            fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<$t>, String> {
                crate::codec::with_decode_option(value, iso8601::decode)
            }
        }
    )*};
}

iso_by_default!(SystemTime);
#[cfg(feature = "chrono")]
iso_by_default!(chrono::DateTime<chrono::Utc>);
#[cfg(feature = "time")]
iso_by_default!(::time::OffsetDateTime);
#[cfg(feature = "jiff")]
iso_by_default!(jiff::Timestamp);

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use super::{AttributeValue, epoch_millis, epoch_seconds, iso8601, iso8601_seconds};

    fn t(ms: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms)
    }

    #[test]
    fn formats_write_what_they_read() {
        let at = t(1_700_000_000_123);
        assert_eq!(iso8601::encode(&at), Ok(AttributeValue::S("2023-11-14T22:13:20.123Z".into())));
        assert_eq!(iso8601::decode::<SystemTime>(AttributeValue::S("2023-11-14T22:13:20.123Z".into())), Ok(at));
        assert_eq!(epoch_millis::encode(&at), Ok(AttributeValue::N("1700000000123".into())));
        assert_eq!(epoch_millis::decode::<SystemTime>(AttributeValue::N("1700000000123".into())), Ok(at));
        assert_eq!(epoch_seconds::encode(&at), Ok(AttributeValue::N("1700000000".into())));
        assert_eq!(
            epoch_seconds::decode::<SystemTime>(AttributeValue::N("1700000000".into())),
            Ok(t(1_700_000_000_000))
        );
        // Sub-millisecond parts are dropped, towards the past, also before the epoch.
        let fine = at + Duration::from_nanos(999_999);
        assert_eq!(iso8601::encode(&fine), iso8601::encode(&at));
        let before = UNIX_EPOCH - Duration::from_nanos(1);
        assert_eq!(iso8601::encode(&before), Ok(AttributeValue::S("1969-12-31T23:59:59.999Z".into())));
        assert_eq!(epoch_seconds::encode(&before), Ok(AttributeValue::N("-1".into())));
    }

    #[test]
    fn iso8601_seconds_writes_and_reads_whole_seconds() {
        let at = t(1_771_509_600_000);
        assert_eq!(iso8601_seconds::encode(&at), Ok(AttributeValue::S("2026-02-19T14:00:00Z".into())));
        assert_eq!(iso8601_seconds::decode::<SystemTime>(AttributeValue::S("2026-02-19T14:00:00Z".into())), Ok(at));
        // Milliseconds are dropped towards the past, before the epoch too.
        assert_eq!(iso8601_seconds::encode(&(at + Duration::from_millis(999))), iso8601_seconds::encode(&at));
        let before = UNIX_EPOCH - Duration::from_millis(1);
        assert_eq!(iso8601_seconds::encode(&before), Ok(AttributeValue::S("1969-12-31T23:59:59Z".into())));
        assert_eq!(
            iso8601_seconds::decode::<SystemTime>(AttributeValue::S("1969-12-31T23:59:59Z".into())),
            Ok(UNIX_EPOCH - Duration::from_secs(1))
        );
        // Every second of a day reads back as written.
        for s in (0..86_400).step_by(613) {
            let v = iso8601_seconds::encode(&(at + Duration::from_secs(s))).unwrap();
            let back: SystemTime = iso8601_seconds::decode(v.clone()).unwrap();
            assert_eq!(iso8601_seconds::encode(&back), Ok(v));
        }
        // A fraction (it would be lost on the next write) and other shapes are refused.
        let e =
            iso8601_seconds::decode::<SystemTime>(AttributeValue::S("2026-02-19T14:00:00.000Z".into())).unwrap_err();
        assert!(e.contains("YYYY-MM-DDTHH:MM:SSZ") && e.contains("lost"), "{e}");
        for text in
            ["2026-02-19T14:00:00+00:00", "2026-02-19 14:00:00Z", "2026-02-19T14:00:0Z", "2026-02-19T14:00:00z", ""]
        {
            let e = iso8601_seconds::decode::<SystemTime>(AttributeValue::S(text.into())).unwrap_err();
            assert!(e.contains("YYYY-MM-DDTHH:MM:SSZ"), "{e}");
        }
        assert!(iso8601_seconds::decode::<SystemTime>(AttributeValue::S("2026-02-19T14:00:0é".into())).is_err());
        assert!(iso8601_seconds::decode::<SystemTime>(AttributeValue::N("1".into())).is_err());
        let far = UNIX_EPOCH + Duration::from_secs(400 * 366 * 86_400 * 25);
        assert!(iso8601_seconds::encode(&far).is_err(), "past year 9999");
        assert_eq!(iso8601_seconds::ATTRIBUTE_TYPE, crate::key::attr::AttributeType::S);
        assert_eq!(epoch_millis::ATTRIBUTE_TYPE, crate::key::attr::AttributeType::N);
    }

    #[test]
    fn other_shapes_are_errors() {
        for text in ["2023-11-14T22:13:20Z", "2023-11-14T22:13:20.123+00:00", "2023-11-14 22:13:20.123Z", ""] {
            let e = iso8601::decode::<SystemTime>(AttributeValue::S(text.into())).unwrap_err();
            assert!(e.contains("YYYY-MM-DDTHH:MM:SS.sssZ"), "{e}");
        }
        assert!(iso8601::decode::<SystemTime>(AttributeValue::N("1".into())).is_err());
        assert!(epoch_seconds::decode::<SystemTime>(AttributeValue::N("1.5".into())).is_err());
        assert!(epoch_millis::decode::<SystemTime>(AttributeValue::S("1".into())).is_err());
        assert!(epoch_seconds::decode::<SystemTime>(AttributeValue::N("9223372036854775807".into())).is_err());
        let far = UNIX_EPOCH + Duration::from_secs(400 * 366 * 86_400 * 25);
        assert!(iso8601::encode(&far).is_err(), "past year 9999");
    }

    /// The feature-gated types write the same text and numbers as `SystemTime`.
    #[test]
    #[cfg(all(feature = "chrono", feature = "time", feature = "jiff"))]
    fn every_time_type_agrees() {
        let ms = 1_700_000_000_123_i64;
        let text = AttributeValue::S("2023-11-14T22:13:20.123Z".into());
        let c = chrono::DateTime::from_timestamp_millis(ms).unwrap();
        let o = ::time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).unwrap();
        let j = jiff::Timestamp::from_millisecond(ms).unwrap();
        assert_eq!(iso8601::encode(&c).as_ref(), Ok(&text));
        assert_eq!(iso8601::encode(&o).as_ref(), Ok(&text));
        assert_eq!(iso8601::encode(&j).as_ref(), Ok(&text));
        assert_eq!(iso8601::decode(text.clone()), Ok(c));
        assert_eq!(iso8601::decode(text.clone()), Ok(o));
        assert_eq!(iso8601::decode(text), Ok(j));
        assert_eq!(epoch_millis::encode(&c), Ok(AttributeValue::N(ms.to_string())));
        assert_eq!(epoch_seconds::encode(&j), Ok(AttributeValue::N("1700000000".into())));
        let seconds = AttributeValue::S("2023-11-14T22:13:20Z".into());
        assert_eq!(iso8601_seconds::encode(&c).as_ref(), Ok(&seconds));
        assert_eq!(iso8601_seconds::encode(&o).as_ref(), Ok(&seconds));
        assert_eq!(iso8601_seconds::encode(&j).as_ref(), Ok(&seconds));
        let whole = |ms: i64| ms - ms % 1000;
        assert_eq!(
            iso8601_seconds::decode(seconds.clone()),
            Ok(chrono::DateTime::from_timestamp_millis(whole(ms)).unwrap())
        );
        assert_eq!(
            iso8601_seconds::decode(seconds.clone()),
            Ok(::time::OffsetDateTime::from_unix_timestamp(whole(ms) / 1000).unwrap())
        );
        assert_eq!(iso8601_seconds::decode(seconds), Ok(jiff::Timestamp::from_second(whole(ms) / 1000).unwrap()));
    }
}
