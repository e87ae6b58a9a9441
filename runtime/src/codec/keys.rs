//! Key fields and key texts: writing and reading key components, the key attributes of an item,
//! their sizes, and which entity an item belongs to.

use crate::error::Error;
use crate::error::KeyError;
use crate::key::KeyPart;
use crate::size::Item;

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

/// Builds the display text of a key: the key, or the error inline. Never sent to DynamoDB.
pub fn display_key(result: Result<String, KeyError>) -> String {
    match result {
        Ok(text) => text,
        Err(e) => format!("<invalid key: {e}>"),
    }
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
pub fn with_item_key(error: Error, schema: &crate::model::entity::EntitySchema, item: &Item) -> Error {
    let entity = schema.entity_type;
    let text =
        |k: &crate::model::entity::KeySchema| item.get(k.attr).and_then(|v| k.text_of(v)).map(|t| t.into_owned());
    let key = text(&schema.pk).map(|p| (p, schema.sk.as_ref().and_then(text)));
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

/// The type of a `#[unique]` field (or the type in its `Option`): implemented for every
/// [`KeyPart`], whose stored values are strings or numbers that name one value each.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[unique]` value",
    label = "`#[unique]`, so it must implement `KeyPart`",
    note = "unique values can be `String`, integers, `bool`, timestamps, `uuid::Uuid`/`ulid::Ulid` (with their features), a type with `#[derive(KeyPart)]`, or an `Option` of one"
)]
pub trait UniqueValue {
    /// Names the bound in generated code.
    fn __unique() {}
}

impl<T: KeyPart> UniqueValue for T {}

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
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText;
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
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText {
        crate::key::level::LevelText::__new(crate::key::part_text(&value, level.key, level.field), level)
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
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText;
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
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText {
        let text = crate::key::part_text_padded(&value, level.width, level.key, level.field);
        crate::key::level::LevelText::__new(text, level)
    }
}
