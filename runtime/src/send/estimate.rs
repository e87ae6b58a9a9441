//! What a request may consume, estimated before it is sent: the rate limit reserves these
//! units, and settles the difference once DynamoDB reports what the request consumed.
//!
//! The rules (DynamoDB's, with the item sizes the request holds or the table has seen):
//! - a put: one write unit per KB of the item (rounded up) on the table, and the same again on
//!   every index the item is in (it holds the index's key attributes), whatever the index
//!   projects (the whole item is an upper bound of any projection);
//! - an update: the key and the values it sets, per KB, on the table and on each index of the
//!   entity; a delete: the key, per KB (one unit), on the table and on each index of the entity
//!   (the stored item is not known before the answer);
//! - a transaction: twice the units of its actions (a condition check: its key, per KB);
//! - a read of at most `n` items: `n` times the largest item size the table's reads have met
//!   (at least 4 KB), one read unit per 4 KB (rounded up), half that eventually consistent; a
//!   read without a limit: one page, 1 MB, DynamoDB's largest; a get: one item; a batch get:
//!   one item per key, each rounded up; a transactional get: twice a strongly consistent one.
//!
//! A put of an item that replaces a larger one, an update or a delete of an item larger than
//! the estimate, and a read of items larger than any met before consume more than estimated:
//! the rate limit takes the difference when DynamoDB answers.

use aws_sdk_dynamodb::types::{AttributeValue, TransactGetItem, TransactWriteItem};

use crate::model::Item;
use crate::model::entity::IndexSchema;
use crate::size::{item_size, value_size};

/// DynamoDB's largest page: a query or scan reads at most 1 MB per request.
pub(crate) const PAGE_BYTES: usize = 1024 * 1024;

/// The item size a read is estimated with before the table's reads have met a larger one: one
/// read unit per item, strongly consistent.
pub(crate) const ITEM_BYTES: usize = 4096;

/// What the estimate of a request knows: the indexes of the entity the call names, every index
/// the table's calls have named, and the largest item its reads have met.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape<'s> {
    /// The indexes of the call's entity, if the call names one.
    pub(crate) own: Option<&'s [IndexSchema]>,
    /// Every index of the entities the table's calls have named, each once.
    pub(crate) known: &'s [&'static IndexSchema],
    /// The largest item size (bytes) the table's reads have met, at least [`ITEM_BYTES`].
    pub(crate) item_bytes: usize,
}

/// Write units of an item (or key) of `bytes`: one per KB, rounded up.
fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

/// Read units of `bytes` read in one request, strongly consistent: one per 4 KB, rounded up.
fn read_units(bytes: usize) -> f64 {
    bytes.div_ceil(4096).max(1) as f64
}

/// Whether `item` is in index `i`: it holds the index's key attributes.
fn in_index(item: &Item, i: &IndexSchema) -> bool {
    let holds = |k: &Option<crate::model::entity::KeySchema>| k.as_ref().is_none_or(|k| item.contains_key(k.attr));
    holds(&i.pk) && holds(&i.sk)
}

impl Shape<'_> {
    /// A put of `item`: its units on the table and on every index it is in.
    pub(crate) fn put(&self, item: Option<&Item>) -> f64 {
        let Some(item) = item else { return 1.0 };
        let copies = 1 + self.known.iter().filter(|i| in_index(item, i)).count();
        write_units(item_size(item)) * copies as f64
    }

    /// A write known by its key and the values it sets (`bytes` together): on the table and on
    /// each index of the call's entity (of every entity the table knows, if the call names none).
    pub(crate) fn keyed(&self, bytes: usize) -> f64 {
        let indexes = self.own.map_or(self.known.len(), <[IndexSchema]>::len);
        write_units(bytes) * (1 + indexes) as f64
    }

    /// An update of `key` setting `values`.
    pub(crate) fn update(
        &self,
        key: Option<&Item>,
        values: Option<&std::collections::HashMap<String, AttributeValue>>,
    ) -> f64 {
        let bytes = key.map_or(0, item_size) + values.map_or(0, |v| v.values().map(value_size).sum());
        self.keyed(bytes)
    }

    /// A delete of `key`.
    pub(crate) fn delete(&self, key: Option<&Item>) -> f64 {
        self.keyed(key.map_or(0, item_size))
    }

    /// A read of at most `limit` items (`None`: one page).
    pub(crate) fn read(&self, limit: Option<i32>, consistent: bool) -> f64 {
        let bytes = match limit {
            Some(n) => usize::try_from(n.max(1)).unwrap_or(1).saturating_mul(self.item_bytes).min(PAGE_BYTES),
            None => PAGE_BYTES,
        };
        let units = read_units(bytes);
        if consistent { units } else { units / 2.0 }
    }

    /// `keys` items read one by one (a batch get: each item rounded up on its own).
    pub(crate) fn items(&self, keys: usize, consistent: bool) -> f64 {
        let units = read_units(self.item_bytes) * keys as f64;
        if consistent { units } else { units / 2.0 }
    }

    /// A write transaction: twice its actions.
    pub(crate) fn transact_write(&self, items: &[TransactWriteItem]) -> f64 {
        let action = |a: &TransactWriteItem| {
            if let Some(p) = a.put() {
                self.put(Some(p.item()))
            } else if let Some(u) = a.update() {
                self.update(Some(u.key()), u.expression_attribute_values())
            } else if let Some(d) = a.delete() {
                self.delete(Some(d.key()))
            } else if let Some(c) = a.condition_check() {
                write_units(item_size(c.key()))
            } else {
                1.0
            }
        };
        2.0 * items.iter().map(action).sum::<f64>()
    }

    /// A read transaction: twice its gets, strongly consistent.
    pub(crate) fn transact_get(&self, items: &[TransactGetItem]) -> f64 {
        2.0 * self.items(items.len(), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::attr::AttributeType;
    use crate::model::entity::{IndexKind, IndexProjection, KeySchema};

    const GSI1: IndexSchema = IndexSchema {
        name: "GSI1",
        kind: IndexKind::Global,
        pk: Some(KeySchema::of("GSI1PK", "T#<t>", AttributeType::S)),
        sk: None,
        projection: IndexProjection::All,
        projection_declared: false,
        multi: None,
    };

    fn item(attrs: &[(&str, usize)]) -> Item {
        attrs.iter().map(|(k, n)| (k.to_string(), AttributeValue::S("x".repeat(*n)))).collect()
    }

    #[test]
    fn a_put_counts_the_table_and_the_indexes_the_item_is_in() {
        let known = [&GSI1];
        let shape = Shape { own: None, known: &known, item_bytes: ITEM_BYTES };
        // 900 bytes: one unit; in GSI1: two.
        assert_eq!(shape.put(Some(&item(&[("PK", 10), ("body", 800), ("GSI1PK", 10)]))), 2.0);
        // Not in the (sparse) index: one.
        assert_eq!(shape.put(Some(&item(&[("PK", 10), ("body", 800)]))), 1.0);
        // 2.5 KB in the index: 3 + 3.
        assert_eq!(shape.put(Some(&item(&[("PK", 10), ("body", 2500), ("GSI1PK", 10)]))), 6.0);
        // A delete: the key, on the table and on every index of the entity.
        let own = [GSI1];
        let shape = Shape { own: Some(&own), ..shape };
        assert_eq!(shape.delete(Some(&item(&[("PK", 10)]))), 2.0);
    }

    #[test]
    fn a_read_counts_its_limit_of_the_largest_item_met_or_a_page() {
        let shape = Shape { own: None, known: &[], item_bytes: ITEM_BYTES };
        assert_eq!(shape.read(Some(10), true), 10.0);
        assert_eq!(shape.read(Some(10), false), 5.0);
        assert_eq!(shape.read(None, true), 256.0);
        assert_eq!(shape.read(Some(100_000), false), 128.0);
        let big = Shape { item_bytes: 10_000, ..shape };
        assert_eq!(big.read(Some(2), true), 5.0);
        assert_eq!(big.items(2, true), 6.0);
    }
}
