//! Binding a cursor to the query it continues: the key attributes a position holds, checked
//! against the query's table, index, entity and partition, and a hash of the query's sort-key
//! condition and filter ([`query_hash`]): a cursor is valid only for the query that made it
//! (its limit aside), whether it holds one partition's position or every shard's.

use std::sync::Arc;

use super::{Query, QueryRequest};
use crate::cursor::bind::{attr_type, cursor_attrs, query_key_attrs};
use crate::cursor::encode::{Position, encode_position};
use crate::cursor::seal::{invalid, seal_body};
use crate::cursor::{Cursor, CursorSecret};
use crate::error::Error;
use crate::key::attr::AttributeType;
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
    // The text hashed is `condition \0 filter \0 {names:?} \0 {values:?}`, each value written
    // `{k}={v:?}` and the values sorted: cursors already given out hold its hash. It is hashed
    // as it is written (FNV-1a runs byte by byte), and the names and values that `{:?}` writes
    // as they are (printable ASCII, no quote or backslash; a string or number value) are
    // written without the formatting machinery, which cost a query of 50 about 9k
    // instructions; anything else goes through `{:?}` as before.
    let mut h = Fnv::new();
    h.str(&request.key_condition_expression);
    h.str("\u{0}");
    h.str(request.filter_expression.as_deref().unwrap_or(""));
    h.str("\u{0}");
    if names.iter().all(|(k, v)| debug_as_is(k) && debug_as_is(v)) {
        h.list(&names, |h, (k, v)| {
            h.str("(\"");
            h.str(k);
            h.str("\", \"");
            h.str(v);
            h.str("\")");
        });
    } else {
        h.fmt(format_args!("{names:?}"));
    }
    h.str("\u{0}");
    let mut values: Vec<String> = request
        .expression_attribute_values
        .iter()
        .filter(|(k, _)| *k != ":pk")
        .map(|(k, v)| value_text(k, v))
        .collect();
    values.sort();
    if values.iter().all(|v| v.bytes().all(|b| b != b'\\' && (0x20..0x7f).contains(&b))) {
        // `{:?}` of each escapes only the quotes that `S("..")` put in.
        h.list(&values, |h, v| {
            h.str("\"");
            for (j, part) in v.split('"').enumerate() {
                if j > 0 {
                    h.str("\\\"");
                }
                h.str(part);
            }
            h.str("\"");
        });
    } else {
        h.fmt(format_args!("{values:?}"));
    }
    h.0
}

/// `{k}={v:?}` of a query's value: a string or number value written by hand where `{:?}` writes
/// it as it is (`S("MESSAGE#")`).
fn value_text(k: &str, v: &aws_sdk_dynamodb::types::AttributeValue) -> String {
    use aws_sdk_dynamodb::types::AttributeValue;
    match v {
        AttributeValue::S(t) | AttributeValue::N(t) if debug_as_is(t) => {
            let tag = if matches!(v, AttributeValue::S(_)) { "=S(\"" } else { "=N(\"" };
            let mut out = String::with_capacity(k.len() + t.len() + 6);
            out.push_str(k);
            out.push_str(tag);
            out.push_str(t);
            out.push_str("\")");
            out
        }
        _ => format!("{k}={v:?}"),
    }
}

/// Whether `{:?}` writes `s` as it is between its quotes: printable ASCII without a quote,
/// an apostrophe or a backslash.
fn debug_as_is(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\'' | b'\\'))
}

/// FNV-1a, 64 bits, fed piece by piece ([`crate::key::shard::fnv1a64`] of the pieces joined).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(crate::key::shard::fnv1a64(b""))
    }

    #[inline]
    fn str(&mut self, s: &str) {
        self.0 = crate::key::shard::fnv1a64_more(self.0, s.as_bytes());
    }

    /// `items` as `{:?}` writes a list (`[a, b]`), each item written by `each`.
    fn list<T>(&mut self, items: &[T], each: impl Fn(&mut Self, &T)) {
        self.str("[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.str(", ");
            }
            each(self, item);
        }
        self.str("]");
    }

    fn fmt(&mut self, args: std::fmt::Arguments<'_>) {
        // Writing to the hash cannot fail.
        let _ = std::fmt::Write::write_fmt(self, args);
    }
}

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.str(s);
        Ok(())
    }
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
            Some(text) => key.push((a, text)),
            None => return Ok(None),
        }
    }
    // A `Position`'s bytes, written from the request's own strings.
    let body = encode_position(
        entity,
        request.index_name.unwrap_or(""),
        &request.partition_key,
        !request.scan_index_forward,
        query_hash(request),
        key.iter().map(|(k, v)| (*k, v.as_str())),
    );
    seal_body(body, secret.map(|s| &**s)).map(Some)
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
    crate::cursor::scan::start_key(schema, query.index, &position.key)
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
    // A multi-attribute index's other partition-key attributes, and the sort-key attributes the
    // query fixes with `eq` before the one its condition is on: the cursor's item holds the
    // query's values (DynamoDB refuses a start key outside them).
    for (attr, ty, text) in &query.also {
        let same = value(attr).is_some_and(|v| match ty {
            AttributeType::N => ty.compare(v, text) == Some(std::cmp::Ordering::Equal),
            _ => v == text,
        });
        if !same {
            return Err(invalid("the cursor's item is outside this query's key condition"));
        }
    }
    if let Some(sk_attr) = sk_attr
        && !query.sort.matches_as(value(sk_attr).unwrap_or(""), query.key_types.1)
    {
        return Err(invalid("the cursor's item is outside this query's sort-key condition"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;
    use std::collections::HashMap;

    /// The hash as it was first written (cursors given out hold it): the text formatted whole.
    fn formatted_hash(request: &QueryRequest) -> u64 {
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

    fn request(names: &[(&str, &str)], values: Vec<(&str, AttributeValue)>, filter: Option<&str>) -> QueryRequest {
        QueryRequest {
            index_name: None,
            partition_key: "ROOM#1".into(),
            sort_condition: super::super::SortCondition::Nothing,
            key_condition_expression: "#pk = :pk AND begins_with(#sk, :sk)".into(),
            expression_attribute_names: names.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            expression_attribute_values: values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<HashMap<_, _>>(),
            scan_index_forward: false,
            limit: Some(50),
            consistent_read: false,
            filter_expression: filter.map(str::to_owned),
            projection_expression: None,
        }
    }

    /// The hash written piece by piece is the hash of the text formatted whole, for the plain
    /// names and values written by hand and for every other kind (quotes, backslashes,
    /// apostrophes, non-ASCII and control characters, lists, maps, binaries, booleans), alone
    /// and mixed, so that a cursor given out before still resumes its query.
    #[test]
    fn the_query_hash_is_the_hash_of_the_formatted_text() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        let names_cases: Vec<Vec<(&str, &str)>> = vec![
            vec![],
            vec![("#pk", "PK"), ("#sk", "SK")],
            vec![("#pk", "PK"), ("#sk", "SK"), ("#f0", "a b"), ("#f1", "it's")],
            vec![("#pk", "PK"), ("#q", "say \"hi\"")],
            vec![("#pk", "PK"), ("#b", "back\\slash"), ("#u", "naïve"), ("#t", "tab\there")],
        ];
        let value_cases: Vec<Vec<(&str, AttributeValue)>> = vec![
            vec![],
            vec![(":pk", s("ROOM#1")), (":sk", s("MESSAGE#"))],
            vec![
                (":sk", s("MESSAGE#0000000000005#")),
                (":sk2", s("MESSAGE#9")),
                (":n", AttributeValue::N("-1.5e3".into())),
            ],
            vec![(":a", s("x")), (":ab", s("y")), (":a0", s("it's"))],
            vec![(":q", s("\"quoted\"")), (":b", s("back\\slash")), (":u", s("日本")), (":c", s("\u{7}bell"))],
            vec![
                (":l", AttributeValue::L(vec![s("a"), AttributeValue::N("1".into())])),
                (":m", AttributeValue::M(HashMap::from([("k".to_owned(), s("v\"w"))]))),
                (":bin", AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![0u8, 255]))),
                (":t", AttributeValue::Bool(true)),
                (":null", AttributeValue::Null(true)),
                (":ss", AttributeValue::Ss(vec!["a".into(), "b".into()])),
                (":s", s("plain")),
            ],
        ];
        let mut checked = 0;
        for names in &names_cases {
            for values in &value_cases {
                for filter in [None, Some("#f0 > :n"), Some("contains(#q, :q) AND \"odd\"")] {
                    let r = request(names, values.clone(), filter);
                    assert_eq!(
                        query_hash(&r),
                        formatted_hash(&r),
                        "names {names:?}, values {values:?}, filter {filter:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 5 * 6 * 3);
        // And it still tells queries apart.
        let a = request(&[("#pk", "PK")], vec![(":sk", s("MESSAGE#1"))], None);
        let b = request(&[("#pk", "PK")], vec![(":sk", s("MESSAGE#2"))], None);
        assert_ne!(query_hash(&a), query_hash(&b));
    }
}
