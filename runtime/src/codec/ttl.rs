//! TTL attributes: epoch seconds written and read back, in every form a TTL field can take.

use super::type_error;

use crate::error::Error;
use crate::model::ttl::TtlValue;
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
