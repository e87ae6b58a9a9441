//! Sort-key conditions of a query on a sort key that is a field's own attribute (an index key
//! described in `key::attr`): the values are the attribute's, each condition one
//! comparison.

use std::cmp::Ordering;

use super::{Query, SortCondition, SortOp};
use crate::error::KeyError;
use crate::key::attr::AttributeType;

/// Sort-key conditions on a sort key that is a field's own attribute: the values are the
/// attribute's (a number compares as a number), and each condition is one comparison.
impl<E> Query<E> {
    /// Sets the types of the partition and sort keys. Called by generated code.
    #[doc(hidden)]
    pub fn __key_types(mut self, pk: AttributeType, sk: AttributeType) -> Self {
        self.key_types = (pk, sk);
        self
    }

    /// Whether `text` is below every key of the sort key's type (an empty string or binary).
    fn below_every_key(&self, text: &str) -> bool {
        text.is_empty() && self.key_types.1 != AttributeType::N
    }

    fn with_condition(mut self, sort: SortCondition) -> Self {
        self.sort = sort;
        self
    }

    /// `eq` on a sort key that is a field's own attribute. Called by [`SortKey`](super::SortKey).
    #[doc(hidden)]
    pub fn __attr_eq(self, value: Result<String, KeyError>) -> Self {
        match value {
            Err(e) => self.fail(e),
            Ok(v) if self.below_every_key(&v) => self.with_condition(SortCondition::Nothing),
            Ok(v) => self.with_condition(SortCondition::Equals(v)),
        }
    }

    /// A comparison on a sort key that is a field's own attribute. Called by
    /// [`SortKey`](super::SortKey).
    #[doc(hidden)]
    pub fn __attr_cmp(self, op: SortOp, value: Result<String, KeyError>) -> Self {
        let v = match value {
            Err(e) => return self.fail(e),
            Ok(v) => v,
        };
        let sort = if self.below_every_key(&v) {
            match op {
                SortOp::Lt | SortOp::Lte => SortCondition::Nothing,
                SortOp::Gt | SortOp::Gte => SortCondition::Any,
            }
        } else {
            match op {
                SortOp::Lt => SortCondition::Below(v),
                SortOp::Lte => SortCondition::Range { lower: None, upper: Some(v) },
                SortOp::Gt => SortCondition::Above(v),
                SortOp::Gte => SortCondition::Range { lower: Some(v), upper: None },
            }
        };
        self.with_condition(sort)
    }

    /// `begins_with` on a string sort key that is a field's own attribute. Called by
    /// [`SortKey`](super::SortKey).
    #[doc(hidden)]
    pub fn __attr_begins_with(self, prefix: Result<String, KeyError>) -> Self {
        match prefix {
            Err(e) => self.fail(e),
            Ok(p) if p.is_empty() => self.with_condition(SortCondition::Any),
            Ok(p) => self.with_condition(SortCondition::BeginsWith(p)),
        }
    }

    /// An inclusive range on a sort key that is a field's own attribute. Called by
    /// [`SortKey`](super::SortKey).
    #[doc(hidden)]
    pub fn __attr_between(self, from: Result<String, KeyError>, to: Result<String, KeyError>) -> Self {
        let (from, to) = match (from, to) {
            (Ok(from), Ok(to)) => (from, to),
            (Err(e), _) | (_, Err(e)) => return self.fail(e),
        };
        if self.below_every_key(&to) {
            return self.with_condition(SortCondition::Nothing);
        }
        if self.below_every_key(&from) {
            return self.__attr_cmp(SortOp::Lte, Ok(to));
        }
        match self.key_types.1.compare(&from, &to) {
            Some(Ordering::Greater) | None => self.with_condition(SortCondition::Nothing),
            _ => self.with_condition(SortCondition::Range { lower: Some(from), upper: Some(to) }),
        }
    }
}
