//! How values become key text: the [`KeyPart`] trait, its implementations, and the
//! reader that splits a composite key back into its components.
//!
//! # The key-text contract
//!
//! Every implementation writes text made only of bytes greater than `$` (0x24): no control
//! characters, no space, no `!`, `"`, `#` or `$`. Templates join components with literals that
//! start with `#`, so
//! - a component never contains the separator, and parsing is exact (`parse(format(x)) == x`);
//! - the separator sorts below every byte of a component, so string order of whole keys is
//!   the order of their components, and sort-key range conditions select exactly the values
//!   they mean.
//!
//! Strings keep that contract by escaping every byte from 0x00 to 0x25 (`%`) as `%XX`
//! (upper-case hex): `#` becomes `%23`, `%` becomes `%25`, a space `%20`. This escaping is
//! order-preserving: escaped strings compare as the original strings do.

/// The body of `KeyPart` for this crate's implementations: their text keeps the key-text
/// contract by construction, so it goes straight into the key.
macro_rules! trusted_key_part {
    () => {
        #[inline]
        fn __write_part(&self, writer: crate::key::KeyWriter<'_>) -> Result<(), crate::key::KeyPartError> {
            self.write_key(writer.trusted())
        }
    };
}

/// [`trusted_key_part`] for `PaddedKeyPart`.
macro_rules! trusted_padded_key_part {
    () => {
        #[inline]
        fn __write_part_padded(
            &self,
            width: usize,
            writer: crate::key::KeyWriter<'_>,
        ) -> Result<(), crate::key::KeyPartError> {
            self.write_key_padded(width, writer.trusted())
        }
    };
}

pub(crate) mod attr;
mod builder;
mod int;
pub(crate) mod level;
pub(crate) mod misc;
mod reader;
mod scan;
pub(crate) mod shard;
mod string;
pub(crate) mod time;
mod writer;

/// Why a value could not be written as, or read from, key text (defined with the errors).
pub use crate::error::KeyPartError;
#[doc(hidden)]
pub use builder::KeyBuilder;
#[doc(hidden)]
pub use reader::KeyReader;
#[doc(hidden)]
pub use shard::{ShardFn, fnv1a_shard, random_shard, shard_of_builder, shard_with};
#[doc(hidden)]
pub use writer::{KeyWord, KeyWriter};

/// The smallest byte a component's key text may contain (`%`).
pub const MIN_KEY_TEXT_BYTE: u8 = b'%';

/// A type whose values can be written into a DynamoDB key and read back exactly.
///
/// Implementations must write only bytes of at least [`MIN_KEY_TEXT_BYTE`] and parse only
/// the canonical text they write (`format(parse(t)) == t` whenever `parse(t)` succeeds).
/// For ordered types, the order of the texts must be the order of the values.
///
/// The text of an implementation outside this crate is written into a buffer of its own and
/// checked before it joins the key: whatever `write_key` does to the buffer it is given, a key
/// gets either its text, if it keeps the contract, or [`KeyPartError::Forbidden`]. (The
/// implementations of this crate and of `#[derive(KeyPart)]` write straight into the key.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written into a DynamoDB key",
    label = "used in a key template, so it must implement `KeyPart`",
    note = "key components can be `String`, integers, `bool`, `SystemTime`, `uuid::Uuid`/`ulid::Ulid`/chrono/time/jiff timestamps (with their features), or a type with `#[derive(KeyPart)]`"
)]
pub trait KeyPart: Sized + Clone + core::fmt::Debug + PartialEq {
    /// Appends the key text of `self` to `out`.
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError>;

    /// Parses the whole of `text`, as written by [`KeyPart::write_key`].
    fn parse_key(text: &str) -> Result<Self, KeyPartError>;

    /// How a key writes this value: not an API. The default writes [`KeyPart::write_key`]'s
    /// text into a scratch buffer and appends it only if it keeps the key-text contract. Only
    /// this crate can write unchecked text (`KeyWriter`'s other ways to write are a checked
    /// word or another `KeyPart`'s own way), so overriding this cannot skip the check.
    #[doc(hidden)]
    #[inline]
    fn __write_part(&self, writer: KeyWriter<'_>) -> Result<(), KeyPartError> {
        writer.checked(|out| self.write_key(out))
    }

    /// How a key reads a component that has no byte below `&` (so no escape): not an API. The
    /// default is [`KeyPart::parse_key`]; `String` skips looking for escapes. The reader decides
    /// where the component ends, whatever this does.
    #[doc(hidden)]
    #[inline]
    fn __parse_plain(text: &str) -> Result<Self, KeyPartError> {
        Self::parse_key(text)
    }
}

/// A [`KeyPart`] that can be zero-padded to a fixed width with `<field:N>`: the integers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take a width: `<field:N>` zero-pads integers only",
    label = "a width is given for this field in a key template",
    note = "remove `:N` from the placeholder, or use an integer type"
)]
pub trait PaddedKeyPart: KeyPart {
    /// Appends `self` zero-padded to exactly `width` digits; a value with more digits (or a
    /// negative one) is an error, never a longer key. Width 0 (`<field:unpadded>`) is the
    /// shortest decimal form, no padding.
    fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError>;

    /// Parses exactly `width` digits; for width 0, the shortest decimal form (no leading zero).
    fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError>;

    /// How a key writes this value padded: not an API (see `KeyPart::__write_part`).
    #[doc(hidden)]
    #[inline]
    fn __write_part_padded(&self, width: usize, writer: KeyWriter<'_>) -> Result<(), KeyPartError> {
        writer.checked(|out| self.write_key_padded(width, out))
    }
}

/// Writes `value` at the end of `out`, checking the text of implementations outside this
/// crate. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn write_part<T: KeyPart>(value: &T, out: &mut String) -> Result<(), KeyPartError> {
    let start = out.len();
    let result = value.__write_part(KeyWriter::new(out));
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Writes `value` zero-padded to `width` at the end of `out`. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn write_part_padded<T: PaddedKeyPart>(value: &T, width: usize, out: &mut String) -> Result<(), KeyPartError> {
    let start = out.len();
    let result = value.__write_part_padded(width, KeyWriter::new(out));
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Formats a single value as its key text (for tests, logs and hand-built keys).
pub fn to_key_text<T: KeyPart>(value: &T) -> Result<String, KeyPartError> {
    let mut out = String::new();
    write_part(value, &mut out)?;
    Ok(out)
}

/// The key text of one component, for a sort-key condition. Called by generated code.
#[doc(hidden)]
pub fn part_text<T: KeyPart>(
    value: &T,
    key: &'static str,
    field: &'static str,
) -> Result<String, crate::error::KeyError> {
    let mut out = String::new();
    write_part(value, &mut out).map_err(|source| crate::error::KeyError::Format { key, field, source })?;
    Ok(out)
}

/// The zero-padded key text of one component. Called by generated code.
#[doc(hidden)]
pub fn part_text_padded<T: PaddedKeyPart>(
    value: &T,
    width: usize,
    key: &'static str,
    field: &'static str,
) -> Result<String, crate::error::KeyError> {
    let mut out = String::new();
    write_part_padded(value, width, &mut out).map_err(|source| crate::error::KeyError::Format {
        key,
        field,
        source,
    })?;
    Ok(out)
}

/// `Clone` of a key component, bounded on [`KeyPart`] so that a type that is not one is
/// reported as such. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn clone_part<T: KeyPart>(value: &T) -> T {
    value.clone()
}

/// `PartialEq` of key components (see [`clone_part`]).
#[doc(hidden)]
#[inline]
pub fn eq_part<T: KeyPart>(a: &T, b: &T) -> bool {
    a == b
}

/// `Debug` of a key component (see [`clone_part`]).
#[doc(hidden)]
#[inline]
pub fn debug_part<T: KeyPart>(value: &T) -> &dyn core::fmt::Debug {
    value
}
