//! The key attributes a cursor's position holds, of a table or an index, and their types. What
//! binds a cursor to the query it continues is `ops::query::bind`'s.

use crate::key::attr::AttributeType;
use crate::model::entity::EntitySchema;
use crate::model::entity::IndexKind;

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

/// The partition-key and sort-key attributes a query on `index` reads.
pub(crate) fn query_key_attrs(schema: &EntitySchema, index: Option<&str>) -> (&'static str, Option<&'static str>) {
    match index.and_then(|n| schema.index(n)) {
        Some(i) if i.kind == IndexKind::Global => (i.pk.map_or(schema.pk.attr, |k| k.attr), i.sk.map(|k| k.attr)),
        Some(i) => (schema.pk.attr, i.sk.map(|k| k.attr)),
        None => (schema.pk.attr, schema.sk.map(|k| k.attr)),
    }
}
