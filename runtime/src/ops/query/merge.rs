//! Reading a sharded partition: one [`Pager`] per shard, read concurrently (at most
//! [`Table::with_shard_concurrency`] requests at once) and merged in sort-key order.
//!
//! The merge hands out an item only when every shard that may still hold a smaller one (a
//! greater one, descending) has an item buffered or is read to its end, so the merged order
//! is exact. Each shard is asked for a little more than its share of the items still wanted
//! (DynamoDB's `Limit`, scaled up while other entities' items are stepped over), and again when
//! its buffer runs dry: a page of `limit(n)` reads a little more than `n` items when the shards hold
//! similar numbers of them, and at most `n` per shard. The cursor holds every shard's position
//! (not started, or after a key: the last item it gave, or the last key it read when everything
//! read was given or stepped over), never "read to the end": the next page resumes each shard
//! right after that key, so items written since into any shard, one read to its end or one that
//! was empty, are found as in one partition. It is sealed like other cursors and bound to the
//! query's shards, direction, sort-key condition and filter.
//!
//! `max_empty_pages` holds per shard: a page stops with [`Error::TooManySkipped`] as soon as one
//! shard has read that many DynamoDB pages in a row without an item of the entity (so a page
//! sends at most `shards × max_empty_pages` requests that return none); its cursor resumes every
//! shard where it stopped.

use std::cmp::Ordering;
use std::collections::VecDeque;

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::{Stream, StreamExt};

use super::Query;
use super::bind::{check_position, query_hash};
use super::pager::{Mark, Page, Pager, finish, too_many_skipped};
use crate::cursor::Cursor;
use crate::cursor::bind::query_key_attrs;
use crate::cursor::encode::Position;
use crate::cursor::scan::{Binding, KeyText, MERGE, ScanPosition, SegmentPosition, key_of, start_key};
use crate::cursor::seal::checksum;
use crate::error::Error;
use crate::model::collection::Readable;
use crate::model::entity::EntitySchema;
use crate::send::capacity::Capacity;
use crate::table::Table;

/// The fewest items a merged read asks one shard for (a shard's share of a small page is
/// often 1 or 2: asking for a few more spares a round trip when the shards are uneven).
const MIN_SHARD_ASK: u32 = 8;

/// Items asked of each shard per request by `query_stream`: bounded memory.
const STREAM_ASK: u32 = 100;

/// The last item a merged read handed out: its shard, sort value and key attributes. Every later
/// item comes after it in merged order, as after one partition's cursor: an item read from any
/// shard that sorts before it (or level with it in a lower shard, which the merge would have
/// handed out first) was written behind the read after it passed, and is not returned, as one
/// partition's read would not return it either.
struct Floor {
    shard: usize,
    sort: Option<AttributeValue>,
    key: KeyText,
}

struct ShardRead<T> {
    pager: Pager<T>,
    buffer: VecDeque<(Result<T, Error>, Mark)>,
    /// Where the next page resumes: after the last item handed out.
    position: SegmentPosition,
}

impl<T> ShardRead<T> {
    /// Read to its end (not stopped by `max_empty_pages`) and every item handed out.
    fn finished(&self) -> bool {
        self.buffer.is_empty() && self.pager.done && !self.pager.flooded
    }

    /// Where the next page resumes this shard: after the last item handed out or, when every
    /// item read is handed out (or was stepped over), after the last key read.
    fn resume(&self, schema: &EntitySchema, index: Option<&str>) -> SegmentPosition {
        match &self.pager.start {
            Some(start) if self.buffer.is_empty() => {
                key_of(schema, index, start).map_or_else(|| self.position.clone(), SegmentPosition::After)
            }
            _ => self.position.clone(),
        }
    }
}

/// What the merge does next.
enum Step {
    /// Hand out the head of this shard's buffer.
    Take(usize),
    /// A shard that may hold the next item has none buffered: read more.
    Read,
    /// Every shard is read to its end.
    Done,
}

/// A sharded query being read.
pub(crate) struct Merge<T> {
    shards: Vec<ShardRead<T>>,
    descending: bool,
    /// Items still wanted (`limit(n)`), counted as `Pager` does: items of the entity returned.
    remaining: Option<u32>,
    /// The most items one request asks of a shard (`None`: DynamoDB's page, up to 1 MB).
    ask_cap: Option<u32>,
    concurrency: usize,
    /// What the cursor is bound to.
    entity: &'static str,
    schema: &'static EntitySchema,
    index: Option<&'static str>,
    binding: u64,
    secret: Option<std::sync::Arc<crate::cursor::CursorSecret>>,
    floor: Option<Floor>,
}

/// The hash a merged cursor is bound to: the shards' partitions, the direction, and the query's
/// sort-key condition and filter (`query`, [`query_hash`]).
fn binding(partitions: &[String], descending: bool, query: u64) -> u64 {
    let mut text = format!("{}\u{0}{query:016x}", if descending { "desc" } else { "asc" });
    for p in partitions {
        text.push('\0');
        text.push_str(p);
    }
    checksum(text.as_bytes())
}

impl<T: Readable> Merge<T> {
    /// `ask_cap`: the most items one request asks of a shard (`None`: DynamoDB's page).
    pub(crate) fn new(table: &Table, query: Query<T>, ask_cap: Option<u32>) -> Result<Self, Error> {
        let partitions = query.shards.as_ref().map(|s| s.partitions.clone()).unwrap_or_else(|| vec![query.pk.clone()]);
        let schema: &'static EntitySchema = T::schema(query.index)
            .ok_or_else(|| Error::Validation(format!("no member of {} has index {:?}", T::NAME, query.index)))?;
        let (_, sort_attr) = query_key_attrs(schema, query.index);
        let hash = query_hash(&query.on_partition(partitions.first().unwrap_or(&query.pk)).request()?);
        let binding = binding(&partitions, query.descending, hash);
        let positions = match &query.after {
            Some(cursor) => {
                let secret = table.cursor_secret.as_deref();
                let bound = Binding {
                    kind: MERGE,
                    entity: T::NAME,
                    index: query.index,
                    filter: binding,
                    segments: partitions.len(),
                };
                let open = ScanPosition::open(cursor, secret, schema, bound)?;
                let floor = match open.floor {
                    Some((shard, key)) => {
                        let sort = sort_attr.and_then(|a| start_key(schema, query.index, &key).ok()?.remove(a));
                        let shard =
                            usize::try_from(shard).map_err(|_| crate::cursor::seal::invalid("a shard number"))?;
                        Some(Floor { shard, sort, key })
                    }
                    None => None,
                };
                (open.segments, floor)
            }
            None => (vec![SegmentPosition::Start; partitions.len()], None),
        };
        let (positions, floor) = positions;
        let mut shards = Vec::with_capacity(partitions.len());
        for (pk, position) in partitions.iter().zip(positions) {
            let one = query.on_partition(pk);
            let mut pager = Pager::new(table, one.clone())?;
            pager.merging = Some(sort_attr.unwrap_or(""));
            match &position {
                SegmentPosition::Start => {}
                SegmentPosition::After(key) => {
                    let p = Position {
                        entity: T::NAME.to_owned(),
                        index: query.index.unwrap_or("").to_owned(),
                        partition: pk.clone(),
                        descending: query.descending,
                        query: hash,
                        key: key.clone(),
                    };
                    check_position(T::NAME, schema, &one, &p)?;
                    pager.start = Some(start_key(schema, query.index, key)?);
                }
                // Merged cursors never say "read to the end" (a shard may get items later).
                SegmentPosition::Done => return Err(crate::cursor::seal::invalid("a shard marked done")),
            }
            shards.push(ShardRead { pager, buffer: VecDeque::new(), position });
        }
        Ok(Merge {
            shards,
            descending: query.descending,
            remaining: query.limit,
            ask_cap,
            concurrency: table.shard_concurrency,
            entity: T::NAME,
            schema,
            index: query.index,
            binding,
            secret: table.cursor_secret.clone(),
            floor,
        })
    }

    fn step(&self) -> Step {
        let mut best: Option<usize> = None;
        for (i, s) in self.shards.iter().enumerate() {
            let Some((_, mark)) = s.buffer.front() else {
                if s.pager.done {
                    continue;
                }
                return Step::Read;
            };
            let better = match best {
                None => true,
                Some(b) => {
                    let (_, other) = &self.shards[b].buffer[0];
                    let order = compare(&mark.sort, &other.sort);
                    // Ties go to the lower shard, in both directions.
                    if self.descending { order == Ordering::Greater } else { order == Ordering::Less }
                }
            };
            if better {
                best = Some(i);
            }
        }
        best.map_or(Step::Done, Step::Take)
    }

    /// Whether the head of shard `i` sorts before the last item handed out (see [`Floor`]).
    fn behind(&self, i: usize) -> bool {
        let (Some(floor), Some((_, mark))) = (&self.floor, self.shards[i].buffer.front()) else { return false };
        match compare(&mark.sort, &floor.sort) {
            Ordering::Equal => i < floor.shard,
            order => order == if self.descending { Ordering::Greater } else { Ordering::Less },
        }
    }

    /// Hands out the head of shard `i`; `None` if it was written behind what was handed out
    /// already (see [`Floor`]): the shard moves past it all the same.
    fn take(&mut self, i: usize) -> Option<Result<T, Error>> {
        let behind = self.behind(i);
        let s = &mut self.shards[i];
        let (item, mark) = s.buffer.pop_front()?;
        s.position = SegmentPosition::After(mark.key.clone());
        if behind {
            return None;
        }
        self.floor = Some(Floor { shard: i, sort: mark.sort, key: mark.key });
        if item.is_ok()
            && let Some(n) = &mut self.remaining
        {
            *n = n.saturating_sub(1);
        }
        Some(item)
    }

    /// Reads the next page of every shard that may hold the next item and has none buffered.
    async fn read(&mut self) -> Result<(), Error> {
        let live = self.shards.iter().filter(|s| !s.finished()).count().max(1);
        let live = u32::try_from(live).unwrap_or(u32::MAX);
        let ask = match (self.remaining, self.ask_cap) {
            // A quarter more than an even share, and two: shards are rarely even, and a second
            // round trip costs more than a few more items (reads are billed per 4 KB).
            (Some(n), cap) => {
                let share = n.saturating_mul(5).div_ceil(live.saturating_mul(4)).saturating_add(2);
                Some(share.max(MIN_SHARD_ASK).min(n).min(cap.unwrap_or(u32::MAX)))
            }
            (None, cap) => cap,
        };
        let mut reads = Vec::new();
        for s in &mut self.shards {
            if s.buffer.is_empty() && !s.pager.done {
                reads.push(read_shard(s, ask));
            }
        }
        let results: Vec<Result<(), Error>> =
            futures_util::stream::iter(reads).buffer_unordered(self.concurrency.max(1)).collect().await;
        results.into_iter().collect()
    }

    /// Reads on past pages without an item of the entity (`query_all`, `query_stream`).
    fn read_on(mut self) -> Self {
        for s in &mut self.shards {
            s.pager.max_empty = u32::MAX;
        }
        self
    }

    /// The most DynamoDB pages in a row without an item of the entity that a shard stopped
    /// after (`max_empty_pages`), if one did.
    fn flooded(&self) -> Option<u32> {
        self.shards.iter().filter(|s| s.pager.flooded).map(|s| s.pager.empty_run).max()
    }

    fn wanted(&self) -> bool {
        self.remaining != Some(0)
    }

    /// Items stepped over, and the capacity consumed, by every shard so far.
    fn totals(&self) -> (u64, Capacity) {
        let mut capacity = Capacity::default();
        let mut skipped = 0;
        for s in &self.shards {
            capacity += s.pager.consumed;
            skipped += s.pager.skipped;
        }
        (skipped, capacity)
    }

    /// Every shard's position; `None` when every shard is read to its end and handed out.
    fn cursor(&self) -> Result<Option<Cursor>, Error> {
        if self.shards.iter().all(ShardRead::finished) {
            return Ok(None);
        }
        let position = ScanPosition {
            kind: MERGE,
            entity: self.entity.to_owned(),
            index: self.index.unwrap_or("").to_owned(),
            filter: self.binding,
            segments: self.shards.iter().map(|s| s.resume(self.schema, self.index)).collect(),
            floor: self.floor.as_ref().map(|f| (u32::try_from(f.shard).unwrap_or(u32::MAX), f.key.clone())),
        };
        position.seal(self.secret.as_deref()).map(Some)
    }
}

/// The next page of one shard, `ask` items at most, into its buffer.
async fn read_shard<T: Readable>(s: &mut ShardRead<T>, ask: Option<u32>) -> Result<(), Error> {
    s.pager.remaining = ask;
    let (items, _) = s.pager.next_page().await?;
    let marks = std::mem::take(&mut s.pager.marks);
    s.buffer.extend(items.into_iter().zip(marks));
    Ok(())
}

/// DynamoDB's order of two sort-key values: strings and binaries by their bytes, numbers by
/// value. A missing value (a query without sort key) sorts first.
fn compare(a: &Option<AttributeValue>, b: &Option<AttributeValue>) -> Ordering {
    match (a, b) {
        (Some(AttributeValue::S(x)), Some(AttributeValue::S(y))) => x.as_bytes().cmp(y.as_bytes()),
        (Some(AttributeValue::N(x)), Some(AttributeValue::N(y))) => compare_numbers(x, y),
        (Some(AttributeValue::B(x)), Some(AttributeValue::B(y))) => x.as_ref().cmp(y.as_ref()),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// A decimal number as DynamoDB writes it (`-12.5`, `1E+3`): its sign, its significant digits
/// (no leading or trailing zeros) and the power of ten of the first of them.
fn decimal(text: &str) -> (bool, Vec<u8>, i64) {
    let text = text.trim();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).filter(u8::is_ascii_digit).collect();
    let int_len = i64::try_from(int.len()).unwrap_or(i64::MAX);
    let leading = digits.iter().take_while(|d| **d == b'0').count();
    digits.drain(..leading);
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    let power = int_len - 1 - i64::try_from(leading).unwrap_or(0) + exponent;
    (negative && !digits.is_empty(), digits, power)
}

fn compare_numbers(a: &str, b: &str) -> Ordering {
    let (an, ad, ap) = decimal(a);
    let (bn, bd, bp) = decimal(b);
    let magnitude = |d: &Vec<u8>, p: i64, e: &Vec<u8>, q: i64| match (d.is_empty(), e.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => p.cmp(&q).then_with(|| d.cmp(e)),
    };
    match (an, bn) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(&ad, ap, &bd, bp),
        (true, true) => magnitude(&bd, bp, &ad, ap),
    }
}

impl<T: Readable> Merge<T> {
    /// The items in merged order up to the limit, and the errors of bad ones; with `page` and
    /// no limit, only what the first read of the shards allows. It stops after a read in which
    /// a shard reached `max_empty_pages` ([`Merge::flooded`]).
    async fn collect(&mut self, page: bool) -> Result<(Vec<T>, Vec<Error>), Error> {
        let limited = self.remaining.is_some();
        let mut items = Vec::new();
        let mut errors = Vec::new();
        while self.wanted() {
            match self.step() {
                Step::Take(i) => match self.take(i) {
                    Some(Ok(item)) => items.push(item),
                    Some(Err(e)) => errors.push(e),
                    None => {}
                },
                Step::Read if page && !limited && (!items.is_empty() || !errors.is_empty()) => break,
                Step::Read => {
                    self.read().await?;
                    if self.flooded().is_some() {
                        break;
                    }
                }
                Step::Done => break,
            }
        }
        Ok((items, errors))
    }
}

impl Table {
    /// A page of a sharded query (see [`Table::query`]).
    pub(crate) async fn query_merged<T: Readable>(&self, query: Query<T>) -> Result<Page<T>, Error> {
        let mut merge = Merge::new(self, query, None)?;
        let (items, errors) = merge.collect(true).await?;
        let next = merge.cursor()?;
        let (skipped, consumed) = merge.totals();
        if let Some(pages) = merge.flooded() {
            return Err(too_many_skipped::<T>(items, errors, next, pages, skipped, consumed));
        }
        finish(items, errors, next, skipped, consumed)
    }

    /// Every item of a sharded query, merged (see [`Table::query_all`]).
    pub(crate) async fn query_all_merged<T: Readable>(&self, query: Query<T>) -> Result<Vec<T>, Error> {
        let mut merge = Merge::new(self, query, None)?.read_on();
        let (items, errors) = merge.collect(false).await?;
        let (skipped, consumed) = merge.totals();
        finish(items, errors, None, skipped, consumed).map(|page| page.items)
    }

    /// The items of a sharded query, merged lazily: at most 100 items per shard are held.
    pub(crate) fn query_stream_merged<T: Readable>(
        &self,
        query: Query<T>,
    ) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        let merge = Merge::new(self, query, Some(STREAM_ASK)).map(Merge::read_on);
        futures_util::stream::unfold(Some(merge), |state| async move {
            let mut merge = match state? {
                Ok(m) => m,
                Err(e) => return Some((Err(e), None)),
            };
            while merge.wanted() {
                match merge.step() {
                    Step::Take(i) => {
                        if let Some(item) = merge.take(i) {
                            return Some((item, Some(Ok(merge))));
                        }
                    }
                    Step::Read => {
                        if let Err(e) = merge.read().await {
                            return Some((Err(e), None));
                        }
                    }
                    Step::Done => return None,
                }
            }
            None
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        let ordered = [
            "-1E+3", "-12.5", "-12", "-0.001", "0", "-0", "0.0", "1e-3", "0.5", "1", "1.0", "9", "10", "1E+2", "123.45",
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                let expected = {
                    let (x, y) = (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap());
                    x.partial_cmp(&y).unwrap()
                };
                assert_eq!(compare_numbers(a, b), expected, "{a} vs {b} ({i}, {j})");
            }
        }
        // Beyond f64: 38 significant digits.
        assert_eq!(
            compare_numbers("12345678901234567890123456789012345678", "12345678901234567890123456789012345679"),
            Ordering::Less
        );
    }

    #[test]
    fn strings_compare_by_bytes_and_missing_values_first() {
        let s = |t: &str| Some(AttributeValue::S(t.to_owned()));
        assert_eq!(compare(&s("a#1"), &s("a#2")), Ordering::Less);
        assert_eq!(compare(&s("Z"), &s("a")), Ordering::Less);
        assert_eq!(compare(&s("é"), &s("z")), Ordering::Greater);
        assert_eq!(compare(&None, &s("a")), Ordering::Less);
    }
}
