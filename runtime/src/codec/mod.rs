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
/// met: each key and field is one call that returns nothing, and [`Writer::status`] gives that
/// error. Generated code so has no early return per field (each `?` of a field would drop the
/// item and every value written before it on its own path), which halves the code rustc checks
/// for a `to_item`; what runs on success is the same. Called by generated code.
///
/// A writer made for a write (`Writer::checking`) also adds up the item's size and judges its
/// numbers as each attribute is written, and copies the table's key texts into a buffer the
/// caller lends it (`Checked`): a batch put so needs no second walk over each item to check
/// it and to find its key (issue 51).
#[derive(Debug)]
pub struct Writer {
    item: Item,
    entity: &'static str,
    error: FirstError,
    check: Checked,
}

/// What a checking [`Writer`] saw of the item it wrote: its size and whether its numbers are
/// ones DynamoDB takes (as [`crate::size`] counts and judges them), and where in `texts` its
/// table keys' texts are (`None`: not written by the writer, e.g. a key on a field's own
/// attribute). `on` is false for a writer that checks nothing, or whose item was handed to it
/// whole ([`Writer::absorb`]): the caller walks the item then.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub(crate) on: bool,
    pub(crate) size: usize,
    pub(crate) valid: bool,
    pub(crate) texts: String,
    pub(crate) pk: Option<(usize, usize)>,
    pub(crate) sk: Option<(usize, usize)>,
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
        Writer { item: Item::with_capacity(capacity), entity, error: FirstError::default(), check: Checked::default() }
    }

    /// A writer that checks the item as it is written (see [`Checked`]), copying the table's
    /// key texts to the end of `texts`.
    #[inline(always)]
    pub(crate) fn checking(entity: &'static str, capacity: usize, texts: String) -> Self {
        let check = Checked { on: true, valid: true, texts, ..Checked::default() };
        Writer { item: Item::with_capacity(capacity), entity, error: FirstError::default(), check }
    }

    /// A field's encoding under `attr` (`None` inserts nothing).
    #[inline(always)]
    pub fn put(&mut self, attr: &'static str, value: Result<Option<AttributeValue>, String>) {
        match value {
            Ok(Some(v)) => self.insert(attr, v),
            Ok(None) => {}
            Err(m) => self.fail(encode_error(self.entity, attr, m)),
        }
    }

    /// `value` under `attr`.
    #[inline(always)]
    pub fn insert(&mut self, attr: &'static str, value: AttributeValue) {
        let size = if self.check.on { crate::size::measure_inline(&value, &mut self.check.valid) } else { 0 };
        self.insert_sized(attr, size, || value);
    }

    /// `value` under `attr`, whose size (as [`crate::size`] counts it) is `size`, known by the
    /// caller as it made the value: a checking writer adds it without looking at the value.
    /// Only for values DynamoDB takes whatever they hold (strings, lists of strings, integers of
    /// at most 20 digits): the writer does not judge them.
    ///
    /// The value is made (`make`) after the attribute's name is: made where the map's insert
    /// takes it rather than made first and copied there (issue 51).
    #[inline(always)]
    pub fn insert_sized(&mut self, attr: &'static str, size: usize, make: impl FnOnce() -> AttributeValue) {
        if self.check.on {
            self.check.size += attr.len() + size;
        }
        let name = attr.to_owned();
        if let Some(old) = self.item.insert(name, make()) {
            self.replaced(attr, &old);
        }
    }

    /// An attribute written twice: the size counts the last value only.
    #[cold]
    #[inline(never)]
    fn replaced(&mut self, attr: &str, old: &AttributeValue) {
        if self.check.on {
            self.check.size = self.check.size.saturating_sub(attr.len() + crate::size::value_size(old));
        }
    }

    /// A key attribute: its text, checked against DynamoDB's limits ([`check_key_size`]).
    #[inline(always)]
    pub fn key(&mut self, attr: &'static str, text: Result<String, KeyError>, max: usize) {
        self.key_at(attr, text, max, false);
    }

    /// [`Writer::key`]; with `keep` (a table key), where its text starts and ends in the
    /// checked texts, if the writer checks and the text was written.
    #[inline(always)]
    fn key_at(
        &mut self,
        attr: &'static str,
        text: Result<String, KeyError>,
        max: usize,
        keep: bool,
    ) -> Option<(usize, usize)> {
        match text {
            Ok(text) => match check_key_size(attr, &text, max) {
                Ok(()) => {
                    let at = (keep && self.check.on).then(|| {
                        let start = self.check.texts.len();
                        self.check.texts.push_str(&text);
                        (start, self.check.texts.len())
                    });
                    let size = text.len();
                    self.insert_sized(attr, size, || AttributeValue::S(text));
                    at
                }
                Err(e) => {
                    self.fail(e);
                    None
                }
            },
            Err(e) => {
                self.fail(Error::from(e));
                None
            }
        }
    }

    /// The table's partition key attribute: [`Writer::key`] within the partition key's limit.
    #[inline(always)]
    pub fn pk(&mut self, attr: &'static str, text: Result<String, KeyError>) {
        self.check.pk = self.key_at(attr, text, crate::size::MAX_PARTITION_KEY_BYTES, true);
    }

    /// The table's sort key attribute: [`Writer::key`] within the sort key's limit.
    #[inline(always)]
    pub fn sk(&mut self, attr: &'static str, text: Result<String, KeyError>) {
        self.check.sk = self.key_at(attr, text, crate::size::MAX_SORT_KEY_BYTES, true);
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

    /// The first error met so far (taken: the writer forgets it), else `Ok`.
    #[inline(always)]
    pub fn status(&mut self) -> Result<(), Error> {
        std::mem::take(&mut self.error).or(())
    }

    /// The item written so far.
    #[inline(always)]
    pub fn item(&self) -> &Item {
        &self.item
    }

    /// The item, or the first error met.
    #[inline(always)]
    pub fn finish(self) -> Result<Item, Error> {
        self.error.or(self.item)
    }

    /// Takes `item`, made whole by other code (an `Entity` implemented without the derive): the
    /// writer has seen none of it, so it says it checked nothing.
    pub(crate) fn absorb(&mut self, item: Item) {
        self.item = item;
        self.check.on = false;
    }

    /// The item written and what the writer saw of it, to read and to take the texts from.
    #[inline(always)]
    pub(crate) fn parts_mut(&mut self) -> (&Item, &mut Checked) {
        (&self.item, &mut self.check)
    }

    /// The item and what the writer saw of it (errors are taken by [`Writer::status`] first).
    #[inline(always)]
    pub(crate) fn into_checked(self) -> (Item, Checked) {
        (self.item, self.check)
    }

    /// The item written, taken out (errors are taken by [`Writer::status`] first): the writer
    /// itself is not moved, as [`Writer::into_checked`] moves it (a copy of its whole record,
    /// issue 51).
    #[inline(always)]
    pub(crate) fn take_item(&mut self) -> Item {
        // Left with an empty map of the same hasher (a copy), not a new one (`RandomState::new`
        // reads and bumps a thread-local).
        let empty = Item::with_hasher(self.item.hasher().clone());
        std::mem::replace(&mut self.item, empty)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::{MAX_ITEM_BYTES, item_size};

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
    }

    /// What a checking writer saw of an item: its size, its numbers' verdict and its key texts.
    fn written(write: impl FnOnce(&mut Writer)) -> (Item, Checked) {
        let mut w = Writer::checking("E", 4, "before".to_owned());
        write(&mut w);
        w.into_checked()
    }

    #[test]
    fn a_checking_writer_counts_what_the_walk_counts() {
        let nested = AttributeValue::M(
            [("a".to_owned(), AttributeValue::L(vec![n("1.50"), AttributeValue::Bool(true)]))].into_iter().collect(),
        );
        let (item, checked) = written(|w| {
            w.pk("PK", Ok("ROOM#1".to_owned()));
            w.sk("SK", Ok("MSG#0042".to_owned()));
            w.index_keys([("GSI1PK", Ok("USER#u".to_owned()), 2048)]);
            w.insert("text", AttributeValue::S("héllo".to_owned()));
            w.insert("count", n("-000120"));
            w.put("nested", Ok(Some(nested)));
            w.put("tags", Ok(Some(AttributeValue::Ss(vec!["x".to_owned(), "yz".to_owned()]))));
            w.put("gone", Ok(None));
            // Written twice: the size counts the last value.
            w.insert("text", AttributeValue::S("hi".to_owned()));
        });
        assert!(checked.on && checked.valid);
        assert_eq!(checked.size, item_size(&item));
        // Only the table's keys are copied, after what the buffer held.
        assert_eq!(checked.texts, "beforeROOM#1MSG#0042");
        assert_eq!((checked.pk, checked.sk), (Some((6, 12)), Some((12, 20))));
    }

    #[test]
    fn values_sized_as_they_are_written_count_what_the_walk_counts() {
        // Strings, lists of strings and integers give their size with the value (`Direct::write`).
        let (item, checked) = written(|w| {
            "héllo".to_owned().write(w, "s");
            vec!["a".to_owned(), String::new(), "ccc".to_owned()].write(w, "l");
            Vec::<String>::new().write(w, "empty");
            Some("x".to_owned()).write(w, "some");
            None::<String>.write(w, "none");
            for (i, v) in
                [0i64, 7, -7, 10, 1_000, -1_200, 1_709_234_567_000, i64::MIN, i64::MAX].into_iter().enumerate()
            {
                v.write(w, ["i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8"][i]);
            }
            for (v, attr) in [(0u64, "u0"), (u64::MAX, "u1"), (100_000, "u2")] {
                v.write(w, attr);
            }
            u8::MAX.write(w, "u8");
            i8::MIN.write(w, "i8min");
            // 39 digits: judged by the writer, as any number.
            u128::MAX.write(w, "u128");
        });
        assert!(!item.contains_key("none"));
        assert_eq!(checked.size, item_size(&item));
        assert!(!checked.valid, "u128::MAX has 39 digits");
        let (item, checked) = written(|w| i128::MIN.write(w, "i128"));
        assert_eq!((checked.size, checked.valid), (item_size(&item), false));
        let (item, checked) = written(|w| 12_345u128.write(w, "small"));
        assert_eq!((checked.size, checked.valid), (item_size(&item), true));
    }

    #[test]
    fn a_checking_writer_judges_numbers_as_the_walk_does() {
        for (bad, inside) in [(n("1e400"), false), (n("NaN"), false), (n(&"9".repeat(39)), true)] {
            let (item, checked) = written(|w| {
                w.pk("PK", Ok("A".to_owned()));
                let value = if inside { AttributeValue::L(vec![bad.clone()]) } else { bad.clone() };
                w.insert("x", value);
            });
            assert!(!checked.valid, "{bad:?}");
            let judged = crate::size::verdict("E", &item, checked.size, checked.valid).unwrap_err().to_string();
            assert!(judged.contains("attribute `x"), "{judged}");
        }
        let (item, checked) = written(|w| w.insert("big", AttributeValue::S("x".repeat(MAX_ITEM_BYTES))));
        assert_eq!(checked.size, item_size(&item));
        assert!(crate::size::verdict("E", &item, checked.size, checked.valid).is_err());
    }

    #[test]
    fn a_plain_writer_or_a_whole_item_checks_nothing() {
        let mut w = Writer::new("E", 2);
        w.pk("PK", Ok("A".to_owned()));
        let (_, checked) = w.into_checked();
        assert!(!checked.on);
        assert_eq!((checked.size, checked.pk, checked.texts.as_str()), (0, None, ""));
        let mut w = Writer::checking("E", 2, String::new());
        w.absorb([("PK".to_owned(), AttributeValue::S("A".to_owned()))].into_iter().collect());
        assert!(!w.into_checked().1.on, "an item handed whole was not seen by the writer");
    }

    #[test]
    fn a_key_that_cannot_be_written_is_the_error_and_not_a_text() {
        let (_, checked) = written(|w| {
            w.pk("PK", Ok("x".repeat(2049)));
            w.sk("SK", Err(KeyError::Missing { key: "SK" }));
        });
        assert_eq!((checked.pk, checked.sk, checked.texts.as_str()), (None, None, "before"));
        let mut w = Writer::checking("E", 2, String::new());
        w.pk("PK", Ok("x".repeat(2049)));
        w.sk("SK", Err(KeyError::Missing { key: "SK" }));
        let first = w.status().unwrap_err().to_string();
        assert!(first.contains("at most 2048"), "the first error (the partition key's size) is kept: {first}");
        assert!(w.status().is_ok(), "status takes the error");
    }
}
