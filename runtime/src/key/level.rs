//! The key text of a query level's condition value: a sort-key placeholder of a generated
//! query level (its description) and a value written at it. The key codec builds them; the
//! query levels of `ops::query` take them.

use crate::error::KeyError;

/// One sort-key placeholder of a generated query level: what the operators of its condition
/// (`SortKey`'s `eq`, `gt`, ..) need besides the value. Generated code holds one in a `const`
/// per placeholder.
#[doc(hidden)]
#[derive(Debug)]
pub struct LevelSpec {
    /// The sort-key attribute.
    pub key: &'static str,
    /// The placeholder's field (for errors).
    pub field: &'static str,
    /// `N` of `<field:N>` (unused without a width).
    pub width: usize,
    /// The literal after the placeholder (empty or starting with `#`).
    pub after: &'static str,
    /// No placeholder follows.
    pub last: bool,
}

/// A condition value as key text, with the level it belongs to: what
/// `Level::at` (`ops::query`) gives the operators of a placeholder's condition.
#[doc(hidden)]
#[derive(Debug)]
pub struct LevelText {
    pub(crate) text: Result<String, KeyError>,
    pub(crate) level: &'static LevelSpec,
}

impl LevelText {
    #[doc(hidden)]
    #[inline]
    pub fn __new(text: Result<String, KeyError>, level: &'static LevelSpec) -> Self {
        LevelText { text, level }
    }
}
