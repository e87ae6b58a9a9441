//! Key fields read back from an index's key texts: a view read through an index that does not
//! project a key field's own attribute gets it from the index's keys. The walk over each key's
//! template is written once here; generated code (`HasFields::__restore_key_fields`) describes
//! the index's key texts (their literals, shards and fields) and gives, per field, how its
//! component is read ([`read_plain`], [`read_padded`], [`read_raw`]) and encoded (the item
//! codec's encoder).

use aws_sdk_dynamodb::types::AttributeValue;

use super::{FieldEncoder, KeyField, PaddedKeyField, RawKeyField, key_text, restore_from};
use crate::error::{Error, KeyError};
use crate::key::KeyReader;
use crate::size::Item;

/// A field's component read from a key text, as its attribute's value (or the encoder's
/// complaint).
pub type ReadValue = Result<Option<AttributeValue>, String>;

/// How one field's component is read from a key text and encoded as the field's attribute.
/// Called by generated code.
pub trait ReadField {
    /// Reads the component of `field` (`width`: its zero-padded width, if any) and encodes it.
    fn read_value(&self, reader: &mut KeyReader<'_>, field: &'static str, width: usize) -> Result<ReadValue, KeyError>;
}

/// Reads a component as a `T`: [`read_plain`], [`read_padded`] or [`read_raw`].
pub type ReadComponent<T> = fn(&mut KeyReader<'_>, &'static str, usize) -> Result<T, KeyError>;

/// A field's [`ReadField`]: its reader and the item codec's encoder of its type.
pub struct FieldRead<T> {
    /// Reads the component.
    pub read: ReadComponent<T>,
    /// Encodes it as the item codec does.
    pub encode: FieldEncoder<T>,
}

impl<T> core::fmt::Debug for FieldRead<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FieldRead")
    }
}

impl<T> ReadField for FieldRead<T> {
    #[inline]
    fn read_value(&self, reader: &mut KeyReader<'_>, field: &'static str, width: usize) -> Result<ReadValue, KeyError> {
        let value = (self.read)(reader, field, width)?;
        Ok((self.encode)(&value))
    }
}

/// Reads a `<field>` component.
#[inline]
pub fn read_plain<T: KeyField>(reader: &mut KeyReader<'_>, field: &'static str, _: usize) -> Result<T, KeyError> {
    T::__read(reader, field)
}

/// Reads a `<field:N>` component.
#[inline]
pub fn read_padded<T: PaddedKeyField>(
    reader: &mut KeyReader<'_>,
    field: &'static str,
    width: usize,
) -> Result<T, KeyError> {
    T::__read_padded(reader, field, width)
}

/// Reads a `<field:raw>` component (the rest of the key).
#[inline]
pub fn read_raw<T: RawKeyField>(reader: &mut KeyReader<'_>, field: &'static str, _: usize) -> Result<T, KeyError> {
    T::__read_raw(reader, field)
}

/// One part of a key template, as [`restore_index`] reads it.
pub enum KeyStep<'a> {
    /// Text that must be there as it is.
    Literal(&'static str),
    /// A shard number (`<shard>`, see [`KeyText::shards`]).
    Shard,
    /// A field's component.
    Field {
        /// The field's name (for errors).
        field: &'static str,
        /// The field's attribute.
        attr: &'static str,
        /// Its zero-padded width (0: none).
        width: usize,
        /// `<field>.<shard>`: the separator; the field is read from the text before it, the
        /// shard after it.
        joined: Option<u8>,
        /// How it is read and encoded.
        read: &'a dyn ReadField,
    },
}

impl core::fmt::Debug for KeyStep<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            KeyStep::Literal(literal) => f.debug_tuple("Literal").field(literal).finish(),
            KeyStep::Shard => f.write_str("Shard"),
            KeyStep::Field { field, attr, width, joined, .. } => f
                .debug_struct("Field")
                .field("field", field)
                .field("attr", attr)
                .field("width", width)
                .field("joined", joined)
                .finish_non_exhaustive(),
        }
    }
}

/// An index key written from a template: its attribute, its template and the template's parts.
#[derive(Debug)]
pub struct KeyText<'a> {
    /// The key attribute.
    pub attr: &'static str,
    /// The template, as written (for errors).
    pub template: &'static str,
    /// The shard count of its `<shard>`, and whether it is written without leading zeros
    /// (`(0, false)` without one).
    pub shards: (u16, bool),
    /// Its parts, in order.
    pub steps: &'a [KeyStep<'a>],
}

/// Reads the key fields `own` (their attributes) back from an index's key texts `keys`, where
/// the item has every key attribute of the index (`key_attrs`; a sparse index's may be absent)
/// and lacks one of `own`'s attributes or holds one an earlier index's keys put (`restored`: the
/// two must agree, see [`restore_from`]). `from` names the key attributes read, for errors. A
/// field that appears in two of the keys (or twice in one) must give the same value in both.
/// Called by generated code.
#[doc(hidden)]
pub fn restore_index(
    item: &mut Item,
    entity: &'static str,
    key_attrs: &[&'static str],
    own: &[&'static str],
    from: &'static str,
    keys: &[KeyText<'_>],
    restored: &mut Vec<(&'static str, &'static str)>,
) -> Result<(), Error> {
    if !key_attrs.iter().all(|a| item.contains_key(*a))
        || !own.iter().any(|a| !item.contains_key(*a) || restored.iter().any(|(r, _)| r == a))
    {
        return Ok(());
    }
    let mut values: Vec<(&'static str, ReadValue)> = Vec::new();
    for key in keys {
        let text = key_text(item, key.attr)?;
        let mut reader = KeyReader::new(key.attr, key.template, text);
        let (count, unpadded) = key.shards;
        for step in key.steps {
            match step {
                KeyStep::Literal(literal) => reader.literal(literal)?,
                KeyStep::Shard => {
                    reader.shard_number(count, unpadded)?;
                }
                KeyStep::Field { field, attr, width, joined, read } => {
                    let value = match joined {
                        Some(sep) => {
                            let mut joined = reader.joined_shard(*sep, count, unpadded)?;
                            let value = read.read_value(&mut joined, field, *width)?;
                            joined.end()?;
                            value
                        }
                        None => read.read_value(&mut reader, field, *width)?,
                    };
                    match values.iter().find(|(a, _)| a == attr) {
                        Some((_, earlier)) if *earlier != value => {
                            return Err(KeyError::Mismatch {
                                key: key.attr,
                                template: key.template,
                                text: text.to_owned(),
                                reason: format!("`{field}` differs from its value in the other key"),
                            }
                            .into());
                        }
                        Some(_) => {}
                        None => values.push((attr, value)),
                    }
                }
            }
        }
        reader.end()?;
    }
    for attr in own {
        if let Some(at) = values.iter().position(|(a, _)| a == attr) {
            let (_, value) = values.swap_remove(at);
            restore_from(item, entity, attr, value, from, restored)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    const NAME: FieldRead<String> =
        FieldRead { read: read_plain::<String>, encode: |v| Ok(Some(AttributeValue::S(v.clone()))) };
    const TS: FieldRead<u64> =
        FieldRead { read: read_padded::<u64>, encode: |v| Ok(Some(AttributeValue::N(v.to_string()))) };

    /// `GSI1PK = USER#<name>.<shard>` (4 shards), `GSI1SK = AT#<ts:5>#<name>`.
    fn restore(item: &mut Item, restored: &mut Vec<(&'static str, &'static str)>) -> Result<(), Error> {
        let name = KeyStep::Field { field: "name", attr: "name", width: 0, joined: None, read: &NAME };
        let keys = [
            KeyText {
                attr: "GSI1PK",
                template: "USER#<name>.<shard>",
                shards: (4, false),
                steps: &[
                    KeyStep::Literal("USER#"),
                    KeyStep::Field { field: "name", attr: "name", width: 0, joined: Some(b'.'), read: &NAME },
                ],
            },
            KeyText {
                attr: "GSI1SK",
                template: "AT#<ts:5>#<name>",
                shards: (0, false),
                steps: &[
                    KeyStep::Literal("AT#"),
                    KeyStep::Field { field: "ts", attr: "ts", width: 5, joined: None, read: &TS },
                    KeyStep::Literal("#"),
                    name,
                ],
            },
        ];
        restore_index(item, "User", &["GSI1PK", "GSI1SK"], &["name", "ts"], "`GSI1PK` and `GSI1SK`", &keys, restored)
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn the_fields_are_read_back_from_the_index_keys() {
        let mut it = item(&[("GSI1PK", s("USER#ana.2")), ("GSI1SK", s("AT#00042#ana"))]);
        let mut restored = Vec::new();
        restore(&mut it, &mut restored).unwrap();
        assert_eq!(it.get("name"), Some(&s("ana")));
        assert_eq!(it.get("ts"), Some(&AttributeValue::N("42".into())));
        assert_eq!(restored, [("name", "`GSI1PK` and `GSI1SK`"), ("ts", "`GSI1PK` and `GSI1SK`")]);
    }

    #[test]
    fn nothing_is_read_without_every_key_or_with_every_field() {
        let mut sparse = item(&[("GSI1PK", s("USER#ana.2"))]);
        restore(&mut sparse, &mut Vec::new()).unwrap();
        assert_eq!(sparse.len(), 1);
        // Both attributes there: the keys are not even read (a bad key text is no error).
        let mut whole = item(&[("GSI1PK", s("bad")), ("GSI1SK", s("bad")), ("name", s("ana")), ("ts", s("1"))]);
        restore(&mut whole, &mut Vec::new()).unwrap();
        assert_eq!(whole.get("ts"), Some(&s("1")));
    }

    #[test]
    fn a_field_in_two_keys_must_agree() {
        let mut it = item(&[("GSI1PK", s("USER#ana.2")), ("GSI1SK", s("AT#00042#bob"))]);
        let e = restore(&mut it, &mut Vec::new()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("`name` differs from its value in the other key"), "{text}");
        assert!(text.contains("AT#00042#bob"), "{text}");
        assert!(!it.contains_key("name") && !it.contains_key("ts"), "nothing is put on an error");
    }

    #[test]
    fn a_bad_key_text_is_an_error_naming_its_key() {
        for (pk, sk, says) in [
            ("USER#ana.9", "AT#00042#ana", "GSI1PK"),
            ("USER#ana.2", "AT#42#ana", "GSI1SK"),
            ("USER#ana.2", "AT#00042#ana#more", "GSI1SK"),
            ("MEMBER#ana.2", "AT#00042#ana", "GSI1PK"),
        ] {
            let mut it = item(&[("GSI1PK", s(pk)), ("GSI1SK", s(sk))]);
            let e = restore(&mut it, &mut Vec::new()).unwrap_err();
            assert!(e.to_string().contains(says), "{pk} {sk}: {e}");
        }
    }

    #[test]
    fn a_field_another_index_put_must_agree() {
        let mut it =
            item(&[("GSI1PK", s("USER#ana.2")), ("GSI1SK", s("AT#00042#ana")), ("ts", AttributeValue::N("7".into()))]);
        let mut restored = vec![("ts", "`GSI2PK`")];
        let e = restore(&mut it, &mut restored).unwrap_err();
        assert!(e.to_string().contains("the item's `GSI2PK` give `7`, but its `GSI1PK` and `GSI1SK` give `42`"), "{e}");
    }
}
