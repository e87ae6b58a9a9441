//! Helpers called by the generated item codec. Not a stable API: generated code reaches
//! them through `dynamo_entity::__private`.
//!
//! Field values are converted with `serde_dynamo`, except for the most common types
//! (strings, integers, `bool`, lists of strings, and `Option`s of them), which are converted
//! directly to the same `AttributeValue`s serde_dynamo would produce, and types that are only
//! [`KeyPart`] (a `#[derive(KeyPart)]` enum) are stored as their key text. The choice is made at
//! compile time by autoref dispatch: `(&&&Encode(&value)).__encode()` picks [`EncodeDirect`]
//! when the type implements [`Direct`], else [`EncodeSerde`] for `Serialize` types, else
//! [`EncodeKey`].

use std::marker::PhantomData;

use crate::{AttributeValue, Error, Item, KeyError, KeyPart, TtlValue};

/// Types converted directly, without going through serde.
pub trait Direct: Sized {
    /// The attribute value; `None` means "omit the attribute".
    fn encode(&self) -> Option<AttributeValue>;
    /// Reads the value back; `None` input means the attribute was absent.
    fn decode(value: Option<AttributeValue>) -> Result<Self, String>;
}

fn type_error(expected: &str, found: &AttributeValue) -> String {
    let found = match found {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::B(_) => "binary (B)",
        AttributeValue::Bool(_) => "a boolean (BOOL)",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "a list (L)",
        AttributeValue::M(_) => "a map (M)",
        AttributeValue::Ss(_) => "a string set (SS)",
        AttributeValue::Ns(_) => "a number set (NS)",
        AttributeValue::Bs(_) => "a binary set (BS)",
        _ => "an unknown type",
    };
    format!("expected {expected}, found {found}")
}

const MISSING: &str = "the attribute is missing";

impl Direct for String {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        Some(AttributeValue::S(self.clone()))
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::S(s)) => Ok(s),
            Some(other) => Err(type_error("a string (S)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

impl Direct for bool {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        Some(AttributeValue::Bool(*self))
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::Bool(b)) => Ok(b),
            Some(other) => Err(type_error("a boolean (BOOL)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

macro_rules! direct_int {
    ($($t:ty)*) => {$(
        impl Direct for $t {
            #[inline]
            fn encode(&self) -> Option<AttributeValue> {
                Some(AttributeValue::N(self.to_string()))
            }
            #[inline]
            fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
                match value {
                    Some(AttributeValue::N(n)) => n.parse::<$t>().map_err(|_| {
                        format!("the number {n} does not fit in {}", stringify!($t))
                    }),
                    Some(other) => Err(type_error("a number (N)", &other)),
                    None => Err(MISSING.to_owned()),
                }
            }
        }
    )*};
}
direct_int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

impl Direct for Vec<String> {
    fn encode(&self) -> Option<AttributeValue> {
        Some(AttributeValue::L(self.iter().map(|s| AttributeValue::S(s.clone())).collect()))
    }
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::L(list)) => list
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    AttributeValue::S(s) => Ok(s),
                    other => Err(format!("element {i}: {}", type_error("a string (S)", &other))),
                })
                .collect(),
            Some(other) => Err(type_error("a list (L)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

impl<T: Direct> Direct for Option<T> {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        self.as_ref().and_then(T::encode)
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            some => T::decode(some).map(Some),
        }
    }
}

/// Wraps a field for encoding (see the module docs).
#[derive(Debug)]
pub struct Encode<'a, T>(pub &'a T);

/// Direct encoding, chosen when `T: Direct`.
pub trait EncodeDirect {
    /// The attribute value; `Ok(None)` means "omit the attribute".
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;
}

impl<T: Direct> EncodeDirect for &&Encode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Ok(self.0.encode())
    }
}

/// serde_dynamo encoding, for every other `Serialize` type.
pub trait EncodeSerde {
    /// The attribute value; `Ok(None)` means "omit the attribute" (a NULL, from `None`).
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;
}

impl<T: serde::Serialize> EncodeSerde for &Encode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        match serde_dynamo::to_attribute_value::<_, AttributeValue>(self.0) {
            Ok(AttributeValue::Null(_)) => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Key-text encoding, for types that are only [`KeyPart`].
pub trait EncodeKey {
    /// The attribute value: the key text as a string.
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;
}

impl<T: KeyPart> EncodeKey for Encode<'_, T> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        crate::key::to_key_text(self.0).map(|t| Some(AttributeValue::S(t))).map_err(|e| e.to_string())
    }
}

/// Selects the decoder for `T` (see the module docs).
#[derive(Debug)]
pub struct Decode<T>(pub PhantomData<T>);

impl<T> Decode<T> {
    /// The selector for `T`.
    #[inline]
    pub fn new() -> Self {
        Decode(PhantomData)
    }
}

impl<T> Default for Decode<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Direct decoding, chosen when `T: Direct`.
pub trait DecodeDirect<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;
}

impl<T: Direct> DecodeDirect<T> for &&Decode<T> {
    #[inline]
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        T::decode(value)
    }
}

/// serde_dynamo decoding, for every other `Deserialize` type.
pub trait DecodeSerde<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;
}

impl<T: serde::de::DeserializeOwned> DecodeSerde<T> for &Decode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        match value {
            Some(v) => serde_dynamo::from_attribute_value(v).map_err(|e| e.to_string()),
            // An absent attribute reads as NULL: fine for `Option`, an error otherwise.
            None => serde_dynamo::from_attribute_value(AttributeValue::Null(true)).map_err(|_| MISSING.to_owned()),
        }
    }
}

/// Key-text decoding, for types that are only [`KeyPart`].
pub trait DecodeKey<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;
}

impl<T: KeyPart> DecodeKey<T> for Decode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        match value {
            Some(AttributeValue::S(s)) => T::parse_key(&s).map_err(|e| e.to_string()),
            Some(other) => Err(type_error("a string (S)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

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

/// A required TTL attribute.
pub fn require<T>(entity: &'static str, attr: &'static str, value: Option<T>) -> Result<T, Error> {
    value.ok_or_else(|| Error::decode(entity, attr, MISSING))
}

/// Checks that a key is neither empty nor longer than DynamoDB allows: DynamoDB would reject it.
#[inline]
pub fn check_key_size(key: &'static str, text: &str, max: usize) -> Result<(), Error> {
    if text.is_empty() {
        return Err(Error::Validation(format!("{key} is empty; DynamoDB rejects empty key attributes")));
    }
    if text.len() > max {
        return Err(Error::Validation(format!("{key} is {} bytes; DynamoDB allows at most {max}", text.len())));
    }
    Ok(())
}

/// An attribute value that cannot be encoded.
pub fn encode_error(entity: &'static str, attr: &'static str, message: String) -> Error {
    Error::Validation(format!("cannot encode attribute `{attr}` of {entity}: {message}"))
}

/// Reads a key attribute of an item as a string.
pub fn key_text<'a>(item: &'a Item, key: &'static str) -> Result<&'a str, KeyError> {
    match item.get(key) {
        Some(AttributeValue::S(s)) => Ok(s),
        _ => Err(KeyError::Missing { key }),
    }
}

/// Checks the type attribute of an item, if present.
pub fn check_type(entity: &'static str, type_attr: &'static str, item: &Item) -> Result<(), Error> {
    match item.get(type_attr) {
        None => Ok(()),
        Some(AttributeValue::S(t)) if t == entity => Ok(()),
        Some(AttributeValue::S(t)) => {
            Err(Error::decode(entity, type_attr, format!("the item is a `{t}`, not a `{entity}`")))
        }
        Some(other) => Err(Error::decode(entity, type_attr, type_error("a string (S)", other))),
    }
}

/// Builds the display text of a key: the key, or the error inline. Never sent to DynamoDB.
pub fn display_key(result: Result<String, KeyError>) -> String {
    match result {
        Ok(text) => text,
        Err(e) => format!("<invalid key: {e}>"),
    }
}

/// Whether an item read by a query of `E` is one of `E`'s: its type attribute names `E`, or,
/// where it has no type attribute (an item written by other code), its primary key parses as
/// one of `E`'s keys. Items of other entities sharing the partition are stepped over.
#[doc(hidden)]
pub fn belongs<E: crate::Entity>(item: &Item) -> bool {
    let schema = &E::SCHEMA;
    match item.get(schema.type_attr) {
        Some(AttributeValue::S(t)) => t == schema.entity_type,
        // A type attribute that is not a string: the key decides, and decoding reports it.
        _ => {
            let Ok(pk) = key_text(item, schema.pk.attr) else { return false };
            let sk = match schema.sk {
                Some(sk) => match key_text(item, sk.attr) {
                    Ok(sk) => Some(sk),
                    Err(_) => return false,
                },
                None => None,
            };
            <E::Key as crate::EntityKey>::parse_keys(pk, sk).is_ok()
        }
    }
}

/// Checks that a key attribute holds the key that the item's key fields format to: an item
/// whose key attributes contradict its key (`SK = MESSAGE#..500#bad` with `ts = 5`) is a
/// decode error, never an entity whose `primary_key()` points at another item.
#[inline]
pub fn check_key(
    entity: &'static str,
    attr: &'static str,
    stored: &str,
    expected: Result<String, KeyError>,
) -> Result<(), Error> {
    match expected {
        Ok(text) if text == stored => Ok(()),
        Ok(text) => Err(Error::decode(
            entity,
            attr,
            format!("the item's key fields give {attr} `{text}`, but the item is stored under `{stored}`"),
        )),
        Err(e) => Err(Error::decode(entity, attr, format!("the item's key fields cannot form its key: {e}"))),
    }
}

/// Names the item in an error of its decoding: a [`Error::Decode`] gains the item's key, and
/// a key that does not parse becomes a [`Error::Decode`] of the key attribute. Called by
/// generated code, on the error path only.
#[cold]
pub fn with_item_key(
    error: Error,
    entity: &'static str,
    item: &Item,
    pk: &'static str,
    sk: Option<&'static str>,
) -> Error {
    let text = |attr: &str| match item.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    let key = text(pk).map(|p| (p, sk.and_then(text)));
    match error {
        Error::Decode { entity: e, attribute, message, key: None } => {
            Error::Decode { entity: e, attribute, message, key }
        }
        Error::Key(e) => {
            let attribute = match &e {
                KeyError::Format { key, .. }
                | KeyError::Mismatch { key, .. }
                | KeyError::Parse { key, .. }
                | KeyError::Missing { key } => (*key).to_owned(),
            };
            Error::Decode { entity, attribute, message: e.to_string(), key }
        }
        other => other,
    }
}
