//! An apply that stopped part way: the payload of [`Error::Apply`](super::Error::Apply),
//! re-exported beside `Table::apply` (`ApplyError`).
//!
//! It holds two plans, what was applied and what was not, and `TablePlan` names the table's
//! whole description (indexes, settings, policies), floors above. So the plans are held here
//! without their type, and read typed through [`ApplyError::applied`],
//! [`ApplyError::not_applied`] and [`ApplyError::into_parts`], which are written beside the
//! plan (`schema::apply`, with `Display` and `Debug`), as [`PartialPage`](super::PartialPage)'s
//! page is read beside the query.

use super::Error;

/// An apply that stopped part way: what it made ([`applied`](ApplyError::applied)), what it did
/// not ([`not_applied`](ApplyError::not_applied)), and why ([`source`](ApplyError::source)).
/// Every change of `applied` is complete (the table and its indexes were ACTIVE after it); the
/// first of `not_applied` may have been sent (the error says how far it got), the others were
/// not.
pub struct ApplyError {
    /// The two plans (`schema::apply::Halves`): only `Table::apply` makes an `ApplyError`.
    pub(crate) plans: Box<dyn core::any::Any + Send + Sync>,
    /// Why it stopped.
    pub source: Error,
}

impl std::error::Error for ApplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}
