//! `<field:raw>`: the last component of a key written as it is, without escaping, for tables
//! whose existing keys hold raw text (`USER#ana maria`, `EMAIL#sales#jp@example.com`).
//!
//! # Why every value round-trips
//!
//! A raw placeholder is allowed only as the last part of a template (checked by the derive), so
//! its component is "the rest of the key": the reader takes every byte after the literal text
//! before it, whatever those bytes are. The literal before it is matched exactly, and nothing
//! follows it, so `parse(format(v)) == v` for every string `v`, including ones holding `#`, `%`
//! or spaces, and the empty string. Only `String` can be raw: every other key type writes text
//! that never needs escaping, so it has nothing to opt out of (a compile error says so).
//!
//! # What is given up
//!
//! Escaping is what keeps a value from forging key structure. A raw value can hold `#`, so the
//! key `PROFILE#bob#ORDER#1` may be a raw `PROFILE#<name:raw>` with name `bob#ORDER#1`, or
//! another template's key: items are then told apart by the type attribute, which every item
//! this crate writes carries. An item without one (written by other code) whose key matches the
//! template is read as this entity's. Ranges over the raw component itself stay exact in string
//! order (`.name().gt(v)` is `>= v + "\0"`, the next string after `v`), but a range or a
//! `begins_with` can also meet other templates' keys sharing its prefix.

use crate::error::KeyError;
use crate::key::KeyReader;

/// A key component that can be written raw (`<field:raw>`): `String`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a raw key component: `<field:raw>` writes a `String` as it is",
    label = "used in a `<field:raw>` placeholder",
    note = "only strings are escaped, so only a `String` has escaping to opt out of; write `<field>` for other types"
)]
pub trait RawKeyField: Sized {
    /// Appends the text as it is.
    fn __write_raw(&self, out: &mut String);
    /// Reads the rest of the key.
    fn __read_raw(reader: &mut KeyReader<'_>, field: &'static str) -> Result<Self, KeyError>;
    /// Reads the literal `lit` before the component (none if empty) and the component, the rest
    /// of the key (see [`super::KeyField::__read_at`]).
    #[inline(always)]
    fn __read_raw_at(reader: &mut KeyReader<'_>, lit: &'static str, field: &'static str) -> Result<Self, KeyError> {
        if !lit.is_empty() {
            reader.literal(lit)?;
        }
        Self::__read_raw(reader, field)
    }
    /// The text of one component, for a sort-key condition.
    fn __text_raw(&self) -> Result<String, KeyError>;
    /// The least text after this one (`text + "\0"`), for an exact `gt` condition.
    fn __text_raw_successor(&self) -> Result<String, KeyError>;
    /// Appends the text as it is to a key being written.
    #[inline]
    fn __put_raw(&self, out: &mut crate::key::KeyBuilder) {
        self.__write_raw(out.buffer());
    }
    /// A sort-key condition value of a generated query level.
    fn __at(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText {
        crate::key::level::LevelText::__new(value.__text_raw(), level)
    }
    /// The least text after the value, for an exact `gt` condition of a generated query level.
    fn __at_successor(value: Self, level: &'static crate::key::level::LevelSpec) -> crate::key::level::LevelText {
        crate::key::level::LevelText::__new(value.__text_raw_successor(), level)
    }
}

impl RawKeyField for String {
    #[inline]
    fn __write_raw(&self, out: &mut String) {
        out.push_str(self);
    }

    #[inline]
    fn __read_raw(reader: &mut KeyReader<'_>, _field: &'static str) -> Result<Self, KeyError> {
        Ok(reader.rest().to_owned())
    }

    #[inline]
    fn __text_raw(&self) -> Result<String, KeyError> {
        Ok(self.clone())
    }

    #[inline]
    fn __text_raw_successor(&self) -> Result<String, KeyError> {
        let mut text = String::with_capacity(self.len() + 1);
        text.push_str(self);
        text.push('\0');
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::RawKeyField;
    use crate::key::KeyReader;

    #[test]
    fn the_rest_of_the_key_is_the_value() {
        for value in ["ana maria", "sales#jp@example.com", "%23", "", "#", "a#b#c d%"] {
            let mut key = String::from("USER#");
            value.to_owned().__write_raw(&mut key);
            let mut r = KeyReader::new("PK", "USER#<name:raw>", &key);
            r.literal("USER#").unwrap();
            assert_eq!(String::__read_raw(&mut r, "name").unwrap(), value);
            r.end().unwrap();
        }
    }
}
