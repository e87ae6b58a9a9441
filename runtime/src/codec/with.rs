//! Fields stored through a `#[entity(with = "module")]` module: the module's
//! `encode(&T) -> Result<AttributeValue, String>` writes the attribute and its
//! `decode(AttributeValue) -> Result<T, String>` reads it back (serde's `with` habit). For an
//! `Option<T>` field the module handles `T`: `None` omits the attribute, and an absent or NULL
//! attribute reads as `None`.

use crate::AttributeValue;

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
