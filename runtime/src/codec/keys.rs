//! Key fields and key texts: writing and reading key components, the key attributes of an item,
//! their sizes, and which entity an item belongs to.

use super::key_text;
use crate::error::Error;
use crate::error::KeyError;
use crate::key::KeyPart;
use crate::key::attr::KeySchema;
use crate::size::Item;
use aws_sdk_dynamodb::types::AttributeValue;

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
pub fn with_item_key(error: Error, schema: &impl ItemKeys, item: &Item) -> Error {
    let (entity, pk, sk) = schema.item_keys();
    let text = |k: &KeySchema| item.get(k.attr).and_then(|v| k.text_of(v)).map(|t| t.into_owned());
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
    /// Reads the literal `lit` before the component (none if empty), the component, and the end
    /// of the text if the component is the template's `last` part: one call (and one early
    /// return in a generated parser) where there were three.
    #[inline(always)]
    fn __read_at(
        reader: &mut crate::key::KeyReader<'_>,
        lit: &'static str,
        field: &'static str,
        last: bool,
    ) -> Result<Self, KeyError> {
        if !lit.is_empty() {
            reader.literal(lit)?;
        }
        let value = Self::__read(reader, field)?;
        if last {
            reader.at_end()?;
        }
        Ok(value)
    }
    /// The key text of one component, for a sort-key condition.
    fn __text(&self, key: &'static str, field: &'static str) -> Result<String, KeyError>;
    /// `Clone`.
    fn __clone(&self) -> Self;
    /// `PartialEq`.
    fn __eq(&self, other: &Self) -> bool;
    /// `Debug`.
    fn __debug(&self) -> &dyn core::fmt::Debug;
    /// Appends the component of `field` to a key being written (an error is kept by `out`).
    fn __put(&self, out: &mut crate::key::KeyBuilder, field: &'static str);
    /// Appends the component of `field` to an index key being written: never empty.
    fn __put_index(&self, out: &mut crate::key::KeyBuilder, field: &'static str);
    /// A sort-key condition value of a generated query level.
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText;
    /// [`KeyField::__read`] as a `codec::ReadComponent` (the width unused): named through the same
    /// `<T as KeyField>` path as the key's writing, so that a type that is not `KeyPart` is one
    /// error at its field, not one per use.
    #[inline]
    fn __read_component(
        reader: &mut crate::key::KeyReader<'_>,
        field: &'static str,
        _width: usize,
    ) -> Result<Self, KeyError> {
        Self::__read(reader, field)
    }
}

impl<T: KeyPart> KeyField for T {
    #[inline]
    fn __write(&self, out: &mut String) -> Result<(), crate::key::KeyPartError> {
        crate::key::write_part(self, out)
    }
    // Always: inlined into `__read_at` as into a generated parser before it.
    #[inline(always)]
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
    fn __put(&self, out: &mut crate::key::KeyBuilder, field: &'static str) {
        out.part(self, field)
    }
    #[inline]
    fn __put_index(&self, out: &mut crate::key::KeyBuilder, field: &'static str) {
        out.part_in_index(self, field)
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
    /// [`KeyField::__read_at`] of a zero-padded component.
    #[inline(always)]
    fn __read_padded_at(
        reader: &mut crate::key::KeyReader<'_>,
        lit: &'static str,
        field: &'static str,
        width: usize,
        last: bool,
    ) -> Result<Self, KeyError> {
        if !lit.is_empty() {
            reader.literal(lit)?;
        }
        let value = Self::__read_padded(reader, field, width)?;
        if last {
            reader.at_end()?;
        }
        Ok(value)
    }
    /// The zero-padded key text of one component, for a sort-key condition.
    fn __text_padded(&self, width: usize, key: &'static str, field: &'static str) -> Result<String, KeyError>;
    /// Appends the component of `field`, zero-padded to `width`, to a key being written (an
    /// error is kept by `out`).
    fn __put_padded(&self, width: usize, out: &mut crate::key::KeyBuilder, field: &'static str);
    /// A sort-key condition value of a generated query level, zero-padded to the level's width.
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText;
}

impl<T: crate::key::PaddedKeyPart> PaddedKeyField for T {
    #[inline]
    fn __write_padded(&self, width: usize, out: &mut String) -> Result<(), crate::key::KeyPartError> {
        crate::key::write_part_padded(self, width, out)
    }
    #[inline(always)]
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
    fn __put_padded(&self, width: usize, out: &mut crate::key::KeyBuilder, field: &'static str) {
        out.part_padded(self, width, field)
    }
    #[inline]
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText {
        let text = crate::key::part_text_padded(&value, level.width, level.key, level.field);
        crate::key::level::LevelText::__new(text, level)
    }
}

// ---------------------------------------------------------------------------------------------
// Reading an item back: `from_item` without an early return per field.

/// What `from_item` keeps while it reads an item's fields: the entity (for errors) and the
/// first error met. Each field's read is one call giving `Some(value)`, or `None` with the
/// error kept; the struct is built once every read gave a value, and [`Reader::finish`] gives
/// it or that error. Generated code so has no early return per field (each `?` would drop
/// every value read before it on its own path): the code rustc checks for a `from_item` is
/// about half. What runs on success is the same. Called by generated code.
#[derive(Debug)]
pub struct Reader {
    entity: &'static str,
    error: super::FirstError,
}

impl Reader {
    /// Reads an item of `entity`.
    #[inline(always)]
    pub fn new(entity: &'static str) -> Self {
        Reader { entity, error: super::FirstError::default() }
    }

    /// A field's decoding (`Decode`'s result), its error naming the attribute.
    #[inline(always)]
    pub fn ok<T>(&mut self, attr: &'static str, value: Result<T, String>) -> Option<T> {
        match value {
            Ok(v) => Some(v),
            Err(m) => {
                self.fail(Error::decode(self.entity, attr, m));
                None
            }
        }
    }

    /// A step that fails with its own error (a TTL's decoding, key fields read from the keys).
    #[inline(always)]
    pub fn check<T>(&mut self, value: Result<T, Error>) -> Option<T> {
        match value {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// A required attribute read as `Option` (a TTL): absent is an error.
    #[inline(always)]
    pub fn require<T>(&mut self, attr: &'static str, value: Option<Option<T>>) -> Option<T> {
        match value {
            Some(Some(v)) => Some(v),
            Some(None) => {
                self.fail(Error::decode(self.entity, attr, crate::codec::MISSING));
                None
            }
            None => None,
        }
    }

    /// Whether a read failed so far (its error kept).
    #[inline(always)]
    pub fn failed(&self) -> bool {
        self.error.0.is_some()
    }

    /// The read of a key field whose own attribute `attr` is a key of the table (of type `ty`: a
    /// table keyed on plain attributes), taken out of `item` as `value` and read by `decode`
    /// (`Some(None)`: absent). A read that fails puts the attribute back into `item`, so that the
    /// error names the item's key as it does for a key text: a copy of its text is kept while
    /// it is read, on this thread's reused key buffer (no allocation), except for a `String` or
    /// bytes, which read every value of their type. (A read that succeeds is put back by the
    /// decoder only if another fails: [`put_back`].)
    #[inline(always)]
    pub fn read_table_key<T: 'static>(
        &mut self,
        item: &mut Item,
        attr: &'static str,
        ty: crate::key::attr::AttributeType,
        value: Option<AttributeValue>,
        decode: impl FnOnce(Option<AttributeValue>) -> Result<Option<T>, String>,
    ) -> Option<Option<T>> {
        use std::any::TypeId;
        let infallible =
            TypeId::of::<T>() == TypeId::of::<String>() || TypeId::of::<T>() == TypeId::of::<serde_bytes::ByteBuf>();
        let kept = match (&value, infallible) {
            (Some(AttributeValue::S(text) | AttributeValue::N(text)), false) => {
                let mut copy = crate::key::KeyBuilder::scratch_text();
                copy.push_str(text);
                Some(copy)
            }
            _ => None,
        };
        match decode(value) {
            Ok(read) => {
                if let Some(copy) = kept {
                    crate::key::KeyBuilder::recycle(copy);
                }
                Some(read)
            }
            Err(m) => {
                self.fail(Error::decode(self.entity, attr, m));
                if let Some(value) = kept.and_then(|text| ty.value(&text)) {
                    put_back(item, attr, Ok(Some(value)));
                }
                None
            }
        }
    }

    /// The key of the item, parsed from its key attributes `pk` and `sk` (the key fields that
    /// the item does not hold as attributes of their own).
    #[inline]
    pub fn keys<K: ParseKeys>(&mut self, item: &Item, pk: &'static str, sk: Option<&'static str>) -> Option<K> {
        self.check(item_key(item, pk, sk))
    }

    /// The key fields' reads (`reads`: a tuple of `Option<Option<T>>`, one per key field:
    /// `Some(Some(v))` read, `Some(None)` absent, `None` an error kept), the absent ones taken
    /// from the item's key (parsed from `pk` and `sk`, and `split` into its fields), once: what
    /// `from_item` did in a `match` of its own per entity.
    #[inline(always)]
    pub fn key_fields<K: ParseKeys, R: KeyFieldReads>(
        &mut self,
        item: &Item,
        pk: &'static str,
        sk: Option<&'static str>,
        reads: R,
        split: impl FnOnce(K) -> R::Parts,
    ) -> R::Values {
        reads.fill(|| self.keys::<K>(item, pk, sk).map(split))
    }

    /// [`check_key`]: the key attribute `attr` must hold the key the item's fields format to.
    #[inline]
    pub fn check_key(&mut self, attr: &'static str, item: &Item, expected: Result<String, KeyError>) {
        let checked = match rest_key_text(item, attr) {
            Ok(stored) => check_key(self.entity, attr, stored, expected),
            Err(e) => Err(Error::from(e)),
        };
        if let Err(e) = checked {
            self.fail(e);
        }
    }

    /// Keeps `error` unless an earlier one is kept.
    #[inline(always)]
    fn fail(&mut self, error: Error) {
        self.error.keep(error);
    }

    /// The entity read, or the first error met, naming the item by its key
    /// ([`with_item_key`]).
    #[inline(always)]
    pub fn finish<E>(self, schema: &impl ItemKeys, item: &Item, value: Option<E>) -> Result<E, Error> {
        let value = self.error.or(value).map_err(|e| with_item_key(e, schema, item))?;
        // Every read that gives `None` keeps an error: not reached.
        value.ok_or_else(|| {
            let pk = schema.item_keys().1.attr;
            with_item_key(Error::decode(self.entity, pk, "the item could not be read"), schema, item)
        })
    }
}

/// Puts the attribute `attr` of a table key on a field's own attribute back into `item`, where
/// the decoder took it out ([`take_fields`]), from the field's value read (`encoded`), so that an
/// error of the item's decoding names its key ([`with_item_key`]). Called by generated code,
/// when a read failed only.
#[cold]
#[inline(never)]
pub fn put_back(item: &mut Item, attr: &'static str, encoded: super::Encoded) {
    if let Ok(Some(value)) = encoded {
        item.entry(attr.to_owned()).or_insert(value);
    }
}

/// The value of attribute `attr` that a view reads from `item` (an item of the entity of
/// `schema`): taken out of the item, but a key attribute of the table (a field's own attribute
/// keying a table on plain attributes) is copied and left, so that an error of the view's
/// decoding still names the item's key ([`with_item_key`]). Called by generated views.
#[doc(hidden)]
#[inline]
pub fn take_for_view(item: &mut Item, schema: &impl ItemKeys, attr: &str) -> Option<AttributeValue> {
    let (_, pk, sk) = schema.item_keys();
    if pk.attr == attr || sk.is_some_and(|k| k.attr == attr) {
        return item.get(attr).cloned();
    }
    item.remove(attr)
}

/// Takes the attributes an entity's fields read out of `item`, in one pass over it: `slot` gives
/// each attribute name its field's place in the array (`N` or more: not a field's, left in the
/// item). What a look-up per field did (`item.remove(attr)`: a SipHash of the name, about 130
/// instructions, per field) costs, per attribute, a call of `slot` (the entity's `match` of
/// names: a comparison of lengths and, where they are equal, of bytes) (issue 51). What is left
/// in the item is what the look-ups left: the key attributes, the type attribute and attributes
/// no field reads. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn take_fields<const N: usize>(item: &mut Item, slot: fn(&str) -> usize) -> [Option<AttributeValue>; N] {
    let mut values = [const { None }; N];
    take_into(item, &mut values, slot);
    values
}

/// [`take_fields`]' pass, compiled once for every entity (`slot` a function, `values` a slice):
/// an entity's decoder adds only its `match` of names, not a copy of the map's walk.
fn take_into(item: &mut Item, values: &mut [Option<AttributeValue>], slot: fn(&str) -> usize) {
    item.retain(|name, value| match values.get_mut(slot(name)) {
        // A name two attributes cannot share: each slot is filled once.
        Some(place) => {
            *place = Some(std::mem::replace(value, AttributeValue::Null(true)));
            false
        }
        None => true,
    });
}

/// The reads of an entity's key fields, as a tuple ([`Reader::key_fields`]); implemented for
/// tuples of `Option<Option<T>>` of 1 to 16 fields.
pub trait KeyFieldReads {
    /// The key fields' values, as the item's parsed key gives them.
    type Parts;
    /// Each key field's value, or `None` (an error kept).
    type Values;

    /// Every read that found its attribute as it is; if some were absent and none failed, the
    /// absent ones from `parts` (the key; `None`: it did not parse, its error kept).
    fn fill(self, parts: impl FnOnce() -> Option<Self::Parts>) -> Self::Values;
}

macro_rules! key_field_reads {
    ($($t:ident $v:ident $k:ident),+) => {
        impl<$($t),+> KeyFieldReads for ($(Option<Option<$t>>,)+) {
            type Parts = ($($t,)+);
            type Values = ($(Option<$t>,)+);

            #[inline(always)]
            fn fill(self, parts: impl FnOnce() -> Option<Self::Parts>) -> Self::Values {
                match self {
                    ($(Some(Some($v)),)+) => ($(Some($v),)+),
                    ($(Some($v),)+) => match parts() {
                        Some(($($k,)+)) => ($(Some(Option::unwrap_or($v, $k)),)+),
                        None => ($(None::<$t>,)+),
                    },
                    _ => ($(None::<$t>,)+),
                }
            }
        }
    };
}

key_field_reads!(A0 v0 k0);
key_field_reads!(A0 v0 k0, A1 v1 k1);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8);
key_field_reads!(A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10
);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10,
    A11 v11 k11
);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10,
    A11 v11 k11, A12 v12 k12
);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10,
    A11 v11 k11, A12 v12 k12, A13 v13 k13
);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10,
    A11 v11 k11, A12 v12 k12, A13 v13 k13, A14 v14 k14
);
key_field_reads!(
    A0 v0 k0, A1 v1 k1, A2 v2 k2, A3 v3 k3, A4 v4 k4, A5 v5 k5, A6 v6 k6, A7 v7 k7, A8 v8 k8, A9 v9 k9, A10 v10 k10,
    A11 v11 k11, A12 v12 k12, A13 v13 k13, A14 v14 k14, A15 v15 k15
);

/// [`key_text`] of an item whose fields the decoder has taken out ([`take_fields`]): what is
/// left is the key attributes and a few others, found by comparing names for less than hashing
/// the name for a look-up costs (SipHash: about 150 instructions, twice per item read). A larger
/// rest (attributes other code added) is looked up.
#[inline]
fn rest_key_text<'a>(item: &'a Item, key: &'static str) -> Result<&'a str, KeyError> {
    const WALKED: usize = 8;
    if item.len() > WALKED {
        return key_text(item, key);
    }
    super::key_value_text(item.iter().find(|(name, _)| name.as_str() == key).map(|(_, v)| v), key)
}

/// Puts back the primary-key fields' attributes that `item` lacks (a view read through an index
/// that does not project them), parsed from its key attributes `pk` and `sk`: `attrs` are the
/// fields' attributes, `fields` the key type's encodings of them. Called by generated code
/// (`HasFields::__restore_key_fields`).
#[doc(hidden)]
pub fn restore_primary<K: ParseKeys>(
    item: &mut Item,
    entity: &'static str,
    attrs: &[&'static str],
    pk: &'static str,
    sk: Option<&'static str>,
    fields: fn(&K) -> Vec<(&'static str, super::Encoded)>,
) -> Result<(), Error> {
    if attrs.iter().all(|a| item.contains_key(*a)) {
        return Ok(());
    }
    let key: K = item_key(item, pk, sk)?;
    for (attr, value) in fields(&key) {
        super::restore(item, entity, attr, value)?;
    }
    Ok(())
}

/// `EntityKey::parse_keys` of a generated key type with a sort key (attribute `attr`): the
/// sort-key text must be there. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn parse_with_sk<K>(
    pk: &str,
    sk: Option<&str>,
    attr: &'static str,
    parse: fn(&str, &str) -> Result<K, KeyError>,
) -> Result<K, KeyError> {
    parse(pk, super::sort_key_text(sk, attr)?)
}

/// The key of `item`, parsed from its key attributes `pk` and `sk` (`None`: no sort key).
fn item_key<K: ParseKeys>(item: &Item, pk: &'static str, sk: Option<&'static str>) -> Result<K, Error> {
    let sk = match sk {
        Some(attr) => Some(key_text(item, attr)?),
        None => None,
    };
    Ok(K::__parse_item_keys(key_text(item, pk)?, sk)?)
}

/// What the codec needs of an entity's description to name an item in an error: the entity's
/// type and its key attributes (`EntitySchema`, one floor up, implements it).
pub trait ItemKeys {
    /// The entity type, the partition key and the sort key.
    fn item_keys(&self) -> (&'static str, &KeySchema, Option<&KeySchema>);
}

/// A key type the codec parses from an item's key texts (every `EntityKey`, one floor up,
/// through `EntityKey::parse_keys`).
pub trait ParseKeys: Sized {
    #[doc(hidden)]
    fn __parse_item_keys(pk: &str, sk: Option<&str>) -> Result<Self, KeyError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;
    use std::collections::HashMap;

    /// One pass takes what a look-up per field would have removed: each field's value in its
    /// slot (`None` for an absent attribute), everything else left in the item as it was, for
    /// items of a few attributes and of many.
    #[test]
    fn fields_are_taken_as_a_look_up_per_field_takes_them() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        const FIELDS: [&str; 4] = ["chatRoomId", "timestamp", "content", "absent"];
        let slot = |name: &str| FIELDS.iter().position(|f| *f == name).unwrap_or(FIELDS.len());
        for extra in [0usize, 1, 9, 40] {
            let mut item: Item = HashMap::from([
                ("PK".to_owned(), s("CHATROOM#1")),
                ("chatRoomId".to_owned(), s("1")),
                ("timestamp".to_owned(), AttributeValue::N("42".into())),
                ("content".to_owned(), s("hi")),
                // Same length as a field's name, another name: left.
                ("contenT".to_owned(), s("other")),
            ]);
            item.extend((0..extra).map(|i| (format!("a{i}"), s("x"))));
            let mut looked_up = item.clone();
            let expected: Vec<Option<AttributeValue>> = FIELDS.iter().map(|f| looked_up.remove(*f)).collect();
            let taken = take_fields::<4>(&mut item, slot);
            assert_eq!(taken.to_vec(), expected, "{extra} other attributes");
            assert_eq!(item, looked_up, "what is left, {extra} other attributes");
            assert_eq!(taken[1], Some(AttributeValue::N("42".into())));
            assert_eq!(taken[3], None);
        }
    }

    /// The key text of what the decoder left of an item is the looked-up key text, whether the
    /// rest is walked (a few attributes) or looked up (more than [`rest_key_text`] walks): a
    /// string or a number, and `Missing` for an absent attribute or one of another type.
    #[test]
    fn the_rest_of_an_item_gives_the_looked_up_key_text() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        for extra in [0usize, 3, 6, 7, 20] {
            let mut item: Item = HashMap::from([
                ("PK".to_owned(), s("CHATROOM#1")),
                ("SK".to_owned(), AttributeValue::N("42".into())),
                ("Type".to_owned(), s("Message")),
                ("odd".to_owned(), AttributeValue::Bool(true)),
            ]);
            item.extend((0..extra).map(|i| (format!("a{i}"), s("x"))));
            for attr in ["PK", "SK", "Type", "odd", "none", "a0"] {
                let walked = rest_key_text(&item, attr).map_err(|e| e.to_string());
                let looked_up = key_text(&item, attr).map_err(|e| e.to_string());
                assert_eq!(walked, looked_up, "{attr} of an item of {} attributes", item.len());
            }
            assert_eq!(rest_key_text(&item, "PK").ok(), Some("CHATROOM#1"));
            assert_eq!(rest_key_text(&item, "SK").ok(), Some("42"));
            assert!(rest_key_text(&item, "odd").is_err());
        }
    }

    /// Key fields read as they are; absent ones from the key, parsed only then (and once); an
    /// unparsable key or a failed read gives no value (their errors are kept by the reader).
    #[test]
    fn absent_key_fields_are_filled_from_the_key_only_when_needed() {
        let parsed = std::cell::Cell::new(0);
        let key = || {
            parsed.set(parsed.get() + 1);
            Some(("k1".to_owned(), 2u64, "k3".to_owned()))
        };
        let all = (Some(Some("a".to_owned())), Some(Some(5u64)), Some(Some("c".to_owned())));
        assert_eq!(all.fill(key), (Some("a".to_owned()), Some(5), Some("c".to_owned())));
        assert_eq!(parsed.get(), 0, "every field present: the key is not parsed");
        let some_absent = (Some(None), Some(Some(5u64)), Some(None::<String>));
        assert_eq!(some_absent.fill(key), (Some("k1".to_owned()), Some(5), Some("k3".to_owned())));
        assert_eq!(parsed.get(), 1);
        let unparsable = (Some(None::<String>), Some(Some(5u64)));
        assert_eq!(unparsable.fill(|| None), (None, None));
        let failed = (None::<Option<String>>, Some(None::<u64>));
        assert_eq!(failed.fill(|| -> Option<(String, u64)> { panic!("not parsed after a failed read") }), (None, None));
        let one = (Some(None::<u32>),);
        assert_eq!(one.fill(|| Some((7,))), (Some(7),));
    }
}
