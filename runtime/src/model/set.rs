//! String and number sets (`SS`, `NS`).
//!
//! Reading needs nothing: a `Vec`, `BTreeSet` or `HashSet` field (of strings, or of numbers for
//! `NS`) reads an `SS`/`NS` attribute as it reads a list (`L`). Writing one as a set takes a
//! module of this one on the field, as for the time formats (serde's `with` habit):
//!
//! - `#[entity(with = "dynamo_entity::sets::string_set")]`: a field of strings (`Vec<String>`,
//!   `BTreeSet<String>`, `HashSet<String>`, or anything serialized as a sequence of strings) is
//!   written as a string set (`SS`);
//! - `#[entity(with = "dynamo_entity::sets::number_set")]`: a field of numbers as a number set
//!   (`NS`).
//!
//! DynamoDB stores no empty set and no set with a value twice, so an empty field, or a `Vec`
//! holding one value twice, cannot be written: [`Error::Validation`](crate::Error::Validation)
//! naming the entity and the attribute, before anything is sent (`to_item`, puts, updates,
//! conditions). Make the field an `Option` and write `None` for "no set" (the attribute is
//! omitted, and an absent attribute reads as `None`), or give it `#[entity(default)]` so that an
//! item without the attribute reads as an empty set. Reading accepts a set or a list (items that
//! other code wrote either way); set order is DynamoDB's, not the order written.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::codec::{holds_unknown, type_error, unknown_value};

/// A field's value, serialized as a string set.
struct Strings<'a, T>(&'a T);

impl<T: serde::Serialize> serde::Serialize for Strings<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_dynamo::string_set::serialize(self.0, serializer)
    }
}

/// A field's value, serialized as a number set.
struct Numbers<'a, T>(&'a T);

impl<T: serde::Serialize> serde::Serialize for Numbers<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_dynamo::number_set::serialize(self.0, serializer)
    }
}

/// A set as DynamoDB stores it: not empty, no value twice.
fn checked(value: AttributeValue, kind: &str) -> Result<AttributeValue, String> {
    let values = match &value {
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => v,
        other => return Err(type_error(kind, other)),
    };
    if values.is_empty() {
        return Err(format!(
            "an empty {kind}: DynamoDB stores no empty set; make the field an `Option` and write `None` \
             (the attribute is omitted), or give it `#[entity(default)]`"
        ));
    }
    let mut seen = std::collections::HashSet::with_capacity(values.len());
    if let Some(twice) = values.iter().find(|v| !seen.insert(v.as_str())) {
        return Err(format!("a {kind} holding {twice} twice: DynamoDB refuses a set with duplicate values"));
    }
    Ok(value)
}

/// Reads a set (or a list, as other code may have written it) into the field's type.
fn read<T: serde::de::DeserializeOwned>(value: AttributeValue) -> Result<T, String> {
    if holds_unknown(&value) {
        return Err(unknown_value());
    }
    serde_dynamo::from_attribute_value(value).map_err(|e| e.to_string())
}

/// `#[entity(with = "dynamo_entity::sets::string_set")]`: the field (a sequence of strings) as
/// a string set (`SS`). See [the module](self).
pub mod string_set {
    use super::*;

    /// The field's strings as a string set; an empty set or one value twice is an error.
    pub fn encode<T: serde::Serialize>(value: &T) -> Result<AttributeValue, String> {
        let set = serde_dynamo::to_attribute_value::<_, AttributeValue>(Strings(value)).map_err(|e| e.to_string())?;
        checked(set, "a string set (SS)")
    }

    /// A string set, or a list of strings, as the field's type.
    pub fn decode<T: serde::de::DeserializeOwned>(value: AttributeValue) -> Result<T, String> {
        read(value)
    }
}

/// `#[entity(with = "dynamo_entity::sets::number_set")]`: the field (a sequence of numbers) as
/// a number set (`NS`). See [the module](self).
pub mod number_set {
    use super::*;

    /// The field's numbers as a number set; an empty set or one value twice is an error.
    pub fn encode<T: serde::Serialize>(value: &T) -> Result<AttributeValue, String> {
        let set = serde_dynamo::to_attribute_value::<_, AttributeValue>(Numbers(value)).map_err(|e| e.to_string())?;
        checked(set, "a number set (NS)")
    }

    /// A number set, or a list of numbers, as the field's type.
    pub fn decode<T: serde::de::DeserializeOwned>(value: AttributeValue) -> Result<T, String> {
        read(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashSet};

    #[test]
    fn sets_are_written_and_read() {
        let tags: BTreeSet<String> = ["b".to_owned(), "a".to_owned()].into();
        let ss = string_set::encode(&tags).unwrap();
        assert_eq!(ss, AttributeValue::Ss(vec!["a".into(), "b".into()]));
        assert_eq!(string_set::decode::<BTreeSet<String>>(ss.clone()).unwrap(), tags);
        assert_eq!(string_set::decode::<Vec<String>>(ss).unwrap(), ["a", "b"]);
        let ns = number_set::encode(&vec![3u32, 1]).unwrap();
        assert_eq!(ns, AttributeValue::Ns(vec!["3".into(), "1".into()]));
        assert_eq!(number_set::decode::<HashSet<u32>>(ns).unwrap(), HashSet::from([1, 3]));
        let list = AttributeValue::L(vec![AttributeValue::S("x".into())]);
        assert_eq!(string_set::decode::<Vec<String>>(list).unwrap(), ["x"]);
    }

    #[test]
    fn empty_sets_and_duplicates_are_refused() {
        for bad in [string_set::encode(&Vec::<String>::new()), string_set::encode(&vec!["a", "a"])] {
            assert!(bad.is_err(), "{bad:?}");
        }
        assert!(number_set::encode(&BTreeSet::<u8>::new()).unwrap_err().contains("empty"));
        assert!(number_set::encode(&vec!["x"]).is_err());
    }
}
