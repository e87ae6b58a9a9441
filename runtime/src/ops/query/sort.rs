//! Sort-key conditions: the typed conditions on a query's sort key, and the exact key ranges
//! (`between`, `begins_with`, comparisons) they become.

use std::cmp::Ordering;

use crate::error::KeyError;
use crate::key::attr::AttributeType;
use crate::model::MAX_SORT_KEY_BYTES;

/// A condition on the sort key of a query, in terms of key text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortCondition {
    /// No condition (the sort-key template has neither literal prefix nor placeholder fixed).
    Any,
    /// `begins_with(SK, prefix)`.
    BeginsWith(String),
    /// `SK = value`.
    Equals(String),
    /// `SK BETWEEN lower AND upper` (both inclusive); a missing side is unbounded.
    Range {
        /// Inclusive lower bound.
        lower: Option<String>,
        /// Inclusive upper bound.
        upper: Option<String>,
    },
    /// No key can match: the query is answered without a request.
    Nothing,
    /// `SK < value`: a condition on a sort key that is a field's own attribute.
    Below(String),
    /// `SK > value`: a condition on a sort key that is a field's own attribute.
    Above(String),
}

impl SortCondition {
    /// Whether a sort key matches, comparing UTF-8 bytes as DynamoDB does. `None` is an item
    /// without sort key.
    pub fn matches(&self, sk: &str) -> bool {
        self.matches_as(sk, AttributeType::S)
    }

    /// Whether a sort key of type `ty` (as text: numbers in decimal, binary in hex) matches,
    /// comparing as DynamoDB compares that type. A number that does not parse matches nothing.
    pub fn matches_as(&self, sk: &str, ty: AttributeType) -> bool {
        if ty != AttributeType::S {
            let cmp = |v: &str| ty.compare(sk, v);
            return match self {
                SortCondition::Any => true,
                SortCondition::BeginsWith(p) => ty == AttributeType::B && sk.starts_with(p.as_str()),
                SortCondition::Equals(v) => cmp(v) == Some(Ordering::Equal),
                SortCondition::Range { lower, upper } => {
                    lower.as_deref().is_none_or(|l| cmp(l).is_some_and(Ordering::is_ge))
                        && upper.as_deref().is_none_or(|u| cmp(u).is_some_and(Ordering::is_le))
                }
                SortCondition::Below(v) => cmp(v) == Some(Ordering::Less),
                SortCondition::Above(v) => cmp(v) == Some(Ordering::Greater),
                SortCondition::Nothing => false,
            };
        }
        match self {
            SortCondition::Any => true,
            SortCondition::BeginsWith(p) => sk.as_bytes().starts_with(p.as_bytes()),
            SortCondition::Equals(v) => sk == v,
            SortCondition::Range { lower, upper } => {
                lower.as_deref().is_none_or(|l| sk.as_bytes() >= l.as_bytes())
                    && upper.as_deref().is_none_or(|u| sk.as_bytes() <= u.as_bytes())
            }
            SortCondition::Nothing => false,
            SortCondition::Below(v) => sk.as_bytes() < v.as_bytes(),
            SortCondition::Above(v) => sk.as_bytes() > v.as_bytes(),
        }
    }
}

/// A comparison on one sort-key placeholder.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOp {
    Lt,
    Lte,
    Gt,
    Gte,
}

/// A comparison value wider than its `<field:N>` placeholder: greater than every value a key
/// can hold, so a range condition on it is empty or unbounded, never an error.
pub(crate) fn above_every_key(e: &KeyError) -> bool {
    matches!(e, KeyError::Format { source: crate::key::KeyPartError::TooWide { .. }, .. })
}

pub(crate) const FILL: char = '\u{10FFFF}';

/// The greatest string of at most [`MAX_SORT_KEY_BYTES`] bytes that starts with `prefix`.
pub(crate) fn max_with_prefix(mut prefix: String) -> String {
    // One reservation and one copy of a ready-made run of U+10FFFF (4 bytes each), rather than
    // growing the string a character at a time.
    const FILL_RUN: &str = concat!(
        "\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}",
        "\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}"
    );
    prefix.reserve(MAX_SORT_KEY_BYTES.saturating_sub(prefix.len()));
    while prefix.len() + FILL_RUN.len() <= MAX_SORT_KEY_BYTES {
        prefix.push_str(FILL_RUN);
    }
    while prefix.len() + FILL.len_utf8() <= MAX_SORT_KEY_BYTES {
        prefix.push(FILL);
    }
    match MAX_SORT_KEY_BYTES.saturating_sub(prefix.len()) {
        3 => prefix.push('\u{FFFF}'),
        2 => prefix.push('\u{7FF}'),
        1 => prefix.push('\u{7F}'),
        _ => {}
    }
    prefix
}

/// The greatest string of at most [`MAX_SORT_KEY_BYTES`] bytes below `s`; `None` for "".
pub(crate) fn predecessor(mut s: String) -> Option<String> {
    let last = s.pop()?;
    if last == '\0' {
        return Some(s);
    }
    let mut code = u32::from(last) - 1;
    if (0xD800..=0xDFFF).contains(&code) {
        code = 0xD7FF;
    }
    s.push(char::from_u32(code)?);
    Some(max_with_prefix(s))
}

/// `eq` on a placeholder: the condition and the new fixed prefix.
pub(crate) fn sort_eq(
    prefix: &str,
    value: Result<String, KeyError>,
    after: &str,
    last: bool,
) -> Result<(SortCondition, String), KeyError> {
    let text = value?;
    let mut fixed = String::with_capacity(prefix.len() + text.len() + after.len());
    fixed.push_str(prefix);
    fixed.push_str(&text);
    fixed.push_str(after);
    let sort = if last { SortCondition::Equals(fixed.clone()) } else { SortCondition::BeginsWith(fixed.clone()) };
    Ok((sort, fixed))
}

pub(crate) fn lower(prefix: &str, op: SortOp, text: &str) -> Option<String> {
    match op {
        SortOp::Gte => Some(format!("{prefix}{text}")),
        SortOp::Gt => Some(format!("{prefix}{text}$")),
        SortOp::Lt | SortOp::Lte => (!prefix.is_empty()).then(|| prefix.to_owned()),
    }
}

/// `Err(())` means the range is empty.
pub(crate) fn upper(prefix: &str, op: SortOp, text: &str, after: &str, last: bool) -> Result<Option<String>, ()> {
    match op {
        SortOp::Gt | SortOp::Gte => Ok((!prefix.is_empty()).then(|| max_with_prefix(prefix.to_owned()))),
        SortOp::Lte if last => Ok(Some(format!("{prefix}{text}{after}"))),
        SortOp::Lte => Ok(Some(max_with_prefix(format!("{prefix}{text}{after}")))),
        SortOp::Lt if text.is_empty() => Err(()),
        SortOp::Lt => predecessor(format!("{prefix}{text}")).map(Some).ok_or(()),
    }
}

pub(crate) fn range(lower: Option<String>, upper: Result<Option<String>, ()>) -> SortCondition {
    match upper {
        Err(()) => SortCondition::Nothing,
        Ok(upper) => match (&lower, &upper) {
            (Some(l), Some(u)) if l.as_bytes() > u.as_bytes() => SortCondition::Nothing,
            _ => SortCondition::Range { lower, upper },
        },
    }
}

/// Every key that starts with `prefix`: no condition on the placeholder after it.
pub(crate) fn all_from(prefix: &str) -> SortCondition {
    if prefix.is_empty() { SortCondition::Any } else { SortCondition::BeginsWith(prefix.to_owned()) }
}

/// A comparison on a placeholder.
pub(crate) fn sort_cmp(
    prefix: &str,
    op: SortOp,
    value: Result<String, KeyError>,
    after: &str,
    last: bool,
) -> Result<SortCondition, KeyError> {
    match value {
        // Wider than the placeholder: above every value a key can hold (see the module docs).
        Err(e) if above_every_key(&e) => Ok(match op {
            SortOp::Gt | SortOp::Gte => SortCondition::Nothing,
            SortOp::Lt | SortOp::Lte => all_from(prefix),
        }),
        Err(e) => Err(e),
        Ok(text) => Ok(range(lower(prefix, op, &text), upper(prefix, op, &text, after, last))),
    }
}

/// An inclusive range on a placeholder.
pub(crate) fn sort_between(
    prefix: &str,
    from: Result<String, KeyError>,
    to: Result<String, KeyError>,
    after: &str,
    last: bool,
) -> Result<SortCondition, KeyError> {
    match (from, to) {
        (Err(e), _) if above_every_key(&e) => Ok(SortCondition::Nothing),
        (Ok(from), Err(e)) if above_every_key(&e) => {
            Ok(range(lower(prefix, SortOp::Gte, &from), upper(prefix, SortOp::Gte, &from, after, last)))
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(from), Ok(to)) => {
            Ok(range(lower(prefix, SortOp::Gte, &from), upper(prefix, SortOp::Lte, &to, after, last)))
        }
    }
}
