//! Conditions of single-item writes, shared by `Table` and transactions: "create must not
//! overwrite", and optimistic locking on `#[version]` fields.

use std::collections::HashMap;

use crate::{AttributeValue, Entity, Error, Item};

/// How a put treats an existing item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PutMode {
    /// Replace it (but see the version rule).
    Put,
    /// Fail if it exists.
    Create,
}

/// A put ready to send: the item and its condition.
#[derive(Debug)]
pub(crate) struct PutParts {
    pub item: Item,
    pub condition: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
    /// A failed condition means a version conflict (else: the item exists).
    pub versioned: bool,
}

/// Reads a version Number of an item.
pub(crate) fn version_of(entity: &'static str, attr: &'static str, item: &Item) -> Result<u64, Error> {
    match item.get(attr) {
        None => Ok(0),
        Some(AttributeValue::N(n)) => n
            .parse::<u64>()
            .map_err(|_| Error::decode(entity, attr, format!("a version must be a non-negative integer, found {n}"))),
        Some(_) => Err(Error::decode(entity, attr, "a version must be a number (N)")),
    }
}

/// The item of `entity` and the condition of writing it.
///
/// - `Create`: `attribute_not_exists(PK)`.
/// - A `#[version]` entity: the stored version must equal the entity's (no item when it is 0),
///   and the item is written with version + 1.
pub(crate) fn put_parts<E: Entity>(entity: &E, mode: PutMode) -> Result<PutParts, Error> {
    let schema = &E::SCHEMA;
    let mut item = entity.to_item()?;
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    names.insert("#pk".to_owned(), schema.pk.attr.to_owned());
    let mut condition = match mode {
        PutMode::Create => Some("attribute_not_exists(#pk)".to_owned()),
        PutMode::Put => None,
    };
    let mut versioned = false;
    if let Some(attr) = schema.version_attr {
        let current = version_of(schema.entity_type, attr, &item)?;
        let next = current
            .checked_add(1)
            .ok_or_else(|| Error::Validation(format!("version {current} of {} cannot grow", schema.entity_type)))?;
        item.insert(attr.to_owned(), AttributeValue::N(next.to_string()));
        if mode == PutMode::Put {
            versioned = true;
            condition = Some(if current == 0 {
                "attribute_not_exists(#pk)".to_owned()
            } else {
                names.remove("#pk");
                names.insert("#ver".to_owned(), attr.to_owned());
                values.insert(":ver".to_owned(), AttributeValue::N(current.to_string()));
                "#ver = :ver".to_owned()
            });
        }
    }
    crate::size::check_item(schema.entity_type, &item)?;
    let (names, values) = match condition {
        Some(_) => (Some(names), (!values.is_empty()).then_some(values)),
        None => (None, None),
    };
    Ok(PutParts { item, condition, names, values, versioned })
}
