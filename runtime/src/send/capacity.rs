//! What requests consumed: DynamoDB's `ConsumedCapacity` (asked for as `INDEXES`) summed per
//! (entity, operation, index), per partition, and per page; read as a [`CapacityReport`].

use std::sync::Mutex;

use aws_sdk_dynamodb::types::ConsumedCapacity;

use crate::error::ThrottleReason;

/// Read and write capacity units, and the requests that consumed them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Capacity {
    /// Read capacity units (eventually consistent reads count half).
    pub read_units: f64,
    /// Write capacity units (index writes included).
    pub write_units: f64,
    /// Requests sent (each once, whatever the SDK's retries).
    pub requests: u64,
}

impl Capacity {
    /// Read and write units together.
    pub fn units(&self) -> f64 {
        self.read_units + self.write_units
    }

    fn add(&mut self, other: Capacity) {
        self.read_units += other.read_units;
        self.write_units += other.write_units;
        self.requests += other.requests;
    }
}

impl std::ops::Add for Capacity {
    type Output = Capacity;

    fn add(mut self, other: Capacity) -> Capacity {
        Capacity::add(&mut self, other);
        self
    }
}

impl std::ops::AddAssign for Capacity {
    fn add_assign(&mut self, other: Capacity) {
        Capacity::add(self, other);
    }
}

/// One row of a [`CapacityReport`]: what one operation of one entity consumed on the table or
/// on one index.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CapacityRow {
    /// The entity (or collection, or view's entity) the requests were made for; for a
    /// transaction, its entities joined by `,`; empty for table operations (`CreateTable`, ...).
    pub entity: String,
    /// DynamoDB's operation name (`PutItem`, `Query`, `BatchWriteItem`, ...).
    pub operation: &'static str,
    /// The index whose capacity this is (`None`: the table's). A write's index updates are rows
    /// of their own, so that a row per index shows what each index costs.
    pub index: Option<String>,
    /// The units, and the requests (counted on the row of the index the request named).
    pub capacity: Capacity,
    /// The requests that ended throttled (the SDK's retries spent: [`Error::Throttled`](crate::Error::Throttled)),
    /// counted on the row of the index the request named.
    pub throttled: u64,
    /// DynamoDB's throttling reasons of those requests (which table or index, which limit),
    /// each with how many of them carried it, in the order first seen.
    pub throttle_reasons: Vec<(ThrottleReason, u64)>,
    /// The vector search bytes DynamoDB reported (`VectorSearchRequestBytes` of the
    /// `SearchVectors` answers), on the row of the vector index searched.
    pub vector_search_bytes: f64,
    /// The vector write bytes DynamoDB reported (`VectorWriteRequestBytes` of the writes'
    /// `ConsumedCapacity.VectorIndexes`), on the row of each vector index written.
    pub vector_write_bytes: f64,
}

/// A snapshot of what a table's requests consumed since it was made (or since
/// [`Table::reset_capacity`](crate::table::Table::reset_capacity)): `table.capacity()`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CapacityReport {
    rows: Vec<CapacityRow>,
    partitions: Vec<(String, Capacity)>,
}

impl CapacityReport {
    /// Everything the table's requests consumed.
    pub fn total(&self) -> Capacity {
        self.rows.iter().fold(Capacity::default(), |sum, r| sum + r.capacity)
    }

    /// What the requests made for `entity` consumed (its type name, as `Entity::SCHEMA` names it).
    pub fn entity(&self, entity: &str) -> Capacity {
        self.rows.iter().filter(|r| r.entity == entity).fold(Capacity::default(), |sum, r| sum + r.capacity)
    }

    /// One row per (entity, operation, index), in the order first seen.
    pub fn rows(&self) -> &[CapacityRow] {
        &self.rows
    }

    /// The partition keys whose requests consumed the most units, most first (at most `n`):
    /// single-item reads and writes and queries name their partition; batches, transactions
    /// and scans are not attributed to one. The table keeps the [`HOT_PARTITIONS_KEPT`] busiest
    /// partitions it has seen, so a key that was hot stays listed.
    pub fn hot_partitions(&self, n: usize) -> Vec<(&str, Capacity)> {
        let mut hot: Vec<(&str, Capacity)> = self.partitions.iter().map(|(k, c)| (k.as_str(), *c)).collect();
        hot.sort_by(|a, b| b.1.units().total_cmp(&a.1.units()));
        hot.truncate(n);
        hot
    }
}

/// How many partitions a table's capacity record keeps (the busiest).
pub const HOT_PARTITIONS_KEPT: usize = 256;

/// Whether an operation's units are read or write units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
    /// Table and stream operations: no units.
    Other,
}

/// The units of one answer: `Capacity` per index (`None`: the table's), in `ConsumedCapacity`'s
/// breakdown when DynamoDB gives one, else the total on `index`.
pub(crate) fn split(
    kind: Kind,
    index: Option<&str>,
    consumed: &[ConsumedCapacity],
    mut each: impl FnMut(Option<&str>, f64, f64),
) {
    let as_units = |c: Option<f64>, read: Option<f64>, write: Option<f64>| -> (f64, f64) {
        match (read, write) {
            (None, None) => match kind {
                Kind::Read => (c.unwrap_or(0.0), 0.0),
                Kind::Write => (0.0, c.unwrap_or(0.0)),
                Kind::Other => (0.0, 0.0),
            },
            (r, w) => (r.unwrap_or(0.0), w.unwrap_or(0.0)),
        }
    };
    for c in consumed {
        let gsis = c.global_secondary_indexes();
        let lsis = c.local_secondary_indexes();
        if gsis.is_none() && lsis.is_none() && c.table().is_none() {
            let (r, w) = as_units(c.capacity_units(), c.read_capacity_units(), c.write_capacity_units());
            each(index, r, w);
            continue;
        }
        if let Some(t) = c.table() {
            let (r, w) = as_units(t.capacity_units(), t.read_capacity_units(), t.write_capacity_units());
            each(None, r, w);
        }
        for (name, i) in gsis.into_iter().flatten().chain(lsis.into_iter().flatten()) {
            let (r, w) = as_units(i.capacity_units(), i.read_capacity_units(), i.write_capacity_units());
            each(Some(name.as_str()), r, w);
        }
    }
}

/// The units of one answer, summed.
pub(crate) fn spent(kind: Kind, consumed: &[ConsumedCapacity]) -> Capacity {
    let mut sum = Capacity { requests: 1, ..Capacity::default() };
    split(kind, None, consumed, |_, r, w| {
        sum.read_units += r;
        sum.write_units += w;
    });
    sum
}

/// A table's record: rows and partitions, behind one lock taken once per answer.
#[derive(Debug, Default)]
pub(crate) struct Record {
    inner: Mutex<Inner>,
}

/// The report, and where each partition it keeps is in its list: finding a partition under
/// the lock is one hashed look-up, not a comparison with each of up to
/// [`HOT_PARTITIONS_KEPT`] keys on every request (issue 51).
#[derive(Debug, Default)]
struct Inner {
    report: CapacityReport,
    at: std::collections::HashMap<String, usize>,
}

impl Record {
    /// Adds one answer's units: to the rows of `entity` and `operation` (per index), and to
    /// `partition`'s if given. Returns the answer's total (one request).
    pub(crate) fn add(
        &self,
        kind: Kind,
        operation: &'static str,
        entity: &str,
        index: Option<&str>,
        partition: Option<&str>,
        consumed: &[ConsumedCapacity],
    ) -> Capacity {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Inner { report, at } = &mut *inner;
        let mut total = Capacity::default();
        let mut requested = false;
        split(kind, index, consumed, |at, read_units, write_units| {
            let requests = u64::from(!requested && at == index);
            requested |= requests == 1;
            // A query of an index reports the table with no units: no row for what it did not
            // touch (a row holds units or requests).
            if requests == 0 && read_units == 0.0 && write_units == 0.0 {
                return;
            }
            let c = Capacity { read_units, write_units, requests };
            total += c;
            row(&mut report.rows, operation, entity, at).add(c);
        });
        if !requested {
            // No units reported on the index the request named (or none at all): the request
            // still counts there.
            let one = Capacity { requests: 1, ..Capacity::default() };
            total += one;
            row(&mut report.rows, operation, entity, index).add(one);
        }
        if let Some(key) = partition {
            hot(&mut report.partitions, at, key, total);
        }
        // A write to a vector index reports its vector bytes per index.
        for (name, v) in consumed.iter().filter_map(|c| c.vector_indexes()).flatten() {
            let at = row_at(&mut report.rows, operation, entity, Some(name));
            report.rows[at].vector_search_bytes += v.vector_search_request_bytes().unwrap_or(0.0);
            report.rows[at].vector_write_bytes += v.vector_write_request_bytes().unwrap_or(0.0);
        }
        total
    }

    /// The vector bytes of a `SearchVectors` answer, on the row of `entity`, `operation` and the
    /// vector index searched.
    pub(crate) fn vector(
        &self,
        operation: &'static str,
        entity: &str,
        index: Option<&str>,
        capacity: &aws_sdk_dynamodb::types::VectorCapacity,
    ) {
        let report = &mut self.inner.lock().unwrap_or_else(|e| e.into_inner()).report;
        let at = row_at(&mut report.rows, operation, entity, index);
        report.rows[at].vector_search_bytes += capacity.vector_search_request_bytes().unwrap_or(0.0);
        report.rows[at].vector_write_bytes += capacity.vector_write_request_bytes().unwrap_or(0.0);
    }

    /// A request of `entity` and `operation` on `index` that ended throttled, for `reasons`.
    pub(crate) fn throttled(
        &self,
        operation: &'static str,
        entity: &str,
        index: Option<&str>,
        reasons: &[ThrottleReason],
    ) {
        let report = &mut self.inner.lock().unwrap_or_else(|e| e.into_inner()).report;
        let at = row_at(&mut report.rows, operation, entity, index);
        let row = &mut report.rows[at];
        row.throttled += 1;
        for reason in reasons {
            match row.throttle_reasons.iter_mut().find(|(r, _)| r == reason) {
                Some((_, n)) => *n += 1,
                None => row.throttle_reasons.push((reason.clone(), 1)),
            }
        }
    }

    pub(crate) fn snapshot(&self) -> CapacityReport {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).report.clone()
    }

    pub(crate) fn reset(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Inner::default();
    }
}

fn row<'r>(
    rows: &'r mut Vec<CapacityRow>,
    operation: &'static str,
    entity: &str,
    index: Option<&str>,
) -> &'r mut Capacity {
    let at = row_at(rows, operation, entity, index);
    &mut rows[at].capacity
}

/// Where the row of (`operation`, `entity`, `index`) is, added if new.
fn row_at(rows: &mut Vec<CapacityRow>, operation: &'static str, entity: &str, index: Option<&str>) -> usize {
    let at = rows.iter().position(|r| r.operation == operation && r.entity == entity && r.index.as_deref() == index);
    at.unwrap_or_else(|| {
        rows.push(CapacityRow {
            entity: entity.to_owned(),
            operation,
            index: index.map(str::to_owned),
            capacity: Capacity::default(),
            throttled: 0,
            throttle_reasons: Vec::new(),
            vector_search_bytes: 0.0,
            vector_write_bytes: 0.0,
        });
        rows.len() - 1
    })
}

/// Adds `c` to `key`'s partition. When [`HOT_PARTITIONS_KEPT`] are kept, a new key replaces the
/// one that consumed least, taking over its units (the space-saving count: a key's units are
/// never under-counted, so a hot key is never dropped for a cold one).
/// `at`: where each key is in `partitions`.
fn hot(
    partitions: &mut Vec<(String, Capacity)>,
    at: &mut std::collections::HashMap<String, usize>,
    key: &str,
    c: Capacity,
) {
    if let Some((_, sum)) = at.get(key).and_then(|&i| partitions.get_mut(i)) {
        *sum += c;
        return;
    }
    if partitions.len() < HOT_PARTITIONS_KEPT {
        at.insert(key.to_owned(), partitions.len());
        partitions.push((key.to_owned(), c));
        return;
    }
    let least = partitions.iter().enumerate().min_by(|a, b| a.1.1.units().total_cmp(&b.1.1.units())).map(|(i, _)| i);
    if let Some(i) = least {
        let floor = partitions[i].1;
        at.remove(&partitions[i].0);
        at.insert(key.to_owned(), i);
        partitions[i] = (key.to_owned(), floor + c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list as it was kept before its index: a linear search for the key.
    fn hot_by_search(partitions: &mut Vec<(String, Capacity)>, key: &str, c: Capacity) {
        if let Some((_, sum)) = partitions.iter_mut().find(|(k, _)| k == key) {
            *sum += c;
            return;
        }
        if partitions.len() < HOT_PARTITIONS_KEPT {
            partitions.push((key.to_owned(), c));
            return;
        }
        let least =
            partitions.iter().enumerate().min_by(|a, b| a.1.1.units().total_cmp(&b.1.1.units())).map(|(i, _)| i);
        if let Some(i) = least {
            let floor = partitions[i].1;
            partitions[i] = (key.to_owned(), floor + c);
        }
    }

    #[test]
    fn the_indexed_partitions_keep_what_the_searched_list_kept() {
        let (mut indexed, mut at, mut searched) = (Vec::new(), std::collections::HashMap::new(), Vec::new());
        // More keys than are kept, some hot, some repeated after being replaced.
        for n in 0u64..3000 {
            let key = format!("P#{}", if n % 3 == 0 { n % 7 } else { (n * 7919) % 400 });
            let c = Capacity { read_units: (n % 5) as f64 + 0.5, write_units: 0.0, requests: 1 };
            hot(&mut indexed, &mut at, &key, c);
            hot_by_search(&mut searched, &key, c);
            assert_eq!(indexed, searched, "after {n}");
        }
        assert_eq!(indexed.len(), HOT_PARTITIONS_KEPT);
        assert_eq!(at.len(), HOT_PARTITIONS_KEPT);
        assert!(at.iter().all(|(k, &i)| indexed[i].0 == *k), "the index points at its keys");
    }
}
