//! Binding a cursor to the query it continues: the key attributes a position holds, checked
//! against the query's table, index, entity and partition, and a hash of the query's sort-key
//! condition and filter ([`query_hash`]): a cursor is valid only for the query that made it
//! (its limit aside), whether it holds one partition's position or every shard's.

use std::sync::Arc;

use super::{Query, QueryRequest};
use crate::cursor::bind::{attr_type, cursor_attrs, query_key_attrs};
use crate::cursor::encode::Position;
use crate::cursor::seal::invalid;
use crate::cursor::{Cursor, CursorSecret};
use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;
use crate::model::entity::EntitySchema;

/// What a cursor is bound to beyond its entity, index, partition and direction: the query's
/// key condition and filter, as a hash of their expressions, names and values (the partition
/// key's value left out: a merged query's shards share the hash). The limit is not part of it:
/// a page of another size may resume.
pub(crate) fn query_hash(request: &QueryRequest) -> u64 {
    let mut names: Vec<_> = request.expression_attribute_names.iter().collect();
    names.sort();
    let mut values: Vec<_> = request
        .expression_attribute_values
        .iter()
        .filter(|(k, _)| *k != ":pk")
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    values.sort();
    let text = format!(
        "{}\u{0}{}\u{0}{names:?}\u{0}{values:?}",
        request.key_condition_expression,
        request.filter_expression.as_deref().unwrap_or("")
    );
    crate::cursor::seal::checksum(text.as_bytes())
}

/// The cursor of a query of `entity` (an entity or a collection) that resumes `request` right
/// after `item` (an item, or a `LastEvaluatedKey`); `None` if it lacks a key attribute as a
/// string (it cannot be resumed after).
pub(crate) fn after_item(
    secret: Option<&Arc<CursorSecret>>,
    entity: &str,
    schema: &EntitySchema,
    request: &QueryRequest,
    item: &Item,
) -> Result<Option<Cursor>, Error> {
    let attrs = cursor_attrs(schema, request.index_name);
    let mut key = Vec::with_capacity(attrs.len());
    for a in attrs {
        match item.get(a).and_then(|v| attr_type(schema, a).text_of(v)) {
            Some(text) => key.push((a.to_owned(), text)),
            None => return Ok(None),
        }
    }
    let position = Position {
        entity: entity.to_owned(),
        index: request.index_name.unwrap_or("").to_owned(),
        partition: request.partition_key.clone(),
        descending: !request.scan_index_forward,
        query: query_hash(request),
        key,
    };
    position.seal(secret.map(|s| &**s)).map(Some)
}

/// Checks a cursor against the query it is used with; the `ExclusiveStartKey` it stands for.
pub(crate) fn check<T: Readable>(
    secret: Option<&Arc<CursorSecret>>,
    query: &Query<T>,
    cursor: &Cursor,
) -> Result<Item, Error> {
    let position = cursor.open(secret.map(|s| &**s))?;
    let schema = T::schema(query.index).ok_or_else(|| invalid("no member has this index"))?;
    check_position(T::NAME, schema, query, &position)?;
    position
        .key
        .into_iter()
        .map(|(k, v)| {
            let value = attr_type(schema, &k).value(&v).ok_or_else(|| invalid("a key value of the wrong type"))?;
            Ok((k, value))
        })
        .collect()
}

pub(crate) fn check_position<T: Readable>(
    entity: &str,
    schema: &EntitySchema,
    query: &Query<T>,
    position: &Position,
) -> Result<(), Error> {
    let index = query.index;
    let wrong = |what: &str| Err(invalid(&format!("this cursor belongs to another {what}")));
    if position.entity != entity {
        return wrong("entity");
    }
    if position.index != index.unwrap_or("") {
        return wrong("index");
    }
    if position.partition != query.pk {
        return wrong("partition");
    }
    if position.descending != query.descending {
        return wrong("direction (ascending or descending)");
    }
    if position.query != query_hash(&query.request()?) {
        return wrong("query (its sort-key condition or filter differs)");
    }
    let attrs = cursor_attrs(schema, index);
    if !position.key.iter().map(|(k, _)| k.as_str()).eq(attrs.iter().copied()) {
        return wrong("table or index (its key attributes differ)");
    }
    let value = |attr: &str| position.key.iter().find(|(k, _)| k == attr).map(|(_, v)| v.as_str());
    let (pk_attr, sk_attr) = query_key_attrs(schema, index);
    // A multi-attribute index's condition is on the sort-key attribute the query reached (the
    // ones before it are equalities, in the query hash).
    let multi = index.and_then(|n| schema.index(n)).is_some_and(|i| i.multi.is_some());
    let sk_attr = if multi { query.sk_attr } else { sk_attr };
    if value(pk_attr) != Some(query.pk.as_str()) {
        return wrong("partition");
    }
    if let Some(sk_attr) = sk_attr
        && !query.sort.matches_as(value(sk_attr).unwrap_or(""), query.key_types.1)
    {
        return Err(invalid("the cursor's item is outside this query's sort-key condition"));
    }
    Ok(())
}
