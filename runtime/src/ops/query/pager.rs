//! Running a query: pages of the queried entity (or collection, or view), other entities' items
//! stepped over, exact limits over DynamoDB's pages, cursors; [`Table::query`] and its variants.

use crate::cursor::Cursor;
use crate::error::Error;
use crate::error::sdk_error;
use crate::model::Item;
use crate::model::collection::PageRead;
use crate::model::collection::Readable;
use crate::ops::query::QueryRequest;
use crate::ops::query::SortCondition;
use crate::ops::query::{Query, QueryOptions};
use crate::send::capacity::{Capacity, Kind, spent};
use crate::send::{call, send};
use crate::table::Table;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::Stream;

/// One page of a query: the items, and where the next page starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items, in sort-key order (descending if asked).
    pub items: Vec<T>,
    /// Where the next page starts; `None` when the query is exhausted.
    pub next: Option<Cursor>,
    /// How many items the page stepped over: other entities' items (their type attribute names
    /// another type), and items without a type attribute whose key is not one of the entity's
    /// (logged as a `tracing` warning; `.strict()` makes them errors instead). They were read,
    /// so they cost read capacity, but are not returned.
    pub skipped: u64,
    /// What the requests behind this page consumed (every DynamoDB page read for it, the items
    /// stepped over included).
    pub consumed: Capacity,
}

/// Pagination state of a running query (of one partition: a sharded query runs one per shard,
/// see [`super::merge`]).
pub(crate) struct Pager<T> {
    table: Table,
    request: QueryRequest,
    pub(crate) start: Option<Item>,
    pub(crate) remaining: Option<u32>,
    /// Items read so far, and how many of them were `T`'s: sizes the next request of a query
    /// whose partition interleaves other entities' items.
    read: u64,
    mine: u64,
    pub(crate) done: bool,
    /// Items stepped over since the caller last took the count.
    pub(crate) skipped: u64,
    /// Items without a type attribute whose key is not `T`'s are errors, not stepped over.
    strict: bool,
    /// DynamoDB pages in a row that held no item of `T`, and how many `query()` allows.
    pub(crate) empty_run: u32,
    pub(crate) max_empty: u32,
    /// `query()` stopped after `max_empty` such pages (`start` is where it would go on).
    pub(crate) flooded: bool,
    /// What this pager's requests consumed.
    pub(crate) consumed: Capacity,
    /// Reading one shard of a merged query: each item returned has its [`Mark`] in `marks`, a
    /// page that reaches the limit resumes after its last item (the merge sets the next
    /// limit), and no cursor is sealed.
    pub(crate) merging: Option<&'static str>,
    pub(crate) marks: Vec<Mark>,
    /// What the handle adds to each request (its guard filter is in no cursor's binding).
    reads: crate::ops::policy::Reads,
    _entity: std::marker::PhantomData<fn() -> T>,
}

/// The most items one request asks for beyond the items still wanted, when other entities'
/// items are being stepped over.
const MAX_ASK: u64 = 1000;

impl<T: Readable> Pager<T> {
    pub(crate) fn new(table: &Table, mut query: Query<T>) -> Result<Self, Error> {
        let reads = table.reads(T::NAME, T::__SCHEMAS)?;
        if reads.whole_items {
            query.projection = None;
        }
        let request = query.request()?;
        let tenant_key = query.tenant_key.as_ref().map(|(entity, text)| (*entity, text.as_str()));
        table.check_tenant_read(T::__SCHEMAS, query.index, &request.partition_key, tenant_key)?;
        if let (Some(index), Some(schema)) = (query.index, T::schema(query.index)) {
            let missing = crate::model::view::not_projected(schema, Some(index), query.projection.as_deref());
            if !missing.is_empty() {
                return Err(Error::NotProjected { entity: T::NAME, index, missing });
            }
        }
        let start = match &query.after {
            Some(cursor) => Some(super::bind::check(table.cursor_secret.as_ref(), &query, cursor)?),
            None => None,
        };
        let done = request.sort_condition == SortCondition::Nothing;
        Ok(Pager {
            table: table.clone(),
            remaining: request.limit,
            request,
            start,
            read: 0,
            mine: 0,
            done,
            skipped: 0,
            strict: query.strict,
            empty_run: 0,
            max_empty: query.max_empty_pages,
            flooded: false,
            consumed: Capacity::default(),
            merging: None,
            marks: Vec::new(),
            reads,
            _entity: std::marker::PhantomData,
        })
    }

    /// DynamoDB's `Limit` for the next request: the items still wanted, scaled by the share of
    /// `E`'s items among those read so far (DynamoDB counts items *evaluated*, including the
    /// other entities' items that are stepped over).
    fn ask(&self) -> Option<i32> {
        self.remaining.map(|n| {
            let n = u64::from(n);
            let factor = (self.read + 1).div_ceil(self.mine + 1).clamp(1, 16);
            let ask = if factor == 1 { n } else { (n * factor).min(MAX_ASK.max(n)) };
            i32::try_from(ask).unwrap_or(i32::MAX)
        })
    }

    /// One DynamoDB page: `E`'s items in order (each decoded, or the error of a bad one; other
    /// entities' items stepped over), and where the next page starts. With a limit, the page
    /// ends at the item that reaches it, and the cursor is that item's key.
    pub(crate) async fn next_page(&mut self) -> Result<(Vec<Result<T, Error>>, Option<Cursor>), Error> {
        let mut items = Vec::new();
        let next = self.next_page_into(&mut items).await?;
        Ok((items, next))
    }

    /// [`Pager::next_page`] into `sink`: a query's page goes straight to its items and errors
    /// (no vector of results in between, whose items would each be moved once more).
    pub(crate) async fn next_page_into(&mut self, sink: &mut impl PageSink<T>) -> Result<Option<Cursor>, Error> {
        if self.done {
            return Ok(None);
        }
        let r = &self.request;
        let schema = T::schema(r.index_name)
            .ok_or_else(|| Error::Validation(format!("no member of {} has index {:?}", T::NAME, r.index_name)))?;
        let call = call("Query", &self.table.name, T::NAME, r.index_name).on(Some(&r.partition_key));
        let mut names = r.expression_attribute_names.clone();
        let mut values = r.expression_attribute_values.clone();
        let filter = self.reads.and_guard(r.filter_expression.clone(), &mut names, &mut values);
        let request = self
            .table
            .client
            .query()
            .table_name(&*self.table.name)
            .set_index_name(r.index_name.map(str::to_owned))
            .key_condition_expression(&r.key_condition_expression)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .scan_index_forward(r.scan_index_forward)
            .consistent_read(r.consistent_read)
            .set_filter_expression(filter)
            .set_projection_expression(r.projection_expression.clone())
            .set_limit(self.ask())
            .set_exclusive_start_key(self.start.take())
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = send(&self.table.meter, &call, request).await.map_err(sdk_error)?;
        self.consumed += spent(Kind::Read, out.consumed_capacity().map(std::slice::from_ref).unwrap_or_default());
        let raw = out.items.unwrap_or_default();
        let secret = self.table.cursor_secret.clone();
        let cursor_at = |item: &Item| super::bind::after_item(secret.as_ref(), T::NAME, schema, r, item);
        let count = raw.len();
        sink.reserve(count);
        let mut pushed = 0usize;
        let mut stopped_at: Option<(usize, Option<Cursor>)> = None;
        // Items DynamoDB evaluated (those a filter dropped included), for the next `ask`.
        self.read += u64::try_from(out.scanned_count.max(0)).unwrap_or(0).max(count as u64);
        let mine_before = self.mine;
        let type_attr = schema.type_attr;
        let keys = (schema.pk.attr, schema.sk.map(|k| k.attr));
        let merging = self.merging;
        for (i, item) in raw.into_iter().enumerate() {
            // The item that may reach the limit: keep its key for the cursor.
            let cursor = if self.remaining == Some(1) && merging.is_none() { cursor_at(&item)? } else { None };
            // Its place in the merged order, and the key to resume after it.
            let mark = merging.map(|sort| Mark::of(schema, r.index_name, sort, &item));
            // An item without a type attribute is `T`'s only if its key parses as one of `T`'s:
            // its key names it if it does not. An item of `T`'s goes to the sink as it is
            // decoded (moved once).
            let mut good = false;
            let take = |read: Result<T, Error>| {
                good = read.is_ok();
                sink.push(read);
            };
            match T::__read_in_page(item, type_attr, keys, take) {
                PageRead::Mine => {}
                PageRead::NotMine { untyped } => {
                    self.skipped += 1;
                    if let Some(key) = untyped {
                        let error = unrecognized(T::NAME, keys, key);
                        if self.strict {
                            self.mine += 1;
                            if let Some(mark) = mark {
                                self.marks.push(mark);
                            }
                            pushed += 1;
                            sink.push(Err(error));
                        } else {
                            tracing::warn!(parent: &call.span, entity = T::NAME, "stepped over: {error}");
                        }
                    }
                    continue;
                }
            };
            self.mine += 1;
            if let Some(mark) = mark {
                self.marks.push(mark);
            }
            pushed += 1;
            if let (true, Some(n)) = (good, &mut self.remaining) {
                *n -= 1;
                if *n == 0 {
                    stopped_at = Some((i, cursor));
                    break;
                }
            }
        }
        call.span.record("items", pushed);
        let more = out.last_evaluated_key.is_some();
        if self.mine > mine_before {
            self.empty_run = 0;
        } else if more {
            self.empty_run += 1;
            if self.empty_run >= self.max_empty {
                // Go no further in this call: the cursor below resumes where it stopped.
                self.flooded = true;
            }
        }
        let next = match stopped_at {
            // The limit is reached: resume right after the last item returned, unless it was
            // the last item of the query.
            Some((i, _)) if merging.is_some() && (i + 1 < count || more) => {
                // The merge asks for more when it needs them: resume after the last item.
                let last = self.marks.last().map(|m| m.key.as_slice()).unwrap_or_default();
                self.start = Some(crate::cursor::scan::start_key(schema, self.request.index_name, last)?);
                None
            }
            Some((i, cursor)) => {
                self.done = true;
                if i + 1 < count || more { cursor } else { None }
            }
            None if more => {
                let next = match &out.last_evaluated_key {
                    Some(key) if merging.is_none() => cursor_at(key)?,
                    _ => None,
                };
                self.start = out.last_evaluated_key;
                self.done = self.flooded;
                next
            }
            None => {
                self.done = true;
                None
            }
        };
        Ok(next)
    }
}

/// Where a pager puts the items of a page: a vector of results in order (a stream, a merge), or
/// a query's items and errors ([`Sorted`]).
pub(crate) trait PageSink<T> {
    /// Room for `n` more.
    fn reserve(&mut self, n: usize);
    /// One item of the type read: decoded, or the error naming it.
    fn push(&mut self, read: Result<T, Error>);
}

impl<T> PageSink<T> for Vec<Result<T, Error>> {
    #[inline]
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }

    #[inline]
    fn push(&mut self, read: Result<T, Error>) {
        Vec::push(self, read);
    }
}

/// A query's (or a batch get's) decoded items and the errors of bad ones, apart.
pub(crate) struct Sorted<T> {
    pub(crate) items: Vec<T>,
    pub(crate) errors: Vec<Error>,
}

impl<T> Sorted<T> {
    pub(crate) fn new() -> Self {
        Sorted { items: Vec::new(), errors: Vec::new() }
    }
}

impl<T> PageSink<T> for Sorted<T> {
    #[inline]
    fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }

    #[inline]
    fn push(&mut self, read: Result<T, Error>) {
        match read {
            Ok(item) => self.items.push(item),
            Err(e) => self.errors.push(e),
        }
    }
}

/// Where an item of a shard stands in a merged query: its sort-key value, and its key (to
/// resume after it).
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) sort: Option<aws_sdk_dynamodb::types::AttributeValue>,
    pub(crate) key: crate::cursor::scan::KeyText,
}

impl Mark {
    fn of(schema: &crate::model::entity::EntitySchema, index: Option<&str>, sort: &str, item: &Item) -> Mark {
        Mark {
            sort: item.get(sort).cloned(),
            key: crate::cursor::scan::key_of(schema, index, item).unwrap_or_default(),
        }
    }
}

/// A page of good items, or, if the query read bad items of its entity, [`Error::BadItems`]
/// holding the good items and the cursor.
pub(crate) fn finish<T: Readable>(
    items: Vec<T>,
    errors: Vec<Error>,
    next: Option<Cursor>,
    skipped: u64,
    consumed: Capacity,
) -> Result<Page<T>, Error> {
    let page = Page { items, next, skipped, consumed };
    if errors.is_empty() {
        Ok(page)
    } else {
        Err(Error::BadItems { errors, partial: crate::error::PartialPage::new(page) })
    }
}

/// [`Error::TooManySkipped`] after `pages` pages in a row without an item of `T`, holding the
/// items found before (their bad ones' errors dropped: the page is partial) and the cursor.
pub(crate) fn too_many_skipped<T: Readable>(
    items: Vec<T>,
    errors: Vec<Error>,
    next: Option<Cursor>,
    pages: u32,
    skipped: u64,
    consumed: Capacity,
) -> Error {
    let partial = match finish(items, errors, next, skipped, consumed) {
        Ok(page) => crate::error::PartialPage::new(page),
        Err(Error::BadItems { partial, .. }) => partial,
        Err(e) => return e,
    };
    Error::TooManySkipped { entity: T::NAME, pages, skipped, partial }
}

/// The error of an item without a type attribute whose key is not one of `entity`'s (`keys`:
/// the key attributes; `key`: their texts in the item).
#[cold]
fn unrecognized(
    entity: &'static str,
    keys: (&'static str, Option<&'static str>),
    key: Option<(String, Option<String>)>,
) -> Error {
    Error::Decode {
        entity,
        attribute: keys.1.unwrap_or(keys.0).to_owned(),
        message: format!(
            "the item has no type attribute and its key is not a key of {entity} (stepped over unless the query is strict)"
        ),
        key,
    }
}

impl Table {
    /// One page of the query's entity. Items of other entities in the same key range are
    /// stepped over (read, so they cost read capacity, but never returned and never an error).
    /// With `.limit(n)`: exactly `n` items when there are that many (following DynamoDB's pages
    /// as needed), and `next` resumes right after the last one. Without a limit: one DynamoDB
    /// page (up to 1 MB), or more while pages hold none of the entity's items.
    ///
    /// An item of the entity that cannot be decoded does not hide the others: the query reads
    /// on, and returns [`Error::BadItems`], which holds every bad item's [`Error::Decode`]
    /// (naming its key) and the page of good items with its cursor.
    pub async fn query<T: Readable>(&self, query: impl QueryOptions<Entity = T>) -> Result<Page<T>, Error> {
        let query: Query<T> = query.into_query();
        if query.shards.is_some() {
            return self.query_merged(query).await;
        }
        let limited = query.limit.is_some();
        let mut pager = Pager::new(self, query)?;
        let mut read = Sorted::new();
        loop {
            let next = pager.next_page_into(&mut read).await?;
            let Sorted { items, errors } = read;
            if pager.flooded {
                return Err(too_many_skipped::<T>(items, errors, next, pager.empty_run, pager.skipped, pager.consumed));
            }
            if pager.done || (!limited && (!items.is_empty() || !errors.is_empty())) {
                return finish(items, errors, next, pager.skipped, pager.consumed);
            }
            read = Sorted { items, errors };
        }
    }

    /// Every item the query selects (up to its limit), following every page. Bad items are
    /// reported as in [`Table::query`], after reading to the end.
    pub async fn query_all<T: Readable>(&self, query: impl QueryOptions<Entity = T>) -> Result<Vec<T>, Error> {
        let query: Query<T> = query.into_query();
        if query.shards.is_some() {
            return self.query_all_merged(query).await;
        }
        let mut pager = Pager::new(self, query)?;
        let mut read = Sorted::new();
        pager.max_empty = u32::MAX;
        while !pager.done {
            pager.next_page_into(&mut read).await?;
        }
        finish(read.items, read.errors, None, pager.skipped, pager.consumed).map(|page| page.items)
    }

    /// The items the query selects, as a stream that fetches pages lazily. A bad item of the
    /// entity is one `Err` ([`Error::Decode`], naming its key) and the stream goes on; an error
    /// of a request ends it.
    pub fn query_stream<T: Readable>(
        &self,
        query: impl QueryOptions<Entity = T>,
    ) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        use futures_util::StreamExt;
        let query: Query<T> = query.into_query();
        if query.shards.is_some() {
            return self.query_stream_merged(query).left_stream();
        }
        let pager = Pager::new(self, query).map(|mut p| {
            p.max_empty = u32::MAX;
            p
        });
        futures_util::stream::unfold(Some(pager), |state| async move {
            let mut pager = match state? {
                Ok(p) => p,
                Err(e) => return Some((vec![Err(e)], None)),
            };
            if pager.done {
                return None;
            }
            match pager.next_page().await {
                Ok((items, _)) => Some((items, Some(Ok(pager)))),
                Err(e) => Some((vec![Err(e)], None)),
            }
        })
        .flat_map(futures_util::stream::iter)
        .right_stream()
    }
}

impl crate::error::PartialPage {
    pub(crate) fn new<T: Send + Sync + 'static>(page: Page<T>) -> Self {
        Self { len: page.items.len(), page: Box::new(page) }
    }

    /// The page of good items and the cursor past the last item read; `None` if `T` is not the
    /// item type of the query that failed (the entity, or the collection enum).
    pub fn into_page<T: 'static>(self) -> Option<Page<T>> {
        self.page.downcast::<Page<T>>().ok().map(|b| *b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(n: u32) -> Error {
        Error::Validation(format!("bad {n}"))
    }

    /// A query's sink puts good items and errors apart, in order; a stream's keeps them mixed.
    #[test]
    fn the_sinks_keep_the_order_of_the_page() {
        let mut sorted = Sorted::new();
        let mut mixed: Vec<Result<u8, Error>> = Vec::new();
        for read in [Ok(1u8), Err(bad(2)), Ok(3)] {
            let copy = match &read {
                Ok(v) => Ok(*v),
                Err(e) => Err(Error::Validation(e.to_string())),
            };
            PageSink::reserve(&mut sorted, 1);
            PageSink::push(&mut sorted, read);
            PageSink::push(&mut mixed, copy);
        }
        assert_eq!(sorted.items, [1, 3]);
        assert_eq!(sorted.errors.len(), 1);
        assert_eq!(mixed.iter().map(|r| r.as_ref().ok().copied()).collect::<Vec<_>>(), [Some(1), None, Some(3)]);
    }
}
