//! Scans, for exports and maintenance: every item of an entity or a collection in the table (or
//! in an index), in parallel segments. Access patterns use queries; a scan reads the whole table
//! and pays for every item it reads, including other entities' items, which it steps over.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::{Stream, StreamExt};

use crate::cursor::Cursor;
use crate::cursor::scan::{Binding, KeyText, SCAN, ScanPosition, SegmentPosition, filter_hash, key_of, start_key};
use crate::error::Error;
use crate::expr::Condition;
use crate::model::Item;
use crate::model::collection::Readable;
use crate::ops::query::Filters;
use crate::ops::query::pager::Page;
use crate::send::capacity::{Capacity, Kind, spent};
use crate::table::Table;

/// The most segments DynamoDB allows in a parallel scan.
pub const MAX_SCAN_SEGMENTS: u32 = 1_000_000;

/// A scan of every item of `T` (an entity or a collection): [`Table::scan`].
#[must_use = "a scan does nothing until it is run with `stream()`, `all()` or `page()`"]
pub struct Scan<T> {
    table: Table,
    index: Option<&'static str>,
    segments: u32,
    filter: Option<Condition<()>>,
    limit: Option<u32>,
    consistent_read: bool,
    after: Option<Cursor>,
    /// A view's attributes, and which key fields it reads back from the keys (per index).
    view: Option<ViewAttributes>,
    _item: PhantomData<fn() -> T>,
}

type ViewAttributes = (Vec<&'static str>, fn(Option<&str>) -> &'static [&'static str]);

impl<T> core::fmt::Debug for Scan<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scan")
            .field("table", &self.table.name())
            .field("index", &self.index)
            .field("segments", &self.segments)
            .field("filter", &self.filter)
            .field("limit", &self.limit)
            .field("consistent_read", &self.consistent_read)
            .field("after", &self.after)
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
            after: None,
            view: None,
            _item: PhantomData,
        }
    }
}

/// One segment's scan state.
struct Segment {
    table: Table,
    /// The scanned entity's (or collection's) name, which its capacity is counted for.
    entity: &'static str,
    index: Option<&'static str>,
    segment: Option<(i32, i32)>,
    filter: Option<(String, std::collections::HashMap<String, String>, Item)>,
    /// A view's ProjectionExpression and its names.
    projection: Option<(String, std::collections::HashMap<String, String>)>,
    consistent_read: bool,
    start: Option<Item>,
    done: bool,
}

impl Segment {
    async fn next_page(&mut self) -> Result<Vec<Item>, Error> {
        let (items, last, _) = self.fetch(None).await?;
        match last {
            Some(key) => self.start = Some(key),
            None => self.done = true,
        }
        Ok(items)
    }

    /// One request from `start`, at most `limit` items evaluated: the items and the
    /// `LastEvaluatedKey`. The segment's state is left as it was.
    async fn fetch(&self, limit: Option<i32>) -> Result<(Vec<Item>, Option<Item>, Capacity), Error> {
        let span = tracing::debug_span!(
            "dynamodb",
            operation = "Scan",
            table = self.table.name(),
            index = self.index.unwrap_or(""),
            segment = self.segment.map_or(0, |s| s.0),
            items = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let (filter, mut names, values) = match &self.filter {
            Some((f, n, v)) => (Some(f.clone()), Some(n.clone()), (!v.is_empty()).then(|| v.clone())),
            None => (None, None, None),
        };
        if let Some((_, n)) = &self.projection {
            names.get_or_insert_with(Default::default).extend(n.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        self.table.refuse_on_tenant("a scan: it reads every tenant's items; query the tenant's partitions")?;
        let request = self
            .table
            .client()
            .scan()
            .table_name(self.table.name())
            .set_index_name(self.index.map(str::to_owned))
            .set_segment(self.segment.map(|s| s.0))
            .set_total_segments(self.segment.map(|s| s.1))
            .set_filter_expression(filter)
            .set_projection_expression(self.projection.as_ref().map(|(p, _)| p.clone()))
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .consistent_read(self.consistent_read)
            .set_limit(limit)
            .set_exclusive_start_key(self.start.clone())
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let call = crate::send::Call::new(span, self.entity, self.index);
        let out = crate::send::send(&self.table.meter, &call, request).await.map_err(crate::error::sdk_error)?;
        let consumed = spent(Kind::Read, out.consumed_capacity().map(std::slice::from_ref).unwrap_or_default());
        let items = out.items.unwrap_or_default();
        call.span.record("items", items.len());
        Ok((items, out.last_evaluated_key, consumed))
    }
}

impl<E: crate::model::view::HasFields> Scan<E> {
    /// The same scan, reading view `V` of the entity: a ProjectionExpression of exactly its
    /// attributes (and the keys). Through an index, every field of `V` must be held by it (key
    /// fields are read back from the keys), else [`Error::NotProjected`] before any request.
    /// Read capacity is the same: DynamoDB charges for the whole items read.
    pub fn view<V: crate::model::view::View<Entity = E>>(self) -> Scan<V> {
        Scan {
            table: self.table,
            index: self.index,
            segments: self.segments,
            filter: self.filter,
            limit: self.limit,
            consistent_read: self.consistent_read,
            after: self.after,
            view: Some((V::attributes(), <E as crate::model::view::HasFields>::__key_field_attributes)),
            _item: PhantomData,
        }
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

    /// Resumes where a previous page of the same scan ended (its [`Page::next`]): every segment
    /// goes on from its own position. A cursor of another entity, index, filter or segment
    /// count, or one that was altered, is [`Error::InvalidCursor`].
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.after = Some(cursor);
        self
    }

    fn into_segments(self) -> Result<(Vec<Segment>, Option<u32>, u64), Error> {
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
            .is_some_and(|i| i.kind == crate::model::entity::IndexKind::Global);
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
        // The cursor is bound to the caller's filter; the handle's guard is added to each request.
        let hash = filter_hash(filter.as_ref());
        let reads = self.table.reads(T::NAME, T::__SCHEMAS)?;
        let filter = reads.filter(filter);
        let whole = reads.whole_items;
        let schema = T::schema(self.index);
        let projection = match (&self.view, schema) {
            (Some((attrs, restorable)), Some(schema)) if !whole => {
                Some(crate::model::view::projected(attrs.clone(), schema, self.index, restorable(self.index)))
            }
            _ => None,
        };
        if let (Some(index), Some(schema)) = (self.index, schema) {
            let missing = crate::model::view::not_projected(schema, Some(index), projection.as_deref());
            if !missing.is_empty() {
                return Err(Error::NotProjected { entity: T::NAME, index, missing });
            }
        }
        let projection = projection.map(|attrs| {
            let mut names = std::collections::HashMap::new();
            let text = crate::model::view::projection_expression(&attrs, &mut names);
            (text, names)
        });
        let total = i32::try_from(self.segments).unwrap_or(i32::MAX);
        let schema = T::schema(self.index);
        let positions = match &self.after {
            Some(cursor) => {
                let schema = schema.ok_or_else(|| Error::Validation(format!("{} has no schema", T::NAME)))?;
                let secret = self.table.cursor_secret.as_deref();
                ScanPosition::open(
                    cursor,
                    secret,
                    schema,
                    Binding {
                        kind: SCAN,
                        entity: T::NAME,
                        index: self.index,
                        filter: hash,
                        segments: self.segments as usize,
                    },
                )?
                .segments
            }
            None => vec![SegmentPosition::Start; self.segments as usize],
        };
        let segments = (0..total)
            .zip(positions)
            .map(|(i, position)| {
                let start = match &position {
                    // A position after a key comes from a cursor, which needed the schema.
                    SegmentPosition::After(key) => match schema {
                        Some(schema) => Some(start_key(schema, self.index, key)?),
                        None => return Err(crate::cursor::seal::invalid("a scan without a schema has no positions")),
                    },
                    _ => None,
                };
                Ok(Segment {
                    entity: T::NAME,
                    table: self.table.clone(),
                    index: self.index,
                    segment: (total > 1).then_some((i, total)),
                    filter: filter.clone(),
                    projection: projection.clone(),
                    consistent_read: self.consistent_read,
                    done: position == SegmentPosition::Done,
                    start,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok((segments, self.limit, hash))
    }

    /// One page: a request on every unfinished segment, run concurrently, and, with a
    /// [`limit`](Scan::limit), more rounds until it has that many items or the scan ends. The
    /// page's [`next`](Page::next) resumes every segment where it stopped ([`Scan::after`]);
    /// `None` once every segment is read to its end. Items come segment by segment (a scan has
    /// no order). Bad items of `T` are [`Error::BadItems`] holding the page, as a query's.
    ///
    /// With a limit, each request asks for at most the items still wanted; items read past the
    /// limit in the same round are read again by the next page (they cost capacity twice).
    pub async fn page(self) -> Result<Page<T>, Error> {
        let index = self.index;
        let table = self.table.clone();
        let schema = T::schema(index).ok_or_else(|| Error::Validation(format!("{} has no schema", T::NAME)))?;
        let (mut segments, limit, hash) = self.into_segments()?;
        let mut remaining = limit;
        let mut items = Vec::new();
        let mut errors = Vec::new();
        let mut skipped = 0u64;
        let mut consumed = Capacity::default();
        loop {
            let active: Vec<usize> = (0..segments.len()).filter(|i| !segments[*i].done).collect();
            if active.is_empty() || remaining == Some(0) {
                break;
            }
            let ask = remaining.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
            let rounds = futures_util::future::join_all(active.iter().map(|i| segments[*i].fetch(ask))).await;
            for (i, round) in active.into_iter().zip(rounds) {
                // The limit is reached: later segments keep their positions, their items unread.
                if remaining == Some(0) {
                    break;
                }
                let (raw, last, spent) = round?;
                consumed += spent;
                let count = raw.len();
                let mut stopped: Option<(usize, Option<KeyText>)> = None;
                for (j, item) in raw.into_iter().enumerate() {
                    let key = if remaining == Some(1) { key_of(schema, index, &item) } else { None };
                    let Some(read) = T::read(item) else {
                        skipped += 1;
                        continue;
                    };
                    match read {
                        Ok(x) => {
                            items.push(x);
                            if let Some(n) = &mut remaining {
                                *n -= 1;
                                if *n == 0 {
                                    stopped = Some((j, key));
                                    break;
                                }
                            }
                        }
                        Err(e) => errors.push(e),
                    }
                }
                let segment = &mut segments[i];
                match stopped {
                    Some((j, key)) if j + 1 < count || last.is_some() => {
                        let key = key.ok_or_else(|| {
                            Error::Validation(format!("a scanned item of {} lacks its key attributes", T::NAME))
                        })?;
                        segment.start = Some(start_key(schema, index, &key)?);
                    }
                    Some(_) => segment.done = true,
                    None => match last {
                        Some(key) => segment.start = Some(key),
                        None => segment.done = true,
                    },
                }
            }
            if limit.is_none() {
                break;
            }
        }
        let next = if segments.iter().all(|s| s.done) {
            None
        } else {
            let attrs = crate::cursor::bind::cursor_attrs(schema, index);
            let attr_type = crate::cursor::bind::attr_type;
            let positions = segments
                .iter()
                .map(|s| match (&s.start, s.done) {
                    (_, true) => Ok(SegmentPosition::Done),
                    (None, false) => Ok(SegmentPosition::Start),
                    (Some(key), false) => attrs
                        .iter()
                        .map(|a| match key.get(*a).and_then(|v| attr_type(schema, a).text_of(v)) {
                            Some(text) => Ok(((*a).to_owned(), text)),
                            None => Err(Error::Validation(format!(
                                "the scan cannot resume: its last key lacks `{a}` as a value of its key type"
                            ))),
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map(SegmentPosition::After),
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let position = ScanPosition {
                kind: SCAN,
                entity: T::NAME.to_owned(),
                index: index.unwrap_or("").to_owned(),
                filter: hash,
                segments: positions,
                floor: None,
            };
            Some(position.seal(table.cursor_secret.as_deref())?)
        };
        crate::ops::query::pager::finish(items, errors, next, skipped, consumed)
    }

    /// The items, as a stream; the segments run concurrently and their items interleave (a scan
    /// has no order). A bad item of `T` is one `Err` ([`Error::Decode`], naming its key) and the
    /// stream goes on; an error of a request ends its segment's part of the stream.
    pub fn stream(self) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        let (segments, limit, _) = match self.into_segments() {
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
            Err(Error::BadItems {
                errors,
                partial: crate::error::PartialPage::new(crate::ops::query::pager::Page {
                    items,
                    next: None,
                    skipped: 0,
                    consumed: Capacity::default(),
                }),
            })
        }
    }
}
