//! Query constructors by level: what generated `query_by_<..>` functions return, narrowed one
//! placeholder at a time until a key condition is complete.

use super::{Filters, Query, QueryRequest, SortCondition, SortOp};

use super::{LevelSpec, LevelText};
use crate::cursor::Cursor;
use crate::error::Error;
use crate::model::MAX_SORT_KEY_BYTES;

/// A placeholder of a generated query level: its description, and how a value of its type
/// becomes key text (`<T as KeyField>::__at`, or the padded or raw one). A level's condition
/// methods are each one call: `self.0.__lt(Self::__L.at(value))`.
#[doc(hidden)]
pub struct Level<T: 'static> {
    /// The placeholder.
    pub spec: LevelSpec,
    /// The key text of a value at this placeholder.
    pub text: fn(T, &'static LevelSpec) -> LevelText,
}

impl<T> core::fmt::Debug for Level<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Level").field(&self.spec).finish()
    }
}

impl<T> Level<T> {
    /// `value` as key text at this level.
    #[inline]
    pub fn at(&'static self, value: impl crate::model::value::IntoValue<T>) -> LevelText {
        (self.text)(value.into_value(), &self.spec)
    }
}

/// The state of a generated query level (`<Name><Query>Query`, `..With<Field>`): the query and
/// the sort-key text fixed so far. The generated level types wrap it, and each of their methods
/// is one call to it.
#[doc(hidden)]
pub struct QueryLevel<E> {
    pub(crate) q: Query<E>,
    pub(crate) prefix: String,
}

impl<E> Clone for QueryLevel<E> {
    fn clone(&self) -> Self {
        QueryLevel { q: self.q.clone(), prefix: self.prefix.clone() }
    }
}

impl<E> core::fmt::Debug for QueryLevel<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryLevel").field("q", &self.q).field("prefix", &self.prefix).finish()
    }
}

impl<E> From<QueryLevel<E>> for Query<E> {
    fn from(level: QueryLevel<E>) -> Self {
        level.q
    }
}

impl<E> QueryLevel<E> {
    /// The first level of a query, with the sort key's literal prefix fixed.
    pub fn __new(q: Query<E>, prefix: &'static str) -> Self {
        QueryLevel { q, prefix: prefix.to_owned() }
    }

    /// `_eq` on a placeholder that is not the last: the next level.
    pub fn __eq(mut self, v: LevelText) -> Self {
        if let Ok(text) = &v.text {
            self.q.fix_shard_field(v.level.field, text);
        }
        let (q, prefix) = self.q.__eq(&self.prefix, v.text, v.level.after, false);
        QueryLevel { q, prefix }
    }

    /// `_eq` on the last placeholder: the query is complete.
    pub fn __eq_last(mut self, v: LevelText) -> Query<E> {
        if let Ok(text) = &v.text {
            self.q.fix_shard_field(v.level.field, text);
        }
        self.q.__eq(&self.prefix, v.text, v.level.after, true).0
    }

    fn cmp(self, op: SortOp, v: LevelText) -> Query<E> {
        self.q.__cmp(&self.prefix, op, v.text, v.level.after, v.level.last)
    }

    /// `_lt`.
    pub fn __lt(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Lt, v)
    }

    /// `_lte`.
    pub fn __lte(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Lte, v)
    }

    /// `_gt`.
    pub fn __gt(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Gt, v)
    }

    /// `_gte`.
    pub fn __gte(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Gte, v)
    }

    /// `_begins_with` on a string placeholder: the sort key begins with the fixed prefix and the
    /// key text of `v` (a string's key text escapes character by character, so this is exact).
    pub fn __begins_with(self, v: LevelText) -> Query<E> {
        match v.text {
            Ok(text) => {
                let mut prefix = self.prefix;
                prefix.push_str(&text);
                // No key is longer than DynamoDB's limit: a longer prefix begins none.
                let sort = if prefix.len() > MAX_SORT_KEY_BYTES {
                    SortCondition::Nothing
                } else {
                    SortCondition::BeginsWith(prefix)
                };
                self.q.with_sort(Ok(sort))
            }
            Err(e) => self.q.fail(e),
        }
    }

    /// `_between`.
    pub fn __between(self, from: LevelText, to: LevelText) -> Query<E> {
        self.q.__between(&self.prefix, from.text, to.text, from.level.after, from.level.last)
    }

    /// See [`Query::descending`].
    #[inline]
    pub fn descending(self) -> Self {
        QueryLevel { q: self.q.descending(), ..self }
    }

    /// See [`Query::limit`].
    #[inline]
    pub fn limit(self, n: u32) -> Self {
        QueryLevel { q: self.q.limit(n), ..self }
    }

    /// See [`Query::consistent_read`].
    #[inline]
    pub fn consistent_read(self) -> Self {
        QueryLevel { q: self.q.consistent_read(), ..self }
    }

    /// See [`Query::after`].
    #[inline]
    pub fn after(self, cursor: Cursor) -> Self {
        QueryLevel { q: self.q.after(cursor), ..self }
    }

    /// See [`Query::strict`].
    #[inline]
    pub fn strict(self) -> Self {
        QueryLevel { q: self.q.strict(), ..self }
    }

    /// See [`Query::max_empty_pages`].
    #[inline]
    pub fn max_empty_pages(self, pages: u32) -> Self {
        QueryLevel { q: self.q.max_empty_pages(pages), ..self }
    }

    /// See [`Query::filter`]: the query with no further sort-key condition.
    #[inline]
    pub fn filter<S: Filters<E>>(self, condition: crate::expr::Condition<S>) -> Query<E> {
        self.q.filter(condition)
    }

    /// See [`Query::request`].
    #[inline]
    pub fn request(&self) -> Result<QueryRequest, Error>
    where
        E: crate::model::collection::Readable,
    {
        self.q.request()
    }
}
