//! Query constructors by level: what generated `query_by_<..>` functions return, narrowed one
//! placeholder at a time until a key condition is complete.

use std::marker::PhantomData;

use super::{Query, QueryOptions, SortCondition, SortOp};

use super::{LevelSpec, LevelText};
use crate::error::KeyError;
use crate::key::attr::AttributeType;
use crate::model::MAX_SORT_KEY_BYTES;
use crate::model::value::IntoValue;

/// A placeholder of a generated query level: its description, and how a value of its type
/// becomes key text (`<T as KeyField>::__at`, or the padded or raw one), as [`How::Level`]
/// holds it for a [`SortKey`]: `Level::at(value)` is the text its operators compare.
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

/// The state of a generated query type (`<Name><Query>Query<L>`, `L` the placeholders fixed by
/// `eq`): the query and the sort-key text fixed so far. The generated type wraps it, and a
/// [`SortKey`] narrows it.
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

    /// `eq` on a placeholder that is not the last: the next level.
    pub fn __eq(mut self, v: LevelText) -> Self {
        if let Ok(text) = &v.text {
            self.q.fix_shard_field(v.level.field, text);
        }
        let (q, prefix) = self.q.__eq(&self.prefix, v.text, v.level.after, false);
        QueryLevel { q, prefix }
    }

    /// `eq` on the last placeholder: the query is complete.
    pub fn __eq_last(mut self, v: LevelText) -> Query<E> {
        if let Ok(text) = &v.text {
            self.q.fix_shard_field(v.level.field, text);
        }
        self.q.__eq(&self.prefix, v.text, v.level.after, true).0
    }

    fn cmp(self, op: SortOp, v: LevelText) -> Query<E> {
        self.q.__cmp(&self.prefix, op, v.text, v.level.after, v.level.last)
    }

    /// `lt`.
    pub fn __lt(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Lt, v)
    }

    /// `lte`.
    pub fn __lte(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Lte, v)
    }

    /// `gt`.
    pub fn __gt(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Gt, v)
    }

    /// `gte`.
    pub fn __gte(self, v: LevelText) -> Query<E> {
        self.cmp(SortOp::Gte, v)
    }

    /// `begins_with` on a string placeholder: the sort key begins with the fixed prefix and the
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

    /// `between`.
    pub fn __between(self, from: LevelText, to: LevelText) -> Query<E> {
        self.q.__between(&self.prefix, from.text, to.text, from.level.after, from.level.last)
    }

    /// `eq` on a placeholder the partition fixes (a leading sort-key component that is a field
    /// of the partition key). Called by generated code.
    pub fn __fix<T>(self, how: &'static How<T>, value: T) -> Self {
        match how {
            How::Level(l) | How::Raw(l, _) => self.__eq((l.text)(value, &l.spec)),
            How::Attr(_) | How::AttrThen(..) => self,
        }
    }

    /// A condition on the next placeholder, as `how` describes it. Called by the generated
    /// placeholder methods (`.ts()`).
    #[inline]
    pub fn __sort<T, N: QueryOptions<Entity = E>>(self, how: &'static How<T>) -> SortKey<E, T, N> {
        SortKey::__new(self, how)
    }

    /// The query so far.
    #[inline]
    pub fn query(&self) -> &Query<E> {
        &self.q
    }

    /// The query so far, to set its options.
    #[inline]
    pub fn query_mut(&mut self) -> &mut Query<E> {
        &mut self.q
    }
}

/// How a placeholder's value becomes a key condition: a component of a key template (`Level`,
/// a raw one with the successor `gt` needs), or a field's own attribute (its key text, and for
/// a multi-attribute index the next sort-key attribute `eq` leads to). Generated, as a constant.
#[doc(hidden)]
pub enum How<T: 'static> {
    /// A component of a sort-key template.
    Level(Level<T>),
    /// A `:raw` component: `gt(v)` is `gte` of the next text after `v`'s.
    Raw(Level<T>, fn(T, &'static LevelSpec) -> LevelText),
    /// A sort key that is the field's own attribute: its key text.
    Attr(fn(&T) -> Result<String, KeyError>),
    /// A sort-key attribute of a multi-attribute index that another follows (attribute, type).
    AttrThen(fn(&T) -> Result<String, KeyError>, &'static str, AttributeType),
}

impl<T> How<T> {
    /// A component of a sort-key template (`width` digits for `<field:N>`, else 0), whose
    /// values become key text with `text` (the type's `KeyField::__at` or `PaddedKeyField::__at`).
    /// Called by generated code.
    pub const fn level(
        text: fn(T, &'static LevelSpec) -> LevelText,
        key: &'static str,
        field: &'static str,
        width: usize,
        after: &'static str,
        last: bool,
    ) -> Self {
        How::Level(Level { spec: LevelSpec { key, field, width, after, last }, text })
    }

    /// A `<field:raw>` component: `text` and `successor` are `RawKeyField`'s. Called by
    /// generated code.
    pub const fn raw(
        text: fn(T, &'static LevelSpec) -> LevelText,
        successor: fn(T, &'static LevelSpec) -> LevelText,
        key: &'static str,
        field: &'static str,
        after: &'static str,
        last: bool,
    ) -> Self {
        How::Raw(Level { spec: LevelSpec { key, field, width: 0, after, last }, text }, successor)
    }
}

impl<T> core::fmt::Debug for How<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            How::Level(l) | How::Raw(l, _) => f.debug_tuple("Level").field(&l.spec).finish(),
            How::Attr(_) | How::AttrThen(..) => f.write_str("Attr"),
        }
    }
}

/// A condition on one placeholder of a query's sort key: `Message::query_by_room(r).ts()` gives
/// one, and its operators give the query (`.ts().gt(t)`) or, for `eq` on a placeholder that
/// others follow, the query narrowed to it, open to a condition on the next one
/// (`.ts().eq(t).id().gt(x)`). Every condition is a key condition, exact (see [`Query`]).
#[must_use = "a sort-key condition does nothing until one of its operators is called"]
pub struct SortKey<E, T: 'static, N> {
    level: QueryLevel<E>,
    how: &'static How<T>,
    _next: PhantomData<fn() -> N>,
}

impl<E, T, N> core::fmt::Debug for SortKey<E, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SortKey").field("query", &self.level.q).field("placeholder", &self.how).finish()
    }
}

impl<E, T, N: QueryOptions<Entity = E>> SortKey<E, T, N> {
    /// The condition on the placeholder after `level`'s. Called by generated code.
    #[doc(hidden)]
    #[inline]
    pub fn __new(level: QueryLevel<E>, how: &'static How<T>) -> Self {
        SortKey { level, how, _next: PhantomData }
    }

    #[inline]
    fn text(&self, value: impl IntoValue<T>) -> Text {
        let value = value.into_value();
        match self.how {
            How::Level(l) | How::Raw(l, _) => Text::Level((l.text)(value, &l.spec)),
            How::Attr(text) | How::AttrThen(text, ..) => Text::Attr(text(&value)),
        }
    }

    #[inline]
    fn range(self, op: SortOp, value: impl IntoValue<T>) -> Query<E> {
        let how = self.how;
        match (how, op) {
            (How::Raw(l, successor), SortOp::Gt) => self.level.__gte(successor(value.into_value(), &l.spec)),
            _ => match self.text(value) {
                Text::Level(t) => self.level.cmp(op, t),
                Text::Attr(t) => self.level.q.__attr_cmp(op, t),
            },
        }
    }

    /// Items whose value here equals `value`: the query, open to a condition on the next
    /// placeholder if one follows.
    #[inline]
    pub fn eq(self, value: impl IntoValue<T>) -> N {
        let how = self.how;
        let text = self.text(value);
        let level = self.level;
        let prefix = String::new();
        let narrowed = match (text, how) {
            (Text::Level(t), _) if t.level.last => QueryLevel { q: level.__eq_last(t), prefix },
            (Text::Level(t), _) => level.__eq(t),
            (Text::Attr(t), How::AttrThen(_, next, ty)) => QueryLevel { q: level.q.__also_then(t, next, *ty), prefix },
            (Text::Attr(t), _) => QueryLevel { q: level.q.__attr_eq(t), prefix },
        };
        N::__from_level(narrowed)
    }

    /// Items whose value here is less than `value`.
    #[inline]
    pub fn lt(self, value: impl IntoValue<T>) -> Query<E> {
        self.range(SortOp::Lt, value)
    }

    /// Items whose value here is at most `value`.
    #[inline]
    pub fn lte(self, value: impl IntoValue<T>) -> Query<E> {
        self.range(SortOp::Lte, value)
    }

    /// Items whose value here is greater than `value`.
    #[inline]
    pub fn gt(self, value: impl IntoValue<T>) -> Query<E> {
        self.range(SortOp::Gt, value)
    }

    /// Items whose value here is at least `value`.
    #[inline]
    pub fn gte(self, value: impl IntoValue<T>) -> Query<E> {
        self.range(SortOp::Gte, value)
    }

    /// Items whose value here is between `from` and `to`, both included.
    #[inline]
    pub fn between(self, from: impl IntoValue<T>, to: impl IntoValue<T>) -> Query<E> {
        let (from, to) = (from.into_value(), to.into_value());
        match self.how {
            How::Level(l) | How::Raw(l, _) => self.level.__between((l.text)(from, &l.spec), (l.text)(to, &l.spec)),
            How::Attr(text) | How::AttrThen(text, ..) => self.level.q.__attr_between(text(&from), text(&to)),
        }
    }
}

impl<E, N: QueryOptions<Entity = E>> SortKey<E, String, N> {
    /// Items whose value here begins with `prefix` (`begins_with` on the sort key, exact: a
    /// string's key text escapes character by character, so the text of a prefix begins the
    /// text of every value it begins).
    #[inline]
    pub fn begins_with(self, prefix: impl IntoValue<String>) -> Query<E> {
        match self.text(prefix) {
            Text::Level(t) => self.level.__begins_with(t),
            Text::Attr(t) => self.level.q.__attr_begins_with(t),
        }
    }
}

/// A value's text at a placeholder.
enum Text {
    Level(LevelText),
    Attr(Result<String, KeyError>),
}
