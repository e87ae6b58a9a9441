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

use crate::error::Error;
use crate::error::KeyError;
use crate::key::KeyPart;
use crate::model::Item;
use crate::model::ttl::TtlValue;
use aws_sdk_dynamodb::types::AttributeValue;

mod raw;
mod with;
pub use raw::RawKeyField;
pub use with::{
    TimeFormat, TimeWith, TimeWithNotTime, TimeWithValue, required, ttl_decode, with_decode, with_decode_option,
    with_encode, with_encode_option,
};

/// Types converted directly, without going through serde.
pub trait Direct: Sized {
    /// The attribute value; `None` means "omit the attribute".
    fn encode(&self) -> Option<AttributeValue>;
    /// Reads the value back; `None` input means the attribute was absent.
    fn decode(value: Option<AttributeValue>) -> Result<Self, String>;
}

pub(crate) fn type_error(expected: &str, found: &AttributeValue) -> String {
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

/// `Option` of a type that is only [`KeyPart`]: `None` omits the attribute (a sparse index).
impl<T: KeyPart> EncodeKey for Encode<'_, Option<T>> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        match self.0 {
            Some(v) => Encode(v).__encode(),
            None => Ok(None),
        }
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

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }
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

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }
}

/// Whether `value` holds, at any depth, a value the SDK read as `AttributeValue::Unknown` (a
/// type newer than this SDK, or a DynamoDB-compatible endpoint's own): serde_dynamo would panic
/// on it, so it is refused as a decoding error first.
pub(crate) fn holds_unknown(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::S(_)
        | AttributeValue::N(_)
        | AttributeValue::B(_)
        | AttributeValue::Bool(_)
        | AttributeValue::Null(_)
        | AttributeValue::Ss(_)
        | AttributeValue::Ns(_)
        | AttributeValue::Bs(_) => false,
        AttributeValue::L(l) => l.iter().any(holds_unknown),
        AttributeValue::M(m) => m.values().any(holds_unknown),
        _ => true,
    }
}

/// The error of a value [`holds_unknown`].
#[cold]
fn unknown_value() -> String {
    "the attribute holds a value of a type this version does not know (the SDK's `AttributeValue::Unknown`)".to_owned()
}

impl<T: serde::de::DeserializeOwned> DecodeSerde<T> for &Decode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        match value {
            Some(v) if holds_unknown(&v) => Err(unknown_value()),
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

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }
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

/// `Option` of a type that is only [`KeyPart`]: an absent (or NULL) attribute is `None`.
impl<T: KeyPart> DecodeKey<Option<T>> for Decode<Option<T>> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            some => Decode::<T>::new().__decode(some).map(Some),
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

/// Inserts a field's encoding (`Encode`'s result) into the item under `attr`: what `to_item`
/// does for each field (`None`, an absent value, inserts nothing). Called by generated code.
/// Always inlined: as a call, passing the value and the `Result` costs ~60 instructions a field
/// (callgrind, `Message::to_item` 13,581 against 13,054 inlined).
#[inline(always)]
pub fn put(
    item: &mut Item,
    entity: &'static str,
    attr: &'static str,
    value: Result<Option<AttributeValue>, String>,
) -> Result<(), Error> {
    match value {
        Ok(Some(v)) => {
            item.insert(attr.to_owned(), v);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(m) => Err(encode_error(entity, attr, m)),
    }
}

/// A field's decoding (`Decode`'s result), its error naming the attribute: what `from_item`
/// does for each field (serde's `__private::de::missing_field` habit). Called by generated
/// code.
#[inline(always)]
pub fn decoded<T>(entity: &'static str, attr: &'static str, value: Result<T, String>) -> Result<T, Error> {
    match value {
        Ok(v) => Ok(v),
        Err(m) => Err(Error::decode(entity, attr, m)),
    }
}

/// Puts the attribute `attr` of a key field read back from the item's keys, unless the item
/// has it (a view read through an index that does not project it). Called by generated code.
#[doc(hidden)]
pub fn restore(
    item: &mut Item,
    entity: &'static str,
    attr: &'static str,
    value: Result<Option<AttributeValue>, String>,
) -> Result<(), Error> {
    if item.contains_key(attr) {
        return Ok(());
    }
    match value {
        Ok(Some(v)) => {
            item.insert(attr.to_owned(), v);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(m) => Err(Error::decode(entity, attr, m)),
    }
}

/// [`restore`] of a key field read from an index's keys (`from`, their attribute names):
/// put where the item has no attribute; where an earlier index's keys put one (`restored`),
/// both must give the same value, else a decoding error naming both. Called by generated code.
#[doc(hidden)]
pub fn restore_from(
    item: &mut Item,
    entity: &'static str,
    attr: &'static str,
    value: Result<Option<AttributeValue>, String>,
    from: &'static str,
    restored: &mut Vec<(&'static str, &'static str)>,
) -> Result<(), Error> {
    let value = value.map_err(|m| Error::decode(entity, attr, m))?;
    let earlier = restored.iter().find(|(a, _)| *a == attr).map(|(_, f)| *f);
    match (item.get(attr), earlier) {
        // The item's own attribute: it is the field.
        (Some(_), None) => Ok(()),
        (Some(first), Some(earlier)) => match value {
            Some(v) if v != *first => Err(Error::decode(
                entity,
                attr,
                format!(
                    "the item's {earlier} give `{}`, but its {from} give `{}`",
                    display_value(first),
                    display_value(&v)
                ),
            )),
            _ => Ok(()),
        },
        (None, _) => {
            if let Some(v) = value {
                item.insert(attr.to_owned(), v);
                restored.push((attr, from));
            }
            Ok(())
        }
    }
}

/// A key field's value as an error shows it.
fn display_value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// The current value of a field an index key is built from: the one the update sets, else the
/// one `update_from` was given; `None`, with `field` noted as missing, if neither. Called by
/// generated code.
#[doc(hidden)]
#[inline]
pub fn current<'a, T>(
    set: &'a Option<T>,
    given: &'a Option<T>,
    field: &'static str,
    missing: &mut Vec<&'static str>,
) -> Option<&'a T> {
    let current = set.as_ref().or(given.as_ref());
    if current.is_none() {
        missing.push(field);
    }
    current
}

/// Reads a key attribute of an item as a string.
pub fn key_text<'a>(item: &'a Item, key: &'static str) -> Result<&'a str, KeyError> {
    match item.get(key) {
        Some(AttributeValue::S(s)) => Ok(s),
        _ => Err(KeyError::Missing { key }),
    }
}

/// The sort-key text an entity with a sort key needs (`EntityKey::parse_keys`). Called by
/// generated code.
#[doc(hidden)]
#[inline]
pub fn sort_key_text<'a>(sk: Option<&'a str>, attr: &'static str) -> Result<&'a str, KeyError> {
    sk.ok_or(KeyError::Missing { key: attr })
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
pub fn belongs<E: crate::model::entity::Entity>(item: &Item) -> bool {
    membership::<E>(item).is_some()
}

/// [`belongs`], and whether the type attribute was found naming `E` or absent (`Some(true)`: the
/// decoder need not look it up again) or is there but not a string (`Some(false)`: decoding
/// reports it).
#[inline]
pub(crate) fn membership<E: crate::model::entity::Entity>(item: &Item) -> Option<bool> {
    let schema = &E::SCHEMA;
    let checked = match item.get(schema.type_attr) {
        Some(AttributeValue::S(t)) => return (t == schema.entity_type).then_some(true),
        None => true,
        // A type attribute that is not a string: the key decides, and decoding reports it.
        Some(_) => false,
    };
    let pk = key_text(item, schema.pk.attr).ok()?;
    let sk = match schema.sk {
        Some(sk) => Some(key_text(item, sk.attr).ok()?),
        None => None,
    };
    <E::Key as crate::model::entity::EntityKey>::parse_keys(pk, sk).is_ok().then_some(checked)
}

/// Checks that a key attribute holds the key that the item's key fields format to: an item
/// whose key attributes contradict its key (`SK = MESSAGE#..500#bad` with `ts = 5`) is a
/// decode error, never an entity whose `primary_key()` points at another item. `expected` is
/// written on a reused buffer ([`crate::key::KeyBuilder::scratch`]): no allocation.
#[inline]
pub fn check_key(
    entity: &'static str,
    attr: &'static str,
    stored: &str,
    expected: Result<String, KeyError>,
) -> Result<(), Error> {
    match expected {
        Ok(text) if text == stored => {
            crate::key::KeyBuilder::recycle(text);
            Ok(())
        }
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

// ---------------------------------------------------------------------------------------------
// Key components. Generated code names every use of a key field's type through one of these
// traits, written `<T as KeyField>::..`: a type that is not `KeyPart` then fails the same bound,
// at the same span, at every use, and rustc reports it once, pointing at the field.

/// A key component, as generated code uses it: implemented for every [`KeyPart`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written into a DynamoDB key",
    label = "used in a key template, so it must implement `KeyPart`",
    note = "key components can be `String`, integers, `bool`, `SystemTime`, `uuid::Uuid`/`ulid::Ulid`/chrono/time/jiff timestamps (with their features), or a type with `#[derive(KeyPart)]`"
)]
pub trait KeyField: Sized {
    /// Appends the key text (see [`crate::key::write_part`]).
    fn __write(&self, out: &mut String) -> Result<(), crate::key::KeyPartError>;
    /// Reads the next component of a key.
    fn __read(reader: &mut crate::key::KeyReader<'_>, field: &'static str) -> Result<Self, KeyError>;
    /// The key text of one component, for a sort-key condition.
    fn __text(&self, key: &'static str, field: &'static str) -> Result<String, KeyError>;
    /// `Clone`.
    fn __clone(&self) -> Self;
    /// `PartialEq`.
    fn __eq(&self, other: &Self) -> bool;
    /// `Debug`.
    fn __debug(&self) -> &dyn core::fmt::Debug;
    /// Appends the component of `field` to a key being written.
    fn __put(&self, out: &mut crate::key::KeyBuilder, field: &'static str) -> Result<(), KeyError>;
    /// A sort-key condition value of a generated query level.
    fn __at(value: Self, level: &'static crate::ops::query::LevelSpec) -> crate::ops::query::LevelText;
}

impl<T: KeyPart> KeyField for T {
    #[inline]
    fn __write(&self, out: &mut String) -> Result<(), crate::key::KeyPartError> {
        crate::key::write_part(self, out)
    }
    #[inline]
    fn __read(reader: &mut crate::key::KeyReader<'_>, field: &'static str) -> Result<Self, KeyError> {
        reader.part::<T>(field)
    }
    #[inline]
    fn __text(&self, key: &'static str, field: &'static str) -> Result<String, KeyError> {
        crate::key::part_text(self, key, field)
    }
    #[inline]
    fn __clone(&self) -> Self {
        self.clone()
    }
    #[inline]
    fn __eq(&self, other: &Self) -> bool {
        self == other
    }
    #[inline]
    fn __debug(&self) -> &dyn core::fmt::Debug {
        self
    }
    #[inline]
    fn __put(&self, out: &mut crate::key::KeyBuilder, field: &'static str) -> Result<(), KeyError> {
        out.part(self, field)
    }
    #[inline]
    fn __at(value: Self, level: &'static crate::ops::query::LevelSpec) -> crate::ops::query::LevelText {
        crate::ops::query::LevelText::__new(crate::key::part_text(&value, level.key, level.field), level)
    }
}

/// A zero-padded key component (`<field:N>`), as generated code uses it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take a width: `<field:N>` zero-pads integers only",
    label = "a width is given for this field in a key template",
    note = "remove `:N` from the placeholder, or use an integer type"
)]
pub trait PaddedKeyField: Sized {
    /// Appends the key text zero-padded to `width`.
    fn __write_padded(&self, width: usize, out: &mut String) -> Result<(), crate::key::KeyPartError>;
    /// Reads the next component of a key, `width` digits.
    fn __read_padded(
        reader: &mut crate::key::KeyReader<'_>,
        field: &'static str,
        width: usize,
    ) -> Result<Self, KeyError>;
    /// The zero-padded key text of one component, for a sort-key condition.
    fn __text_padded(&self, width: usize, key: &'static str, field: &'static str) -> Result<String, KeyError>;
    /// Appends the component of `field`, zero-padded to `width`, to a key being written.
    fn __put_padded(&self, width: usize, out: &mut crate::key::KeyBuilder, field: &'static str)
    -> Result<(), KeyError>;
    /// A sort-key condition value of a generated query level, zero-padded to the level's width.
    fn __at(value: Self, level: &'static crate::ops::query::LevelSpec) -> crate::ops::query::LevelText;
}

impl<T: crate::key::PaddedKeyPart> PaddedKeyField for T {
    #[inline]
    fn __write_padded(&self, width: usize, out: &mut String) -> Result<(), crate::key::KeyPartError> {
        crate::key::write_part_padded(self, width, out)
    }
    #[inline]
    fn __read_padded(
        reader: &mut crate::key::KeyReader<'_>,
        field: &'static str,
        width: usize,
    ) -> Result<Self, KeyError> {
        reader.part_padded::<T>(field, width)
    }
    #[inline]
    fn __text_padded(&self, width: usize, key: &'static str, field: &'static str) -> Result<String, KeyError> {
        crate::key::part_text_padded(self, width, key, field)
    }
    #[inline]
    fn __put_padded(
        &self,
        width: usize,
        out: &mut crate::key::KeyBuilder,
        field: &'static str,
    ) -> Result<(), KeyError> {
        out.part_padded(self, width, field)
    }
    #[inline]
    fn __at(value: Self, level: &'static crate::ops::query::LevelSpec) -> crate::ops::query::LevelText {
        let text = crate::key::part_text_padded(&value, level.width, level.key, level.field);
        crate::ops::query::LevelText::__new(text, level)
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

/// A type a field can have: what [`Check`] asks of a field that is not stored otherwise
/// (`with`, `#[ttl]`, a key component). Nothing implements it: a type reaches it only when it is
/// neither [`Direct`], nor `Serialize + Deserialize`, nor [`KeyPart`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as an attribute of an item",
    label = "neither serde's `Serialize` + `Deserialize` nor `KeyPart`",
    note = "derive `serde::Serialize` and `serde::Deserialize` for it, `#[derive(KeyPart)]` for a unit-only enum or a one-field tuple struct, or store it with `#[entity(with = \"module\")]`"
)]
pub trait Storable {}

/// Checks once that a field's type can be stored (see [`Storable`]); generated per field.
#[derive(Debug)]
pub struct Check<T>(pub PhantomData<T>);

impl<T> Check<T> {
    /// The check of `T`.
    #[inline]
    pub fn new() -> Self {
        Check(PhantomData)
    }
}

impl<T> Default for Check<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T: Direct`: storable.
pub trait CheckDirect {
    /// Passes.
    fn __check(&self) {}
}
impl<T: Direct> CheckDirect for &&&Check<T> {}

/// `T: Serialize + Deserialize`: storable through serde_dynamo.
pub trait CheckSerde {
    /// Passes.
    fn __check(&self) {}
}
impl<T: serde::Serialize + serde::de::DeserializeOwned> CheckSerde for &&Check<T> {}

/// `T: KeyPart` (or an `Option` of one): storable as its key text.
pub trait CheckKey {
    /// Passes.
    fn __check(&self) {}
}
impl<T: KeyPart> CheckKey for &Check<T> {}
impl<T: KeyPart> CheckKey for &Check<Option<T>> {}

/// None of the above: the one error, in words ([`Storable`]).
pub trait CheckNone<T> {
    /// Fails to compile: `T` is not [`Storable`].
    fn __check(&self)
    where
        T: Storable,
    {
    }
}
impl<T> CheckNone<T> for Check<T> {}

/// Wraps a key field for encoding its own attribute.
#[derive(Debug)]
pub struct KeyEncode<'a, T>(pub &'a T);

impl<T: Direct> EncodeDirect for &&&KeyEncode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Ok(self.0.encode())
    }
}

impl<T: serde::Serialize> EncodeSerde for &&KeyEncode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        (&Encode(self.0)).__encode()
    }
}

impl<T: KeyPart> EncodeKey for &KeyEncode<'_, T> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Encode(self.0).__encode()
    }
}

impl<T: KeyPart> EncodeKey for &KeyEncode<'_, Option<T>> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Encode(self.0).__encode()
    }
}

/// The level no `KeyPart` type reaches (see above).
pub trait EncodeNotKey {
    /// An error: the type is not a key component.
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;
}

impl<T> EncodeNotKey for KeyEncode<'_, T> {
    #[cold]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Err(format!("`{}` is not a key component", core::any::type_name::<T>()))
    }
}

/// Selects the decoder of a key field's own attribute.
#[derive(Debug)]
pub struct KeyDecode<T>(pub PhantomData<T>);

impl<T> KeyDecode<T> {
    /// The selector for `T`.
    #[inline]
    pub fn new() -> Self {
        KeyDecode(PhantomData)
    }
}

impl<T> Default for KeyDecode<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Direct> DecodeDirect<T> for &&&KeyDecode<T> {
    #[inline]
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        T::decode(value)
    }
}

impl<T: serde::de::DeserializeOwned> DecodeSerde<T> for &&KeyDecode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        (&Decode::<T>::new()).__decode(value)
    }
}

impl<T: KeyPart> DecodeKey<T> for &KeyDecode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        Decode::<T>::new().__decode(value)
    }
}

impl<T: KeyPart> DecodeKey<Option<T>> for &KeyDecode<Option<T>> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        Decode::<Option<T>>::new().__decode(value)
    }
}

/// The level no `KeyPart` type reaches (see above).
pub trait DecodeNotKey<T> {
    /// An error: the type is not a key component.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }
}

impl<T> DecodeNotKey<T> for KeyDecode<T> {
    #[cold]
    fn __decode(&self, _: Option<AttributeValue>) -> Result<T, String> {
        Err(format!("`{}` is not a key component", core::any::type_name::<T>()))
    }
}
