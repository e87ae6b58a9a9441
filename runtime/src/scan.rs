//! Scans, for exports and maintenance: every item of an entity or a collection in the table (or
//! in an index), in parallel segments. Access patterns use queries; a scan reads the whole table
//! and pays for every item it reads, including other entities' items, which it steps over.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::{Stream, StreamExt};
use tracing::Instrument;

use crate::collection::Readable;
use crate::expr::Condition;
use crate::query::Filters;
use crate::{Error, Item, Table};

/// The most segments DynamoDB allows in a parallel scan.
pub const MAX_SCAN_SEGMENTS: u32 = 1_000_000;

/// A scan of every item of `T` (an entity or a collection): [`Table::scan`].
#[must_use = "a scan does nothing until it is run with `stream()` or `all()`"]
pub struct Scan<T> {
    table: Table,
    index: Option<&'static str>,
    segments: u32,
    filter: Option<Condition<()>>,
    limit: Option<u32>,
    consistent_read: bool,
    _item: PhantomData<fn() -> T>,
}

impl<T> core::fmt::Debug for Scan<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scan")
            .field("table", &self.table.name())
            .field("index", &self.index)
            .field("segments", &self.segments)
            .field("filter", &self.filter)
            .field("limit", &self.limit)
            .field("consistent_read", &self.consistent_read)
            .finish()
    }
}

impl Table {
    /// A scan of every item of `T` in the table: an entity's items, or a collection's members'
    /// (other entities' items are read and stepped over). For exports and maintenance; access
    /// patterns use queries.
    pub fn scan<T: Readable>(&self) -> Scan<T> {
        Scan {
            table: self.clone(),
            index: None,
            segments: 1,
            filter: None,
            limit: None,
            consistent_read: false,
            _item: PhantomData,
        }
    }
}

/// One segment's scan state.
struct Segment {
    table: Table,
    index: Option<&'static str>,
    segment: Option<(i32, i32)>,
    filter: Option<(String, std::collections::HashMap<String, String>, Item)>,
    consistent_read: bool,
    start: Option<Item>,
    done: bool,
}

impl Segment {
    async fn next_page(&mut self) -> Result<Vec<Item>, Error> {
        let span = tracing::debug_span!(
            "dynamodb",
            operation = "Scan",
            table = self.table.name(),
            index = self.index.unwrap_or(""),
            segment = self.segment.map_or(0, |s| s.0),
            items = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let (filter, names, values) = match &self.filter {
            Some((f, n, v)) => (Some(f.clone()), Some(n.clone()), (!v.is_empty()).then(|| v.clone())),
            None => (None, None, None),
        };
        let out = self
            .table
            .client()
            .scan()
            .table_name(self.table.name())
            .set_index_name(self.index.map(str::to_owned))
            .set_segment(self.segment.map(|s| s.0))
            .set_total_segments(self.segment.map(|s| s.1))
            .set_filter_expression(filter)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .consistent_read(self.consistent_read)
            .set_exclusive_start_key(self.start.take())
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .instrument(span.clone())
            .await
            .map_err(crate::error::sdk_error)?;
        if let Some(units) = out.consumed_capacity().and_then(|c| c.capacity_units()) {
            span.record("consumed_capacity", units);
        }
        let items = out.items.unwrap_or_default();
        span.record("items", items.len());
        match out.last_evaluated_key {
            Some(key) => self.start = Some(key),
            None => self.done = true,
        }
        Ok(items)
    }
}

impl<T: Readable> Scan<T> {
    /// Scans the index `name` instead of the table (a sparse index holds fewer items).
    pub fn index(mut self, name: &'static str) -> Self {
        self.index = Some(name);
        self
    }

    /// Splits the scan into `n` segments that run concurrently (DynamoDB's parallel scan; at
    /// most [`MAX_SCAN_SEGMENTS`]).
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n;
        self
    }

    /// Only items that satisfy `condition`, applied by DynamoDB after reading (every item read
    /// costs read capacity); `limit` still counts items returned.
    pub fn filter<S: Filters<T>>(mut self, condition: Condition<S>) -> Self {
        Condition::and_into(&mut self.filter, condition.cast());
        self
    }

    /// At most `n` items in all.
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Strongly consistent reads (not on global indexes).
    pub fn consistent_read(mut self) -> Self {
        self.consistent_read = true;
        self
    }

    fn into_segments(self) -> Result<(Vec<Segment>, Option<u32>), Error> {
        if self.segments == 0 || self.segments > MAX_SCAN_SEGMENTS {
            return Err(Error::Validation(format!(
                "segments({}): a scan has 1 to {MAX_SCAN_SEGMENTS} segments",
                self.segments
            )));
        }
        if self.limit == Some(0) {
            return Err(Error::Validation("limit(0): a scan must ask for at least one item".into()));
        }
        if self.index.is_some() && T::schema(self.index).is_none() {
            return Err(Error::Validation(format!("{} has no index {:?}", T::NAME, self.index)));
        }
        let global = self
            .index
            .and_then(|i| T::schema(Some(i)).and_then(|s| s.index(i)))
            .is_some_and(|i| i.kind == crate::IndexKind::Global);
        if global && self.consistent_read {
            return Err(Error::Validation(
                "consistent_read() on a global secondary index: DynamoDB only reads GSIs eventually consistently"
                    .into(),
            ));
        }
        let filter = match &self.filter {
            Some(f) => {
                let mut names = std::collections::HashMap::new();
                let mut values = Item::new();
                let text = f.render(&mut names, &mut values).map_err(Error::Validation)?;
                Some((text, names, values))
            }
            None => None,
        };
        let total = i32::try_from(self.segments).unwrap_or(i32::MAX);
        let segments = (0..total)
            .map(|i| Segment {
                table: self.table.clone(),
                index: self.index,
                segment: (total > 1).then_some((i, total)),
                filter: filter.clone(),
                consistent_read: self.consistent_read,
                start: None,
                done: false,
            })
            .collect();
        Ok((segments, self.limit))
    }

    /// The items, as a stream; the segments run concurrently and their items interleave (a scan
    /// has no order). A bad item of `T` is one `Err` ([`Error::Decode`], naming its key) and the
    /// stream goes on; an error of a request ends its segment's part of the stream.
    pub fn stream(self) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        let (segments, limit) = match self.into_segments() {
            Ok(s) => s,
            Err(e) => return futures_util::stream::iter(vec![Err(e)]).left_stream(),
        };
        let per_segment = segments.into_iter().map(|segment| {
            futures_util::stream::unfold(segment, |mut segment| async move {
                if segment.done {
                    return None;
                }
                match segment.next_page().await {
                    Ok(items) => {
                        let read: Vec<Result<T, Error>> = items.into_iter().filter_map(T::read).collect();
                        Some((read, segment))
                    }
                    Err(e) => {
                        segment.done = true;
                        Some((vec![Err(e)], segment))
                    }
                }
            })
            .flat_map(futures_util::stream::iter)
            .boxed()
        });
        let all = futures_util::stream::select_all(per_segment);
        // `limit` counts items returned; errors do not count.
        let mut left = limit;
        all.take_while(move |item| {
            let go = left != Some(0);
            if let (true, Some(n), Ok(_)) = (go, &mut left, item) {
                *n -= 1;
            }
            futures_util::future::ready(go)
        })
        .right_stream()
    }

    /// Every item (up to the limit). Bad items are reported as by [`Table::query_all`]:
    /// [`Error::BadItems`] holding every good item.
    pub async fn all(self) -> Result<Vec<T>, Error> {
        let mut items = Vec::new();
        let mut errors = Vec::new();
        let mut stream = std::pin::pin!(self.stream());
        while let Some(item) = stream.next().await {
            match item {
                Ok(x) => items.push(x),
                Err(e @ Error::Decode { .. }) => errors.push(e),
                Err(e) => return Err(e),
            }
        }
        if errors.is_empty() {
            Ok(items)
        } else {
            Err(Error::BadItems { errors, partial: crate::PartialPage::new(crate::Page { items, next: None }) })
        }
    }
}
