//! Typed queries: what the generated `query_*` builders produce, as a plain description that
//! can be inspected without a database and executed by the `Table`.
//!
//! # Exact sort-key conditions
//!
//! A sort key is written as `Q + text(v) + T`: `Q` the text before the placeholder (literals and
//! components already fixed by `eq` conditions), `text(v)` the component, `T` the literal after
//! it (empty or starting with `#`). Component text never holds a byte below `%` (see
//! [`crate::key`]), so keys sort by component first, and every condition becomes one key
//! condition that selects exactly the values it means, restricted to keys starting with `Q`:
//!
//! | condition | key condition |
//! |---|---|
//! | none | `begins_with(SK, Q)` |
//! | `eq(t)` | `begins_with(SK, Q+t+T)`, or `SK = Q+t+T` on the last placeholder |
//! | `gte(t)` | `SK BETWEEN Q+t AND max(Q)` |
//! | `gt(t)` | `SK BETWEEN Q+t+"$" AND max(Q)` (`$` sorts between `#` and any component byte) |
//! | `lte(t)` | `SK BETWEEN Q AND max(Q+t+T)`, or `… AND Q+t+T` on the last placeholder |
//! | `lt(t)` | `SK BETWEEN Q AND pred(Q+t)` |
//! | `between(a, b)` | lower bound of `gte(a)`, upper bound of `lte(b)` |
//!
//! `max(P)` is the greatest string of at most 1,024 bytes (DynamoDB's sort-key limit) that
//! starts with `P`, and `pred(P)` the greatest such string below `P`, so no stored key of this
//! entity can fall outside a bound it should be inside. With an empty `Q` the bound on that side
//! is dropped (`SK >= …`, `SK <= …`). A range that is empty (`gt` of the greatest value,
//! `between(b, a)`) is [`SortCondition::Nothing`] and is answered without a request; its
//! [`QueryRequest`] says so ([`QueryRequest::selects_nothing`]), and its key condition,
//! `SK < "\0"`, selects no item if it is sent anyway (a key is never empty), never a wider read.
//!
//! # Values wider than their placeholder
//!
//! A `<field:N>` placeholder holds values of at most `N` digits; writing a wider one is a key
//! error. In a *range* condition such a value is simply greater than every value the key can
//! hold, so it is not an error: `gt`/`gte` of it, and `between` from it, select nothing
//! ([`SortCondition::Nothing`]); `lt`/`lte` of it select every value (no condition on that
//! placeholder: `begins_with(SK, Q)`); `between(a, wide)` is `gte(a)`. `eq` of such a value,
//! and every other unwritable value (a negative number in a padded placeholder, a time outside
//! years 0000–9999), stay [`Error::Key`].

mod attr;
pub(crate) mod bind;
mod collection;
pub(crate) mod level;
pub(crate) mod merge;
pub(crate) mod pager;
pub(crate) mod sort;

pub use crate::key::level::{LevelSpec, LevelText};
pub use level::{How, Level, QueryLevel, SortKey};
use sort::*;
pub use sort::{SortCondition, SortOp};

use std::collections::HashMap;
use std::marker::PhantomData;

use crate::cursor::Cursor;
use crate::error::Error;
use crate::error::KeyError;
use crate::key::attr::AttributeType;
use crate::key::shard::ShardFn;
pub(crate) use crate::key::shard::Shards;
use crate::model::MAX_SORT_KEY_BYTES;
use aws_sdk_dynamodb::types::AttributeValue;

/// A typed query of entity `E`, built by the generated `query_*` functions.
pub struct Query<E> {
    pub(crate) index: Option<&'static str>,
    global: bool,
    pk_attr: &'static str,
    pub(crate) pk: String,
    pub(crate) sk_attr: Option<&'static str>,
    pub(crate) sort: SortCondition,
    /// Equalities a multi-attribute index's key condition holds besides `pk` and `sort`: its
    /// other partition-key attributes, then the sort-key attributes fixed by `eq` before the
    /// one `sort` is on (attribute, type, value as text). Empty for every other query.
    pub(crate) also: Vec<(&'static str, AttributeType, String)>,
    pub(crate) descending: bool,
    pub(crate) limit: Option<u32>,
    pub(crate) consistent_read: bool,
    pub(crate) after: Option<Cursor>,
    error: Option<KeyError>,
    pub(crate) filter: Option<crate::expr::Condition<()>>,
    pub(crate) projection: Option<Vec<&'static str>>,
    /// The types of the partition and sort keys (S but for keys on a field's own attribute).
    pub(crate) key_types: (AttributeType, AttributeType),
    /// Items without a type attribute whose key is not `E`'s are errors, not stepped over.
    pub(crate) strict: bool,
    /// How many DynamoDB pages in a row without an item of `E` one `Table::query` reads.
    pub(crate) max_empty_pages: u32,
    /// Why the query cannot be sent (a condition its members cannot share), reported by
    /// `request` as [`Error::Validation`].
    pub(crate) invalid: Option<String>,
    /// The shards of a sharded partition that the query reads and merges (`None`: one
    /// partition, `pk`).
    pub(crate) shards: Option<Box<Shards>>,
    /// For a partition key on a field's own attribute of an entity with a tenant: the entity
    /// that wrote the query and its tenant's key text (the tenant field's value as the table's
    /// partition key writes it), which a tenant handle compares with its id
    /// ([`crate::model::tenant`]); `None` when the text could not be written.
    pub(crate) tenant_key: Option<(&'static str, String)>,
    _entity: PhantomData<fn() -> E>,
}

/// The options of every query, written once: of a [`Query`] and of the generated query types
/// that still take a sort-key condition (`Message::query_by_room(r)`, `.ts().eq(t)`). In
/// `dynamo_entity::prelude`.
pub trait QueryOptions: Sized {
    /// The items the query reads: an entity, a view of one, or a collection.
    type Entity;

    /// The query so far. Implemented by generated code.
    #[doc(hidden)]
    fn __into_level(self) -> QueryLevel<Self::Entity>;

    /// The query so far, borrowed. Implemented by generated code.
    #[doc(hidden)]
    fn __query(&self) -> &Query<Self::Entity>;

    /// The query narrowed by `eq` to a placeholder, or with options set. Implemented by
    /// generated code.
    #[doc(hidden)]
    fn __from_level(level: QueryLevel<Self::Entity>) -> Self;

    /// The query with `f` applied to it (its options), of the same type.
    #[doc(hidden)]
    #[inline]
    fn __map(self, f: impl FnOnce(&mut Query<Self::Entity>)) -> Self {
        let mut level = self.__into_level();
        f(&mut level.q);
        Self::__from_level(level)
    }

    /// The query with no further sort-key condition.
    #[inline]
    fn into_query(self) -> Query<Self::Entity> {
        self.__into_level().q
    }

    /// Items that also satisfy `condition`, which DynamoDB applies after the key condition: the
    /// items it filters out are still read (they cost read capacity and count towards DynamoDB's
    /// own page limit), but `limit(n)` still counts items returned. Several filters all apply.
    /// On a collection query, the condition is on one of the members' fields.
    #[inline]
    fn filter<S: Filters<Self::Entity>>(self, condition: crate::expr::Condition<S>) -> Self {
        self.__map(|q| crate::expr::Condition::and_into(&mut q.filter, condition.cast()))
    }

    /// Greatest sort key first (newest first for time-ordered keys).
    #[inline]
    fn descending(self) -> Self {
        self.__map(|q| q.descending = true)
    }

    /// At most `n` items in the result. DynamoDB's own `Limit` counts items *evaluated*; this
    /// one counts items *returned*: the runtime follows pages until it has `n` or the end.
    #[inline]
    fn limit(self, n: u32) -> Self {
        self.__map(|q| q.limit = Some(n))
    }

    /// Strongly consistent read, of the table or a local index. DynamoDB refuses it on a global
    /// secondary index: such a query is [`Error::Validation`] before anything is sent.
    #[inline]
    fn consistent_read(self) -> Self {
        self.__map(|q| q.consistent_read = true)
    }

    /// Items in the query's key range that have no type attribute and whose key does not parse
    /// as one of the entity's (written by other code in another layout: `v1` where the template
    /// says `v<version>`) are errors ([`Error::Decode`] naming the key, reported as
    /// [`Error::BadItems`] beside the good items), instead of being stepped over and counted in
    /// [`Page::skipped`](crate::Page::skipped).
    #[inline]
    fn strict(self) -> Self {
        self.__map(|q| q.strict = true)
    }

    /// How many DynamoDB pages in a row without one item of the entity one `Table::query` reads
    /// before it stops with [`Error::TooManySkipped`] ([`DEFAULT_MAX_EMPTY_PAGES`] unless set).
    /// Of a sharded query the bound holds per shard: the page stops when one shard has read that
    /// many. `query_all` and `query_stream` read on.
    #[inline]
    fn max_empty_pages(self, pages: u32) -> Self {
        self.__map(|q| q.max_empty_pages = pages.max(1))
    }

    /// Resume after the last item of a previous page (its [`crate::Page::next`]). The cursor is
    /// valid only for the query that made it (another limit aside), and is checked against this
    /// query when it runs: one of another entity, index, partition, direction, sort-key
    /// condition or filter, outside the key condition, or holding a key value DynamoDB would
    /// refuse, is [`Error::InvalidCursor`], and nothing is sent.
    #[inline]
    fn after(self, cursor: Cursor) -> Self {
        self.__map(|q| q.after = Some(cursor))
    }

    /// The same query, reading view `V` of the entity (see [`Query::view`]): the query with no
    /// further sort-key condition.
    #[inline]
    fn view<V: crate::model::view::View<Entity = Self::Entity>>(self) -> Query<V>
    where
        Self::Entity: crate::model::view::HasFields,
    {
        self.into_query().view::<V>()
    }

    /// The request this query sends, or why it cannot be sent (of a sharded query that reads
    /// several shards, the first shard's: see [`Query::requests`]).
    #[inline]
    fn request(&self) -> Result<QueryRequest, Error>
    where
        Self::Entity: crate::model::collection::Readable,
    {
        self.__query().request()
    }
}

impl<E> QueryOptions for Query<E> {
    type Entity = E;

    #[inline]
    fn __into_level(self) -> QueryLevel<E> {
        QueryLevel { q: self, prefix: String::new() }
    }

    #[inline]
    fn __query(&self) -> &Query<E> {
        self
    }

    #[inline]
    fn __from_level(level: QueryLevel<E>) -> Self {
        level.q
    }

    #[inline]
    fn __map(mut self, f: impl FnOnce(&mut Query<E>)) -> Self {
        f(&mut self);
        self
    }

    #[inline]
    fn into_query(self) -> Query<E> {
        self
    }
}

/// How many DynamoDB pages in a row without one item of its entity one `Table::query` reads
/// before it stops with [`Error::TooManySkipped`] (16 pages of up to 1 MB), by default.
pub const DEFAULT_MAX_EMPTY_PAGES: u32 = 16;

impl<E> Clone for Query<E> {
    fn clone(&self) -> Self {
        Query {
            index: self.index,
            global: self.global,
            pk_attr: self.pk_attr,
            pk: self.pk.clone(),
            sk_attr: self.sk_attr,
            sort: self.sort.clone(),
            also: self.also.clone(),
            descending: self.descending,
            limit: self.limit,
            consistent_read: self.consistent_read,
            after: self.after.clone(),
            error: self.error.clone(),
            filter: self.filter.clone(),
            projection: self.projection.clone(),
            key_types: self.key_types,
            strict: self.strict,
            max_empty_pages: self.max_empty_pages,
            invalid: self.invalid.clone(),
            shards: self.shards.clone(),
            tenant_key: self.tenant_key.clone(),
            _entity: PhantomData,
        }
    }
}

impl<E> core::fmt::Debug for Query<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Query")
            .field("entity", &core::any::type_name::<E>())
            .field("index", &self.index)
            .field("pk", &self.pk)
            .field("sort", &self.sort)
            .field("descending", &self.descending)
            .field("limit", &self.limit)
            .field("consistent_read", &self.consistent_read)
            .field("after", &self.after)
            .field("error", &self.error)
            .field("shards", &self.shards.as_ref().map(|s| s.partitions.len()))
            .finish()
    }
}

/// A query as DynamoDB's Query API takes it.
///
/// A query whose sort-key range is empty (`.ts().between(5, 4)`) has nothing to read:
/// [`QueryRequest::selects_nothing`] is true and `Table` sends no request. Its key condition
/// (`#pk = :pk AND #sk < :none`, `:none` being `"\0"`, below every non-empty key) selects no
/// item if you send it yourself.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    /// The index, or `None` for the table.
    pub index_name: Option<&'static str>,
    /// The partition-key value.
    pub partition_key: String,
    /// The sort-key condition, structured.
    pub sort_condition: SortCondition,
    /// `KeyConditionExpression`, with every name and value behind a placeholder.
    pub key_condition_expression: String,
    /// `ExpressionAttributeNames`.
    pub expression_attribute_names: HashMap<String, String>,
    /// `ExpressionAttributeValues`.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// `ScanIndexForward`: `false` for `.descending()`.
    pub scan_index_forward: bool,
    /// The most items the result holds (not DynamoDB's "items evaluated").
    pub limit: Option<u32>,
    /// `ConsistentRead`.
    pub consistent_read: bool,
    /// `FilterExpression`, applied by DynamoDB after the key condition.
    pub filter_expression: Option<String>,
    /// `ProjectionExpression`, for a view: the attributes read.
    pub projection_expression: Option<String>,
}

impl QueryRequest {
    /// Whether the sort-key condition is an empty range: sending the request returns no item,
    /// so there is no need to send it.
    pub fn selects_nothing(&self) -> bool {
        self.sort_condition == SortCondition::Nothing
    }
}

impl<E> Query<E> {
    /// Starts a query on a partition. Called by generated code.
    #[doc(hidden)]
    pub fn __new(
        index: Option<&'static str>,
        global: bool,
        pk_attr: &'static str,
        pk: Result<String, KeyError>,
        sk_attr: Option<&'static str>,
        sort: SortCondition,
    ) -> Self {
        let (pk, error) = match pk {
            Ok(pk) => (pk, None),
            Err(e) => (String::new(), Some(e)),
        };
        Query {
            index,
            global,
            pk_attr,
            pk,
            sk_attr,
            sort,
            also: Vec::new(),
            descending: false,
            limit: None,
            consistent_read: false,
            after: None,
            error,
            filter: None,
            projection: None,
            key_types: (AttributeType::S, AttributeType::S),
            strict: false,
            max_empty_pages: DEFAULT_MAX_EMPTY_PAGES,
            invalid: None,
            shards: None,
            tenant_key: None,
            _entity: PhantomData,
        }
    }

    /// The partition is sharded and the query reads every shard (`partition(s)` formats shard
    /// `s`'s key), unless its `shard_by` fields (`by`; `known`: the texts of those the
    /// partition fixes) are fixed, here or by a sort-key condition. Called by generated code.
    #[doc(hidden)]
    pub fn __sharded<const K: usize>(
        self,
        shards: u16,
        partition: impl Fn(u16) -> Result<String, KeyError>,
        by: &'static [&'static str],
        known: [Option<Result<String, KeyError>>; K],
    ) -> Self {
        self.__sharded_with(shards, partition, by, known, crate::key::shard::fnv1a_shard)
    }

    /// [`Query::__sharded`] of a key whose `shard_fn` is `hash`. Called by generated code.
    #[doc(hidden)]
    pub fn __sharded_with<const K: usize>(
        mut self,
        shards: u16,
        partition: impl Fn(u16) -> Result<String, KeyError>,
        by: &'static [&'static str],
        known: [Option<Result<String, KeyError>>; K],
        hash: ShardFn,
    ) -> Self {
        match Shards::build(shards, partition, by, known, hash, self.pk_attr).and_then(Shards::start) {
            Ok(start) => {
                (self.pk, self.shards) = start;
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// A sort-key condition fixed `field` to key text `text`: if it is a `shard_by` field and
    /// the last one unknown, the query reads that one shard.
    pub(crate) fn fix_shard_field(&mut self, field: &str, text: &str) {
        if let Some(shards) = self.shards.as_mut()
            && shards.fix(field, text)
        {
            self.narrow_shards();
        }
    }

    fn narrow_shards(&mut self) {
        match self.shards.as_ref().map(|s| s.fixed()) {
            Some(Ok(Some(pk))) => {
                self.pk = pk;
                self.shards = None;
            }
            Some(Err(e)) => {
                self.error.get_or_insert(e);
                self.sort = SortCondition::Nothing;
            }
            _ => {}
        }
    }

    /// Reads only the shard `pk` (a partition of this query's shards). Crate-internal.
    pub(crate) fn narrow_to(&mut self, pk: &str) -> bool {
        match &self.shards {
            Some(s) if s.partitions.iter().any(|p| p == pk) => {
                self.pk = pk.to_owned();
                self.shards = None;
                true
            }
            _ => false,
        }
    }

    /// The partition-key values the query reads: one, or every shard's of a sharded partition
    /// whose shard the query does not fix (read concurrently and merged in sort-key order).
    pub fn partition_keys(&self) -> Vec<&str> {
        match &self.shards {
            Some(s) => s.partitions.iter().map(String::as_str).collect(),
            None => vec![self.pk.as_str()],
        }
    }

    /// The same query on one partition (a shard of a sharded query), from its start.
    pub(crate) fn on_partition(&self, pk: &str) -> Self {
        let mut q = self.clone();
        q.pk = pk.to_owned();
        q.shards = None;
        q.after = None;
        q
    }

    pub(crate) fn fail(mut self, e: KeyError) -> Self {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.sort = SortCondition::Nothing;
        self
    }

    /// `eq` on a placeholder: fixes it. `last`: no placeholder follows. Returns the query and
    /// the new fixed prefix. Called by generated code and [`SortKey`].
    #[doc(hidden)]
    pub fn __eq(self, prefix: &str, value: Result<String, KeyError>, after: &str, last: bool) -> (Self, String) {
        match sort_eq(prefix, value, after, last) {
            Ok((sort, fixed)) => (Query { sort, ..self }, fixed),
            Err(e) => (self.fail(e), String::new()),
        }
    }

    /// The whole sort key is known (its placeholders are all partition-key fields): the query
    /// reads that one key. Called by generated code.
    #[doc(hidden)]
    pub fn __exact(self, sk: Result<String, KeyError>) -> Self {
        self.with_sort(sk.map(SortCondition::Equals))
    }

    /// A comparison on a placeholder. Called by [`SortKey`].
    #[doc(hidden)]
    pub fn __cmp(self, prefix: &str, op: SortOp, value: Result<String, KeyError>, after: &str, last: bool) -> Self {
        self.with_sort(sort_cmp(prefix, op, value, after, last))
    }

    /// An inclusive range on a placeholder. Called by [`SortKey`].
    #[doc(hidden)]
    pub fn __between(
        self,
        prefix: &str,
        from: Result<String, KeyError>,
        to: Result<String, KeyError>,
        after: &str,
        last: bool,
    ) -> Self {
        self.with_sort(sort_between(prefix, from, to, after, last))
    }

    /// A multi-attribute index's key condition also holds `attr = value` (a partition-key
    /// attribute after the first). Called by generated code.
    #[doc(hidden)]
    pub fn __also(mut self, attr: &'static str, ty: AttributeType, value: Result<String, KeyError>) -> Self {
        match value {
            Ok(v) => {
                self.also.push((attr, ty, v));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// The tenant's key text of a query whose partition key is a field's own attribute, for an
    /// entity (`entity`, its type name) with a tenant: what a tenant handle compares with its id
    /// (a number attribute holds `7` where the tenant's key text is `0000000007`). Called by
    /// generated code.
    #[doc(hidden)]
    pub fn __tenant_key(mut self, entity: &'static str, text: Result<String, KeyError>) -> Self {
        self.tenant_key = text.ok().map(|t| (entity, t));
        self
    }

    /// `eq` on a multi-attribute index's sort-key attribute that another follows: fixes it,
    /// and the conditions that follow are on `next` (of type `ty`). Called by [`SortKey`].
    #[doc(hidden)]
    pub fn __also_then(self, value: Result<String, KeyError>, next: &'static str, ty: AttributeType) -> Self {
        let Some(attr) = self.sk_attr else { return self };
        let current = self.key_types.1;
        let mut q = self.__also(attr, current, value);
        q.sk_attr = Some(next);
        q.key_types.1 = ty;
        q
    }

    /// The same query for another item type (a view of the entity). Crate-internal.
    pub(crate) fn retype<F>(self) -> Query<F> {
        Query {
            index: self.index,
            global: self.global,
            pk_attr: self.pk_attr,
            pk: self.pk,
            sk_attr: self.sk_attr,
            sort: self.sort,
            also: self.also,
            descending: self.descending,
            limit: self.limit,
            consistent_read: self.consistent_read,
            after: self.after,
            error: self.error,
            filter: self.filter,
            projection: self.projection,
            key_types: self.key_types,
            strict: self.strict,
            max_empty_pages: self.max_empty_pages,
            invalid: self.invalid,
            shards: self.shards,
            tenant_key: self.tenant_key,
            _entity: PhantomData,
        }
    }

    /// Reads only these attributes. Crate-internal (views).
    pub(crate) fn with_projection(mut self, attrs: Vec<&'static str>) -> Self {
        self.projection = Some(attrs);
        self
    }

    /// Replaces the sort condition (or records why it cannot be built). Used by collection
    /// queries' narrowing.
    pub(crate) fn with_sort(self, sort: Result<SortCondition, KeyError>) -> Self {
        match sort {
            Ok(sort) => Query { sort, ..self },
            Err(e) => self.fail(e),
        }
    }

    /// The index queried (`None` for the table).
    pub fn index_name(&self) -> Option<&'static str> {
        self.index
    }

    /// The sort-key condition.
    pub fn sort_condition(&self) -> &SortCondition {
        &self.sort
    }
}

impl<E: crate::model::collection::Readable> Query<E> {
    /// The requests a sharded query sends first, one per shard (see [`Query::partition_keys`]);
    /// the one [`Query::request`] of any other query.
    pub fn requests(&self) -> Result<Vec<QueryRequest>, Error> {
        match &self.shards {
            Some(s) => s.partitions.iter().map(|p| self.on_partition(p).request()).collect(),
            None => Ok(vec![self.request()?]),
        }
    }

    /// The request this query sends, or why it cannot be sent (of a sharded query that reads
    /// several shards, the first shard's: see [`Query::requests`]).
    pub fn request(&self) -> Result<QueryRequest, Error> {
        if let Some(reason) = &self.invalid {
            return Err(Error::Validation(reason.clone()));
        }
        // The work is in a function that does not depend on `E`: compiled once in this crate,
        // not once per entity in the crate that defines it.
        // Only a filter is checked against the key attributes: no allocation for the others.
        let key_attrs = match &self.filter {
            Some(_) => key_attrs_of(E::schema(self.index), self.index),
            None => Vec::new(),
        };
        request_of(&QueryParts {
            index: self.index,
            global: self.global,
            pk_attr: self.pk_attr,
            pk: &self.pk,
            sk_attr: self.sk_attr,
            sort: &self.sort,
            also: &self.also,
            descending: self.descending,
            limit: self.limit,
            consistent_read: self.consistent_read,
            error: self.error.as_ref(),
            filter: self.filter.as_ref(),
            projection: self.projection.as_deref(),
            key_types: self.key_types,
            key_attrs: &key_attrs,
        })
    }
}

/// Every key attribute of the table (`index` `None`) or index a query reads: DynamoDB refuses a
/// filter on any of them (they belong in the key condition).
fn key_attrs_of(schema: Option<&'static crate::model::entity::EntitySchema>, index: Option<&str>) -> Vec<&'static str> {
    let Some(schema) = schema else { return Vec::new() };
    match index.and_then(|n| schema.index(n)) {
        Some(i) => {
            let pk = if i.partition_keys().is_empty() { std::slice::from_ref(&schema.pk) } else { i.partition_keys() };
            pk.iter().chain(i.sort_keys()).map(|k| k.attr).collect()
        }
        None => std::iter::once(&schema.pk).chain(schema.sk.iter()).map(|k| k.attr).collect(),
    }
}

/// The key attribute a filter names at the top level of one of its paths, if any: `#c3` in
/// `#c3 = :c0`, not `#c5` in `#c4.#c5` (a map's member of the same name).
fn filter_key_attr<'k>(expression: &str, names: &HashMap<String, String>, key_attrs: &[&'k str]) -> Option<&'k str> {
    let bytes = expression.as_bytes();
    let mut at = 0;
    while let Some(found) = expression[at..].find("#c") {
        let start = at + found;
        let mut end = start + 2;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        at = end;
        if start > 0 && bytes[start - 1] == b'.' {
            continue;
        }
        if let Some(attr) = names.get(&expression[start..end])
            && let Some(k) = key_attrs.iter().find(|k| **k == attr.as_str())
        {
            return Some(k);
        }
    }
    None
}

// The sort conditions of the generated conditions, as functions that do not depend on the
// entity: compiled once in this crate, not once per entity.

/// The fields of a [`Query`] that its request is built from, borrowed.
struct QueryParts<'a> {
    index: Option<&'static str>,
    global: bool,
    pk_attr: &'static str,
    pk: &'a str,
    sk_attr: Option<&'static str>,
    sort: &'a SortCondition,
    also: &'a [(&'static str, AttributeType, String)],
    descending: bool,
    limit: Option<u32>,
    consistent_read: bool,
    error: Option<&'a KeyError>,
    filter: Option<&'a crate::expr::Condition<()>>,
    projection: Option<&'a [&'static str]>,
    key_types: (AttributeType, AttributeType),
    /// Every key attribute of the table or index queried.
    key_attrs: &'a [&'static str],
}

/// The placeholders of the key attributes after the partition's first (`also`).
const ALSO_PLACEHOLDERS: [(&str, &str); 7] =
    [("#k0", ":k0"), ("#k1", ":k1"), ("#k2", ":k2"), ("#k3", ":k3"), ("#k4", ":k4"), ("#k5", ":k5"), ("#k6", ":k6")];

/// [`Query::request`], for every entity.
fn request_of(q: &QueryParts<'_>) -> Result<QueryRequest, Error> {
    if let Some(e) = q.error {
        return Err(crate::key::attr::query_error(e));
    }
    crate::codec::check_key_size(q.pk_attr, q.pk, crate::model::MAX_PARTITION_KEY_BYTES)?;
    if q.sk_attr.is_none() && *q.sort == SortCondition::Nothing {
        return Err(Error::Validation("an empty sort-key range on a key without sort key".into()));
    }
    if q.global && q.consistent_read {
        return Err(Error::Validation(
            "consistent_read() on a global secondary index: DynamoDB only reads GSIs eventually consistently".into(),
        ));
    }
    if q.limit == Some(0) {
        return Err(Error::Validation("limit(0): a query must ask for at least one item".into()));
    }
    // Sized for every placeholder the request may hold: a map that grows rehashes.
    let mut names = HashMap::with_capacity(2 + q.also.len());
    let mut values = HashMap::with_capacity(3 + q.also.len());
    names.insert("#pk".to_owned(), q.pk_attr.to_owned());
    let (pk_type, sk_type) = q.key_types;
    let typed = |ty: AttributeType, text: &str| {
        ty.value(text).ok_or_else(|| Error::Validation(format!("`{text}` is not {}", ty.describe())))
    };
    values.insert(":pk".to_owned(), typed(pk_type, q.pk)?);
    let mut expr = String::from("#pk = :pk");
    for (n, (attr, ty, v)) in q.also.iter().enumerate() {
        if v.is_empty() && *ty != AttributeType::N {
            return Err(Error::Validation(format!(
                "an empty value of key attribute `{attr}`: DynamoDB keys are never empty"
            )));
        }
        // A multi-attribute index has at most 4 + 4 key attributes: 7 besides the first.
        let (name, value) = ALSO_PLACEHOLDERS
            .get(n)
            .map_or_else(|| (format!("#k{n}"), format!(":k{n}")), |(k, v)| ((*k).to_owned(), (*v).to_owned()));
        expr.push_str(" AND ");
        expr.push_str(&name);
        expr.push_str(" = ");
        expr.push_str(&value);
        names.insert(name, (*attr).to_owned());
        values.insert(value, typed(*ty, v)?);
    }
    if let Some(sk_attr) = q.sk_attr {
        let sk_expr = match q.sort {
            SortCondition::Any => None,
            SortCondition::Nothing => {
                // No sort key is below "\0": DynamoDB rejects empty keys.
                values.insert(":none".to_owned(), AttributeValue::S("\0".to_owned()));
                Some("#sk < :none")
            }
            SortCondition::BeginsWith(p) => {
                values.insert(":sk".to_owned(), typed(sk_type, p)?);
                Some("begins_with(#sk, :sk)")
            }
            SortCondition::Equals(v) => {
                values.insert(":sk".to_owned(), typed(sk_type, v)?);
                Some("#sk = :sk")
            }
            SortCondition::Below(v) => {
                values.insert(":sk".to_owned(), typed(sk_type, v)?);
                Some("#sk < :sk")
            }
            SortCondition::Above(v) => {
                values.insert(":sk".to_owned(), typed(sk_type, v)?);
                Some("#sk > :sk")
            }
            SortCondition::Range { lower, upper } => {
                if let Some(l) = lower {
                    values.insert(":lo".to_owned(), typed(sk_type, l)?);
                }
                if let Some(u) = upper {
                    values.insert(":hi".to_owned(), typed(sk_type, u)?);
                }
                match (lower, upper) {
                    (Some(_), Some(_)) => Some("#sk BETWEEN :lo AND :hi"),
                    (Some(_), None) => Some("#sk >= :lo"),
                    (None, Some(_)) => Some("#sk <= :hi"),
                    (None, None) => None,
                }
            }
        };
        if let Some(sk_expr) = sk_expr {
            names.insert("#sk".to_owned(), sk_attr.to_owned());
            expr.push_str(" AND ");
            expr.push_str(sk_expr);
        }
    }
    for (name, v) in &values {
        if name != ":pk"
            && let AttributeValue::S(s) = v
            && s.len() > MAX_SORT_KEY_BYTES
        {
            return Err(Error::Validation(format!(
                "the sort-key condition value is {} bytes; DynamoDB allows at most {MAX_SORT_KEY_BYTES}",
                s.len()
            )));
        }
    }
    let filter_expression = match q.filter {
        Some(f) => {
            let text = f.render(&mut names, &mut values).map_err(Error::Validation)?;
            if let Some(attr) = filter_key_attr(&text, &names, q.key_attrs) {
                return Err(Error::Validation(format!(
                    "the filter names `{attr}`, a key attribute of {}: DynamoDB refuses a filter on a queried key \
                     (it belongs in the key condition: use the query's sort-key conditions)",
                    q.index.map_or_else(|| "the table".to_owned(), |i| format!("index {i}"))
                )));
            }
            Some(text)
        }
        None => None,
    };
    let projection_expression = q.projection.map(|attrs| crate::model::view::projection_expression(attrs, &mut names));
    Ok(QueryRequest {
        index_name: q.index,
        partition_key: q.pk.to_owned(),
        sort_condition: q.sort.clone(),
        key_condition_expression: expr,
        expression_attribute_names: names,
        expression_attribute_values: values,
        scan_index_forward: !q.descending,
        limit: q.limit,
        consistent_read: q.consistent_read,
        filter_expression,
        projection_expression,
    })
}

/// Conditions on `Self`'s fields can filter queries of `T`: an entity's own, or a collection's
/// member's (implemented by `#[derive(Collection)]`).
#[diagnostic::on_unimplemented(
    message = "a condition on `{Self}` cannot filter a query of `{T}`",
    label = "conditions on `{Self}`",
    note = "filter with a condition on the queried entity's fields (`<Entity>::fields()`), or on a member's for a collection"
)]
pub trait Filters<T> {}

impl<E: crate::model::entity::Entity> Filters<E> for E {}
