//! Helpers called by the generated item codec. Not a stable API: generated code reaches
//! them through `dynamo_entity::__private`.
//!
//! Field values are converted with `serde_dynamo`, except for the most common types
//! (strings, integers, `bool`, lists of strings, and `Option`s of them), which are converted
//! directly to the same `AttributeValue`s serde_dynamo would produce, and types that are only
//! [`KeyPart`](crate::key::KeyPart) (a `#[derive(KeyPart)]` enum) are stored as their key text. The choice is made at
//! compile time by autoref dispatch: `(&&&Encode(&value)).__encode()` picks [`EncodeDirect`]
//! when the type implements [`Direct`], else [`EncodeSerde`] for `Serialize` types, else
//! [`EncodeKey`].

mod direct;
mod dispatch;
mod keys;
mod raw;
mod restore;
pub mod time;
mod ttl;
mod with;

pub use direct::*;
pub use dispatch::*;
pub use keys::*;
pub use raw::RawKeyField;
pub use restore::*;
pub use ttl::*;
pub use with::{
    TimeFormat, TimeWith, TimeWithNotTime, TimeWithValue, required, ttl_decode, with_decode, with_decode_option,
    with_encode, with_encode_option,
};

use crate::error::Error;
use crate::error::KeyError;
use crate::size::Item;
use aws_sdk_dynamodb::types::AttributeValue;

/// A required TTL attribute.
pub fn require<T>(entity: &'static str, attr: &'static str, value: Option<T>) -> Result<T, Error> {
    value.ok_or_else(|| Error::decode(entity, attr, MISSING))
}

/// An attribute value that cannot be encoded.
pub fn encode_error(entity: &'static str, attr: &'static str, message: String) -> Error {
    Error::Validation(format!("cannot encode attribute `{attr}` of {entity}: {message}"))
}

/// A field's encoding: its attribute value (`None`: the attribute is omitted), or why it cannot
/// be encoded.
pub type Encoded = Result<Option<AttributeValue>, String>;

/// The item `to_item` builds, with the entity it belongs to (for errors) and the first error
/// met: each key and field is one call that returns nothing, and [`Writer::finish`] gives the
/// item or that error. Generated code so has no early return per field (each `?` of a field
/// would drop the item and every value written before it on its own path), which halves the
/// code rustc checks for a `to_item`; what runs on success is the same. Called by generated
/// code.
#[derive(Debug)]
pub struct Writer {
    item: Item,
    entity: &'static str,
    error: FirstError,
}

/// The first error met by a builder that goes on after it ([`Writer`], [`Reader`]): later ones
/// are dropped, as a `?` would never have met them.
#[derive(Debug, Default)]
pub(crate) struct FirstError(Option<Error>);

impl FirstError {
    /// Keeps `error` unless an earlier one is kept.
    #[cold]
    #[inline(never)]
    pub(crate) fn keep(&mut self, error: Error) {
        if self.0.is_none() {
            self.0 = Some(error);
        }
    }

    /// `value`, or the error kept.
    #[inline(always)]
    pub(crate) fn or<T>(self, value: T) -> Result<T, Error> {
        match self.0 {
            None => Ok(value),
            Some(e) => Err(e),
        }
    }
}

impl Writer {
    /// An item of `entity` with room for `capacity` attributes.
    #[inline(always)]
    pub fn new(entity: &'static str, capacity: usize) -> Self {
        Writer { item: Item::with_capacity(capacity), entity, error: FirstError::default() }
    }

    /// A field's encoding under `attr` (`None` inserts nothing).
    #[inline(always)]
    pub fn put(&mut self, attr: &'static str, value: Result<Option<AttributeValue>, String>) {
        match value {
            Ok(Some(v)) => {
                self.item.insert(attr.to_owned(), v);
            }
            Ok(None) => {}
            Err(m) => self.fail(encode_error(self.entity, attr, m)),
        }
    }

    /// `value` under `attr`.
    #[inline(always)]
    pub fn insert(&mut self, attr: &'static str, value: AttributeValue) {
        self.item.insert(attr.to_owned(), value);
    }

    /// A key attribute: its text, checked against DynamoDB's limits ([`check_key_size`]).
    #[inline(always)]
    pub fn key(&mut self, attr: &'static str, text: Result<String, KeyError>, max: usize) {
        match text {
            Ok(text) => match check_key_size(attr, &text, max) {
                Ok(()) => {
                    self.item.insert(attr.to_owned(), AttributeValue::S(text));
                }
                Err(e) => self.fail(e),
            },
            Err(e) => self.fail(Error::from(e)),
        }
    }

    /// An index's key attributes (attribute, text, size limit): a text that cannot be written
    /// is an error; if any text is empty none is written (DynamoDB rejects empty index keys:
    /// the item is left out of the index); else each is checked and written.
    #[inline]
    pub fn index_keys<const N: usize>(&mut self, keys: [(&'static str, Result<String, KeyError>, usize); N]) {
        if keys.iter().any(|(_, text, _)| text.is_err()) {
            if let Some(e) = keys.into_iter().find_map(|(_, text, _)| text.err()) {
                self.fail(Error::from(e));
            }
            return;
        }
        if keys.iter().any(|(_, text, _)| text.as_ref().is_ok_and(String::is_empty)) {
            return;
        }
        for (attr, text, max) in keys {
            self.key(attr, text, max);
        }
    }

    /// Keeps `error` unless an earlier one is kept.
    #[inline(always)]
    fn fail(&mut self, error: Error) {
        self.error.keep(error);
    }

    /// The item, or the first error met.
    #[inline(always)]
    pub fn finish(self) -> Result<Item, Error> {
        self.error.or(self.item)
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

/// Reads a key attribute of an item as its key text: a string, or a number's text (a table
/// keyed on a number attribute, see `KeySchema::ty`).
pub fn key_text<'a>(item: &'a Item, key: &'static str) -> Result<&'a str, KeyError> {
    key_value_text(item.get(key), key)
}

/// The key text of key attribute `key`'s value (`None`: absent).
#[inline]
pub(crate) fn key_value_text<'a>(value: Option<&'a AttributeValue>, key: &'static str) -> Result<&'a str, KeyError> {
    match value {
        Some(AttributeValue::S(s) | AttributeValue::N(s)) => Ok(s),
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
