//! The key attributes a cursor's position holds, of a table or an index, and their types. What
//! binds a cursor to the query it continues is `ops::query::bind`'s.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::key::attr::AttributeType;
use crate::model::entity::EntitySchema;
use crate::model::entity::IndexKind;
use crate::size::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

/// The key attributes a cursor of a query on `index` holds: the table's keys and the index's.
pub(crate) fn cursor_attrs(schema: &EntitySchema, index: Option<&str>) -> Vec<&'static str> {
    let mut attrs = vec![schema.pk.attr];
    attrs.extend(schema.sk.map(|k| k.attr));
    if let Some(i) = index.and_then(|n| schema.index(n)) {
        attrs.extend(i.partition_keys().iter().chain(i.sort_keys()).map(|k| k.attr));
    }
    attrs.sort_unstable();
    attrs.dedup();
    attrs
}

/// The type of key attribute `attr` (S unless an index keys on a field's own attribute).
pub(crate) fn attr_type(schema: &EntitySchema, attr: &str) -> AttributeType {
    schema
        .indexes
        .iter()
        .flat_map(|i| i.partition_keys().iter().chain(i.sort_keys()))
        .chain(std::iter::once(&schema.pk))
        .chain(schema.sk.iter())
        .find(|k| k.attr == attr)
        .map_or(AttributeType::S, |k| k.ty)
}

/// The value of key attribute `attr` of the table or of `index` that a cursor's position holds
/// as `text`, as the `ExclusiveStartKey` sends it: [`Error::InvalidCursor`] unless it is a value
/// DynamoDB takes for that attribute (not empty; a number it can store, for a number attribute;
/// hex, for a binary one; within the size limit of the keys it is, of the table or the index),
/// so that a forged cursor is refused here rather than by DynamoDB.
pub(crate) fn start_value(
    schema: &EntitySchema,
    index: Option<&str>,
    attr: &str,
    text: &str,
) -> Result<AttributeValue, Error> {
    let invalid = |why: &str| crate::cursor::seal::invalid(&format!("key attribute `{attr}`: {why}"));
    let ty = attr_type(schema, attr);
    // A sort key of the table, or of the index read (whose items are all within its limits).
    let index_sorts = index.and_then(|n| schema.index(n)).map(|i| i.sort_keys()).unwrap_or_default();
    let sort = schema.sk.iter().chain(index_sorts).any(|k| k.attr == attr);
    let max = if sort { MAX_SORT_KEY_BYTES } else { MAX_PARTITION_KEY_BYTES };
    if text.is_empty() {
        return Err(invalid("an empty key value"));
    }
    if ty == AttributeType::N
        && let Some(why) = crate::size::number_problem(text)
    {
        return Err(invalid(&why));
    }
    let value = ty.value(text).ok_or_else(|| invalid("a key value of the wrong type"))?;
    let bytes = if ty == AttributeType::B { text.len() / 2 } else { text.len() };
    if ty != AttributeType::N && bytes > max {
        return Err(invalid("longer than a key can be"));
    }
    Ok(value)
}

/// The partition-key and sort-key attributes a query on `index` reads.
pub(crate) fn query_key_attrs(schema: &EntitySchema, index: Option<&str>) -> (&'static str, Option<&'static str>) {
    match index.and_then(|n| schema.index(n)) {
        Some(i) if i.kind == IndexKind::Global => (i.pk.map_or(schema.pk.attr, |k| k.attr), i.sk.map(|k| k.attr)),
        Some(i) => (schema.pk.attr, i.sk.map(|k| k.attr)),
        None => (schema.pk.attr, schema.sk.map(|k| k.attr)),
    }
}
